"""What a viewer of the table may see: the JSON the browser pages draw.

Privacy lives here and nowhere else: the pages only draw what these functions hand them, so a page for one seat
never holds another seat's cards (not even hidden in the markup).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.actions import section_of

#: the action-table sections that put a card (or die) from the actor's hand on the discard pile
PLAY_SECTIONS = ("play", "play_uno", "play_die", "play_die_uno")


def table_view(game, d: Mapping[str, Any], seat: int | None = None) -> dict[str, Any]:
    """The table of state ``d`` (``Game.state_dict`` output) as seen by ``seat`` (``None``: every hand shown).

    The draw pile's cards are never included, only their number.  In UNO Dice every hand is public.
    """
    n = len(d["hands"])
    if game.name == "dice":
        hands = [_dice_hand(d, s) for s in range(n)]
    else:
        hands = [{"count": len(d["hands"][s]), "cards": sorted(d["hands"][s]) if seat is None or s == seat else None}
                 for s in range(n)]
    done = d["done"]
    return {
        "game": game.name,
        "num_players": n,
        "viewer": seat,
        "top": d["top"],
        "colour": d["current_colour"],
        "direction": d["direction"],
        "current": d["current_seat"],
        "phase": d["phase"],
        "pending": d["pending_draw"],
        "pile_name": "bag" if game.name == "dice" else "draw pile",
        "pile": len(d["bag"]) if game.name == "dice" else len(d["draw_pile"]),
        "discards": len(d["discard_pile"]),
        "round": d["round"] + 1,
        "turns": d["turns"],
        "scores": list(d["scores"]),
        "called_uno": list(d["called_uno"]),
        "hands": hands,
        "done": done,
        "winner": d["match_winner"] if done == "terminated" else -1,
    }


def _dice_hand(d: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """A UNO Dice hand (public): the faces shown, and which die shows each (a play names the die, not the face)."""
    held = sorted((die["shows"], i) for i, die in enumerate(d["dice"]) if die["location"] == seat)
    return {"count": len(held), "cards": [shows for shows, _ in held], "dice": [i for _, i in held]}


def action_text(game, actor: int, action: int, viewer: int | None = None, name: str | None = None) -> str:
    """The log line of ``actor`` taking ``action``, as ``viewer`` may read it (``None``: everything); ``name``:
    the action's description when known (``Game.describe_action``: a UNO Dice die with the face it showed)."""
    name = name or game.action_names[action]
    if name.startswith("give ") and viewer is not None and viewer != actor:
        name = "give a card to the next player"  # the card passes face down
    return f"player_{actor}: {name}"


def log_entry(game, actor: int, action: int, before: Mapping[str, Any], after: Mapping[str, Any],
              viewer: int | None = None, name: str | None = None) -> dict[str, Any]:
    """One line of a page's action log: ``{"seat", "text", "events"}`` for ``actor`` taking ``action`` in the
    state ``before`` (``Game.view_dict`` output) that led to ``after``; the text as ``viewer`` may read it and the
    events of :func:`step_events`."""
    return {"seat": actor, "text": action_text(game, actor, action, viewer, name),
            "events": step_events(game, actor, action, before, after)}


def step_events(game, actor: int, action: int, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """What else happened when ``actor`` took ``action`` (``before``/``after``: ``Game.view_dict`` of the states):
    a missed UNO call and whether it was caught, a challenge's outcome, every card drawn as a penalty, hands that
    changed owner, the end of the round.  Only public facts: who drew how many cards, never which."""
    section, index = section_of(action, game.num_kinds, getattr(game, "num_dice", 0))
    n = len(before["hands"])
    events: list[str] = []
    if section == "swap":
        events.append(f"player_{actor} and player_{(actor + index + 1) % n} swap hands")
    elif section in PLAY_SECTIONS and _rotates(game, section, index, before):
        events.append("every hand passes to the next player")
    new_round = after["round"] != before["round"]
    if events or new_round:  # hands changed owner or were dealt again: their sizes say nothing about drawing
        if before["uno_missed"] == actor:
            events.append(f"player_{actor} did not call UNO; the hand changed owner, so there is no penalty")
        return events + _round_end(before, after)
    drawn = [len(a) - len(b) for a, b in zip(after["hands"], before["hands"])]
    if section in PLAY_SECTIONS or section == "give":
        drawn[actor] += 1  # the card that left the hand
    if section == "give":
        drawn[(actor + before["direction"]) % n] -= 1  # the card given is no draw
    if section == "draw":
        if drawn[actor] > 1:  # draw_until_playable
            events.append(f"player_{actor} draws {drawn[actor]} {_items(game, drawn[actor])}")
        drawn[actor] = 0
    events += _missed_call(game, actor, section, before, after, drawn)
    for seat in range(n):
        if drawn[seat] > 0:
            events.append(_draw_reason(game, section, actor, seat, drawn[seat]))
    if section == "challenge" and after["shown"] is not None:
        events.append(f"player_{after['shown']['from']} shows the hand to player_{actor}")
    return events + _round_end(before, after)


def _rotates(game, section: str, index: int, before: Mapping[str, Any]) -> bool:
    """Whether a play puts a 0 down under ``seven_zero`` (every hand then passes on)."""
    if not getattr(game.rules, "seven_zero", False):
        return False
    if section.startswith("play_die"):
        kind = game.kinds.index(before["dice"][index % game.num_dice]["shows"])
    else:
        kind = index
    return int(game.kinds.table[kind, 1]) == 0  # the symbol column: 0 is the number 0


def _missed_call(game, actor: int, section: str, before: Mapping[str, Any], after: Mapping[str, Any],
                 drawn: list[int]) -> list[str]:
    """The catch of a play that left one card without the UNO call, once the turn closes (a wild's colour may
    be named first); takes the penalty cards out of ``drawn``."""
    missed = before["uno_missed"] == actor or (
        section in ("play", "play_die") and len(before["hands"][actor]) == 2 and game.rules.uno_call == "explicit")
    if not missed or after["uno_missed"] == actor:
        return []
    if drawn[actor] > 0:
        penalty = min(drawn[actor], 2)
        drawn[actor] -= penalty
        return [f"player_{actor} did not call UNO: caught, draws {penalty} {_items(game, penalty)}"]
    return [f"player_{actor} did not call UNO and was not caught"]


def _draw_reason(game, section: str, actor: int, seat: int, count: int) -> str:
    cards = _items(game, count)
    if section == "challenge":
        outcome = "fails" if seat == actor else "succeeds"
        return f"the challenge {outcome}: player_{seat} draws {count} {cards}"
    return f"player_{seat} draws {count} {cards}"


def _items(game, count: int) -> str:
    if game.name == "dice":
        return "die" if count == 1 else "dice"
    return "card" if count == 1 else "cards"


def _round_end(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    if after["done"] == "truncated" and not before["done"]:
        return ["the game stops: the limit of decisions (max_turns) is reached"]
    if after["round"] == before["round"] and not (after["done"] == "terminated" and not before["done"]):
        return []
    winner = after["round_winner"] if after["round_winner"] >= 0 else max(
        range(len(after["scores"])), key=lambda s: after["scores"][s] - before["scores"][s])
    points = after["scores"][winner] - before["scores"][winner]
    return [f"player_{winner} goes out and wins the round ({points} points)"]
