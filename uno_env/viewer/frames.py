"""What a viewer of the table may see: the JSON the browser pages draw.

Privacy lives here and nowhere else: the pages only draw what these functions hand them, so a page for one seat
never holds another seat's cards (not even hidden in the markup).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def table_view(game, d: Mapping[str, Any], seat: int | None = None) -> dict[str, Any]:
    """The table of state ``d`` (``Game.state_dict`` output) as seen by ``seat`` (``None``: every hand shown).

    The draw pile's cards are never included, only their number.  In UNO Dice every hand is public.
    """
    n = len(d["hands"])
    public_hands = game.name == "dice"
    hands = []
    for s in range(n):
        shown = seat is None or s == seat or public_hands
        hands.append({"count": len(d["hands"][s]), "cards": sorted(d["hands"][s]) if shown else None})
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


def action_text(game, actor: int, action: int, viewer: int | None = None, name: str | None = None) -> str:
    """The log line of ``actor`` taking ``action``, as ``viewer`` may read it (``None``: everything); ``name``:
    the action's description when known (``Game.describe_action``: a UNO Dice die with the face it showed)."""
    name = name or game.action_names[action]
    if name.startswith("give ") and viewer is not None and viewer != actor:
        name = "give a card to the next player"  # the card passes face down
    return f"player_{actor}: {name}"
