"""The action table, declared once: every section of the action space, its size, and how its actions are named.

The action space of a game is the concatenation of these sections, in this order, whatever the options and the
player count (an action that the rules never allow under some option is simply never legal).  With K kinds of
card (or die face) a section starts at ``a*K + b``; the compiled rules read those starts as the generated
constants ``A_<SECTION>_K`` / ``A_<SECTION>_B`` (``start = A_X_K * k + A_X_B``), the Python side reads
:func:`offsets` and :func:`action_names`.  The engine, the agents (``ActionView``), the human player, the
invariant checker and the docs' action tables all derive from :data:`SECTIONS`.

UNO Dice adds :data:`DIE_SECTIONS` after the card sections: one action per die (D = the dice in the set; D = 0
for the card games, whose action space is therefore unchanged).  In UNO Dice a play names the die, not its face
(its rule sheet: the player chooses a die from the hand; two dice showing the same face are different dice), so the
per-kind ``play`` / ``play_uno`` actions are never legal there; every die's face and place are in the
observation, so an agent knows which face each ``play die`` action puts in the centre.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import COLOURS
from .layout import MAX_PLAYERS

#: (section, size as (per kind, constant), name of the i-th action given the kind names, meaning)
SECTIONS = (
    ("play", (1, 0), lambda kinds, i: f"play {kinds[i]}",
     "play a card of this kind: a normal turn, the drawn card, a stacked draw card, a jump-in (dice: `play_die`)"),
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


#: UNO Dice: (section, name of the action for die i, meaning); each section has one action per die (D in all),
#: ``play_die`` starts where the card sections end and ``play_die_uno`` D actions later.
DIE_SECTIONS = (
    ("play_die", lambda i: f"play die {i}",
     "dice: play die i (whatever face it shows): a normal turn, the drawn die, a stacked draw die, a jump-in"),
    ("play_die_uno", lambda i: f"play die {i} + UNO",
     "dice: the same plays with the UNO call, when they leave one die (`uno_call: explicit`)"),
)


def _starts() -> dict[str, tuple[int, int]]:
    out, a, b = {}, 0, 0
    for name, (per_kind, const), _, _ in SECTIONS:
        out[name] = (a, b)
        a, b = a + per_kind, b + const
    out["num_actions"] = (a, b)  # of the card sections; a dice game adds 2 * D (``offsets``)
    out["play_die"] = (a, b)
    return out


STARTS: dict[str, tuple[int, int]] = _starts()
globals().update({f"A_{name.upper()}_K": ab[0] for name, ab in STARTS.items()})
globals().update({f"A_{name.upper()}_B": ab[1] for name, ab in STARTS.items()})
__all__ = [f"A_{name.upper()}_{part}" for name in STARTS for part in ("K", "B")]
if TYPE_CHECKING:  # the generated section starts, spelled out for type checkers
    # generated-types:start action-starts (tools/gen_typing.py writes this block; do not edit)
    A_PLAY_K: int
    A_PLAY_B: int
    A_PLAY_UNO_K: int
    A_PLAY_UNO_B: int
    A_COLOUR_K: int
    A_COLOUR_B: int
    A_DRAW_K: int
    A_DRAW_B: int
    A_KEEP_K: int
    A_KEEP_B: int
    A_CHALLENGE_K: int
    A_CHALLENGE_B: int
    A_ACCEPT_K: int
    A_ACCEPT_B: int
    A_PASS_K: int
    A_PASS_B: int
    A_REROLL_K: int
    A_REROLL_B: int
    A_GIVE_K: int
    A_GIVE_B: int
    A_SWAP_K: int
    A_SWAP_B: int
    A_NUM_ACTIONS_K: int
    A_NUM_ACTIONS_B: int
    A_PLAY_DIE_K: int
    A_PLAY_DIE_B: int
    # generated-types:end action-starts


def offsets(num_kinds: int, num_dice: int = 0) -> dict[str, int]:
    """Start of each section (and ``num_actions``) for a game with ``num_kinds`` kinds and ``num_dice`` dice
    (0 for the card games)."""
    out = {name: a * num_kinds + b for name, (a, b) in STARTS.items()}
    out["play_die_uno"] = out["play_die"] + num_dice
    out["num_actions"] = out["play_die"] + 2 * num_dice
    return out


def section_sizes(num_kinds: int, num_dice: int = 0) -> dict[str, int]:
    """Number of actions in each section of the action table for a game with ``num_kinds`` kinds and
    ``num_dice`` dice."""
    sizes = {name: per_kind * num_kinds + const for name, (per_kind, const), _, _ in SECTIONS}
    sizes.update({name: num_dice for name, _, _ in DIE_SECTIONS})
    return sizes


def action_names(kind_names: tuple[str, ...] | list[str], num_dice: int = 0) -> list[str]:
    """Every action's name, indexed by action id."""
    sizes = section_sizes(len(kind_names), num_dice)
    names = [namer(kind_names, i) for name, _, namer, _ in SECTIONS for i in range(sizes[name])]
    return names + [namer(i) for _, namer, _ in DIE_SECTIONS for i in range(num_dice)]


def section_of(action: int, num_kinds: int, num_dice: int = 0) -> tuple[str, int]:
    """(section, index within it) of an action id; ValueError when out of range."""
    offs = offsets(num_kinds, num_dice)
    if not 0 <= action < offs["num_actions"]:
        raise ValueError(f"action {action} is out of range [0, {offs['num_actions']})")
    order = [name for name, _, _, _ in SECTIONS] + [name for name, _, _ in DIE_SECTIONS]
    for name in reversed(order):
        if action >= offs[name] and (name not in ("play_die", "play_die_uno") or num_dice > 0):
            return name, action - offs[name]
    raise AssertionError(action)  # pragma: no cover


def _k_expr(a: int, b: int) -> str:
    if a == 0:
        return str(b)
    k = "K" if a == 1 else f"{a}K"
    return k if b == 0 else (f"{k}+{b}" if b > 0 else f"{k}-{-b}")


def actions_markdown() -> str:
    """The action table as Markdown, for any game (K = the game's number of kinds, D its dice): ids, section,
    names."""
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
    a, b = STARTS["play_die"]
    base = _k_expr(a, b)
    lines.append(f"| {base} .. {base}+D-1 | `play_die` | `play die 0`, ... | {DIE_SECTIONS[0][2]} |")
    lines.append(f"| {base}+D .. {base}+2D-1 | `play_die_uno` | `play die 0 + UNO`, ... | {DIE_SECTIONS[1][2]} |")
    lines.append(f"| A = {base.replace('+', ' + ')} + 2D | | | actions in all (D = 0 in the card games) |")
    return "\n".join(lines) + "\n"
