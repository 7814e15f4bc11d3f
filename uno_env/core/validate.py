"""The one state check: which state rows the compiled kernels may read, and which the rules can reach.

A state row that enters from outside (``load_state_dict``, a partial edit, ``UnoVectorEnv.states`` edited by hand,
``restore``, a pickled or deep-copied environment, a deserialized OpenSpiel state) reaches compiled code, which
trusts it: a seat, kind or pile size out of range there would read or write outside the arrays.  Every such row
goes through :func:`state_problem` (one row) or :func:`row_problem` (a batch) before any kernel reads it:

* every entry of every field of ``layout.FIELDS`` within :func:`field_bounds` (wide fields by their values);
* then the compiled invariant checker (``invariants.check_state``: conservation, counts, the top card, and the
  phase consistency: the fields each phase's actions read must point at something real).

Both run compiled (``invariants.check_row``, a few microseconds a row); only a row that fails is looked at again
in Python, to name the game and the field that is wrong.  This module knows a game only by its tables
(:class:`GameTables`, which ``game.Game`` provides), so it imports nothing above the layout.
"""
from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from . import layout as L
from .cards import COL_SYMBOL
from .invariants import BAD_BOUNDS, BAD_CONSERVATION, FAILURE_NAMES, check_row, check_rows


class GameTables(Protocol):
    """What the checks read of a game (``uno_env.core.game.Game`` has it all)."""

    name: str
    num_players: int
    num_kinds: int
    state_len: int
    cfg: np.ndarray
    spec: np.ndarray
    dice: np.ndarray
    kinds: Any  # ``cards.KindTable``: the kinds' names, for the messages


def _num_dice(game: GameTables) -> int:
    return game.dice.shape[0] if game.name == "dice" else 0


def _scalar_bounds(game: GameTables) -> dict[str, tuple[int, int]]:
    n, k = game.num_players, game.num_kinds
    nd = _num_dice(game)
    return {
        "cur": (0, n - 1), "phase": (0, L.NUM_PHASES - 1), "dir": (-1, 1), "top": (0, k - 1), "colour": (0, 3),
        "pending": (0, L.MAX_ITEMS), "pending_sym": (-1, int(game.spec[:, COL_SYMBOL].max())),
        "wd_guilty": (0, 1), "wd_player": (-1, n - 1), "drawn": (-1, k - 1), "drawn_die": (-1, nd - 1),
        "uno_missed": (-1, n - 1), "jump_ask": (-1, n - 1), "jump_from": (-1, n - 1), "dealer": (0, n - 1),
        "round": (0, L.WIDE_MAX), "turns": (0, L.WIDE_MAX), "done": (0, 2), "winner": (-1, n - 1),
        "draw_n": (0, nd if nd else L.MAX_ITEMS), "disc_n": (1, 1 if nd else L.MAX_ITEMS), "cont": (0, 1),
        "last_player": (-1, n - 1), "round_points": (0, L.WIDE_MAX), "match_winner": (-1, n - 1),
        "flips": (0, L.WIDE_MAX), "played": (0, 1), "shown_from": (-1, n - 1), "shown_to": (-1, n - 1),
        "wd_die": (-1, nd - 1), "wd_prev_die": (-1, nd - 1), "wd_prev_face": (-1, 5 if nd else -1),
        "wd_prev_colour": (-1, 3 if nd else -1),
    }


def field_bounds(game: GameTables) -> dict[str, tuple[int, int]]:
    """(lowest, highest) of every entry of every field of ``layout.FIELDS`` that this module knows.

    A field added to the layout must be given its bounds here (a test checks that every field is); until it is,
    :func:`state_problem` holds it only to the range of a row's entries.  Entries past the live part of an array
    (seats past ``num_players``, cards past ``draw_n``) are bounded too: seats past the game must be empty (the
    invariant checker), stale pile entries are still card (die) ids.  A wide field's bounds are its values'.
    """
    n, k = game.num_players, game.num_kinds
    nd = _num_dice(game)
    item = max(k, nd) - 1  # a pile entry is a kind (cards) or a die id (dice)
    out = _scalar_bounds(game)
    out.update({
        "hand_n": (0, L.MAX_ITEMS), "called": (0, 1), "scores": (0, L.WIDE_MAX), "hand": (0, L.MAX_ITEMS),
        "disc_count": (0, L.MAX_ITEMS), "draw": (0, item), "disc": (0, item), "die_loc": (L.LOC_CENTRE, n - 1),
        "die_face": (0, 5), "shown_hand": (0, L.MAX_ITEMS),
    })
    return out


class RowBounds:
    """The bounds of every entry of a state row under one game (:func:`field_bounds`), laid out for the compiled
    check: ``lo``/``hi`` per entry (a wide field's low parts ``0 .. 2**WIDE_BITS - 1``, its high parts its bounds'
    high parts), ``wide`` rows of (offset, lowest, highest value) per wide value, and ``fields`` (field, entries,
    lowest, highest) of the wide fields for the messages."""

    def __init__(self, game: GameTables):
        self.lo = np.full(game.state_len, L.STATE_MIN, dtype=np.int64)
        self.hi = np.full(game.state_len, L.STATE_MAX, dtype=np.int64)
        self.fields: list[tuple[L.Field, slice, int, int]] = []
        wide: list[tuple[int, int, int]] = []
        for name, (a, b) in field_bounds(game).items():
            f = L.FIELD_BY_NAME[name]
            span = slice(L.OFFSETS[name], L.OFFSETS[name] + f.size_for(game.num_players))
            if f.wide:
                self.lo[span][0::2], self.hi[span][0::2] = 0, 2**L.WIDE_BITS - 1
                self.lo[span][1::2], self.hi[span][1::2] = a >> L.WIDE_BITS, b >> L.WIDE_BITS
                self.fields.append((f, span, a, b))
                wide += [(off, a, b) for off in range(span.start, span.stop, 2)]
            else:
                self.lo[span], self.hi[span] = a, b
        self.wide = np.array(wide, dtype=np.int64).reshape(-1, 3)
        self.num_items = _num_dice(game) or L.MAX_ITEMS


def row_bounds(game: GameTables) -> RowBounds:
    """The game's :class:`RowBounds`, computed once and kept on the game (its tables never change)."""
    cached = game.__dict__.get("_row_bounds")
    if cached is None:
        cached = game.__dict__["_row_bounds"] = RowBounds(game)
    return cached


def state_problem(game: GameTables, row: np.ndarray) -> str:
    """'' when the state row ``row`` is one the rules can reach in form, else what is wrong, naming the field:
    every entry of every field within :func:`field_bounds`, the piles within the game's size, then the compiled
    invariant checker."""
    if not isinstance(row, np.ndarray) or row.dtype != L.STATE_DTYPE or row.shape != (game.state_len,):
        return (f"a state row is a 1-D {np.dtype(L.STATE_DTYPE).name} array of length {game.state_len} "
                f"({game.num_players} players); got {_describe_array(row)}")
    b = row_bounds(game)
    code = check_row(np.ascontiguousarray(row), b.lo, b.hi, b.wide, game.cfg, game.spec, game.dice)
    if code == 0:
        return ""
    return _bounds_problem(game, row, b) if code == BAD_BOUNDS else _invariant_problem(game, row, code)


def row_problem(game: GameTables, states: np.ndarray) -> str:
    """'' when every state row of the batch ``states`` is one the rules can reach (each row as
    :func:`state_problem`), else the first game and what is wrong with it."""
    if not isinstance(states, np.ndarray) or states.dtype != L.STATE_DTYPE or states.ndim != 2 \
            or states.shape[1] != game.state_len:
        return (f"state rows must be an {np.dtype(L.STATE_DTYPE).name} array of shape (B, {game.state_len}) "
                f"({game.num_players} players); got {_describe_array(states)}")
    bad = np.flatnonzero(row_codes(game, states))
    if bad.size:
        b = int(bad[0])
        return f"game {b}: {state_problem(game, states[b])}"
    return ""


def row_codes(game: GameTables, states: np.ndarray) -> np.ndarray:
    """(B,) int64: 0 for each row of ``states`` (int16, (B, state_len)) that passes the check, else why not
    (``invariants.FAILURE_NAMES``; ``BAD_BOUNDS`` for an entry outside its field's bounds)."""
    b = row_bounds(game)
    out = np.zeros(states.shape[0], dtype=np.int64)
    check_rows(np.ascontiguousarray(states), b.lo, b.hi, b.wide, game.cfg, game.spec, game.dice, out)
    return out


def _describe_array(x: object) -> str:
    if isinstance(x, np.ndarray):
        return f"a {x.dtype} array of shape {x.shape}"
    return f"a {type(x).__name__}"


def _bounds_problem(game: GameTables, row: np.ndarray, b: RowBounds) -> str:
    """Which field has an entry outside its bounds (the compiled check said one has)."""
    out = np.flatnonzero((row < b.lo) | (row > b.hi))
    if out.size:
        pos = int(out[0])
        f = next(f for f in L.FIELDS if L.OFFSETS[f.name] <= pos < L.OFFSETS[f.name] + f.size)
        index = pos - L.OFFSETS[f.name]
        if f.wide:
            part = "low" if index % 2 == 0 else "high"
            at = f"[{index // 2}]" if f.shape else ""
            return (f"field {f.name!r}{at}: its {part} entry is {int(row[pos])}, outside {b.lo[pos]}..{b.hi[pos]} "
                    f"(a wide field stores each value as its low {L.WIDE_BITS} bits, then the rest)")
        at = "" if not f.shape else str(list(map(int, np.unravel_index(index, f.shape_for(game.num_players)))))
        allowed = "-1 or 1" if f.name == "dir" else f"{b.lo[pos]}..{b.hi[pos]}"
        return f"field {f.name!r}{at} is {int(row[pos])}, outside {allowed}"
    for f, span, lo, hi in b.fields:
        values = L.wide_values(row[span])
        bad = np.flatnonzero((values < lo) | (values > hi))
        if bad.size:
            at = f"[{int(bad[0])}]" if f.shape else ""
            return f"field {f.name!r}{at} is {int(values[bad[0]])}, outside {lo}..{hi}"
    raise AssertionError("unreachable: the compiled check found an entry out of bounds")  # pragma: no cover


def _invariant_problem(game: GameTables, row: np.ndarray, code: int) -> str:
    """The invariant the compiled checker found broken, in words (the direction's 0 and the piles' size first:
    the checker names those only as a field or a pile size out of range)."""
    if row[L.S_DIR] == 0:
        return "field 'dir' is 0, outside -1 or 1"
    if int(row[L.S_DRAW_N]) + int(row[L.S_DISC_N]) > row_bounds(game).num_items:
        return "fields 'draw_n' + 'disc_n': the piles hold more items than the game has"
    problem = f"invariant broken ({FAILURE_NAMES[code]})"
    if code == BAD_CONSERVATION and game.name != "dice":
        problem = problem[:-1] + conservation_detail(game, L.StateView(row)) + ")"
    return problem


def conservation_detail(game: GameTables, v: L.StateView) -> str:
    """Which kinds are missing or duplicated (said after the checker found conservation broken in a card game)."""
    k = game.num_kinds
    total = v.hand[: game.num_players, :k].sum(axis=0).astype(np.int64)
    for pile in (v.draw[: v.draw_n], v.disc[: v.disc_n]):
        total += np.bincount(pile[(pile >= 0) & (pile < k)], minlength=k)[:k]
    bad = np.flatnonzero(total != game.spec[:, 3])
    names = game.kinds.names
    return " broken for " + ", ".join(
        f"{names[x]} ({total[x]} found, {game.spec[x, 3]} in the deck)" for x in bad[:5])
