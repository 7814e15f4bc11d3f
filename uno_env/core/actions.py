"""The action table, declared once: every section of the action space, its size, and how its actions are named.

The action space of a game is the concatenation of these sections, in this order, whatever the options and the
player count (an action that the rules never allow under some option is simply never legal).  With K kinds of
card (or die face) a section starts at ``a*K + b``; the compiled rules read those starts as the generated
constants ``A_<SECTION>_K`` / ``A_<SECTION>_B`` (``start = A_X_K * k + A_X_B``), the Python side reads
:func:`offsets` and :func:`action_names`.  The engine, the agents (``ActionView``), the human player, the
invariant checker and the README's action table all derive from :data:`SECTIONS`.
"""
from __future__ import annotations

from .cards import COLOURS
from .layout import MAX_PLAYERS

#: (section, size as (per kind, constant), name of the i-th action given the kind names, meaning)
SECTIONS = (
    ("play", (1, 0), lambda kinds, i: f"play {kinds[i]}",
     "play a card/die of this kind: a normal turn, the drawn card, a stacked draw card, a jump-in"),
    ("play_uno", (1, 0), lambda kinds, i: f"play {kinds[i]} + UNO",
     "the same plays with the UNO call, when they leave one card (`uno_call: explicit`)"),
    ("colour", (0, 4), lambda kinds, i: f"choose colour {COLOURS[i]}", "name the colour after a wild"),
    ("draw", (0, 1), lambda kinds, i: "draw", "draw a card (dice: draw a die after a reroll)"),
    ("keep", (0, 1), lambda kinds, i: "keep drawn card",
     "after drawing: keep the card (the only choice when it cannot be played; under `force_play` a playable one "
     "must be played)"),
    ("challenge", (0, 1), lambda kinds, i: "challenge", "facing a Wild Draw Four / Wild Draw 2: challenge it"),
    ("accept", (0, 1), lambda kinds, i: "accept", "facing a draw penalty: accept it"),
    ("pass", (0, 1), lambda kinds, i: "pass", "decline a jump-in"),
    ("reroll", (0, 1), lambda kinds, i: "reroll", "dice: reroll the whole hand"),
    ("give", (1, 0), lambda kinds, i: f"give {kinds[i]}", "Wild Dip Into Deck: the card given to the next player"),
    ("swap", (0, MAX_PLAYERS - 1), lambda kinds, i: f"swap hands with seat +{i + 1}",
     "`seven_zero`: the seat (clockwise offset) to swap hands with"),
)


def _starts() -> dict[str, tuple[int, int]]:
    out, a, b = {}, 0, 0
    for name, (per_kind, const), _, _ in SECTIONS:
        out[name] = (a, b)
        a, b = a + per_kind, b + const
    out["num_actions"] = (a, b)
    return out


STARTS: dict[str, tuple[int, int]] = _starts()
globals().update({f"A_{name.upper()}_K": ab[0] for name, ab in STARTS.items()})
globals().update({f"A_{name.upper()}_B": ab[1] for name, ab in STARTS.items()})
__all__ = [f"A_{name.upper()}_{part}" for name in STARTS for part in ("K", "B")]


def offsets(num_kinds: int) -> dict[str, int]:
    """Start of each section (and ``num_actions``) for a game with ``num_kinds`` kinds."""
    return {name: a * num_kinds + b for name, (a, b) in STARTS.items()}


def section_sizes(num_kinds: int) -> dict[str, int]:
    """Number of actions in each section of the action table for a game with ``num_kinds`` kinds."""
    return {name: per_kind * num_kinds + const for name, (per_kind, const), _, _ in SECTIONS}


def action_names(kind_names: tuple[str, ...] | list[str]) -> list[str]:
    """Every action's name, indexed by action id."""
    sizes = section_sizes(len(kind_names))
    return [namer(kind_names, i) for name, _, namer, _ in SECTIONS for i in range(sizes[name])]


def section_of(action: int, num_kinds: int) -> tuple[str, int]:
    """(section, index within it) of an action id; ValueError when out of range."""
    offs = offsets(num_kinds)
    if not 0 <= action < offs["num_actions"]:
        raise ValueError(f"action {action} is out of range [0, {offs['num_actions']})")
    for name, _, _, _ in reversed(SECTIONS):
        if action >= offs[name]:
            return name, action - offs[name]
    raise AssertionError(action)  # pragma: no cover


def _k_expr(a: int, b: int) -> str:
    if a == 0:
        return str(b)
    k = "K" if a == 1 else f"{a}K"
    return k if b == 0 else (f"{k}+{b}" if b > 0 else f"{k}-{-b}")


def actions_markdown() -> str:
    """The action table as Markdown, for any game (K = the game's number of kinds): ids, section, names."""
    example = ("red 7", "wild draw four")
    lines = ["| ids | section | names | meaning |", "|---|---|---|---|"]
    for name, (per_kind, const), namer, meaning in SECTIONS:
        a, b = STARTS[name]
        if per_kind == 0 and const == 1:
            ids = _k_expr(a, b)
        else:
            ids = f"{_k_expr(a, b)} .. {_k_expr(a + per_kind, b + const - 1)}"
        first = namer(example, 0)
        names = f"`{first}`" if per_kind == 0 and const == 1 else f"`{first}`, ..."
        lines.append(f"| {ids} | `{name}` | {names} | {meaning} |")
    a, b = STARTS["num_actions"]
    lines.append(f"| A = {_k_expr(a, b).replace('+', ' + ')} | | | actions in all |")
    return "\n".join(lines) + "\n"
