"""Which state rows the compiled kernels may read, and which the rules can reach: one place for both questions.

A state row edited by hand (``UnoVectorEnv.states``, ``restore``, ``load_state_dict``) reaches compiled code, which
trusts it; a seat, kind or pile size out of range there would read or write outside the arrays.  These checks run
in Python first and name the game and the field that is wrong:

* :func:`field_bounds`: the lowest and highest value of every entry of every field of ``layout.FIELDS``;
* :func:`range_faults` / :func:`row_problem`: the scalars the kernels index with, then the compiled invariant
  checker (``invariants.check_state``: conservation, counts, the top card, and the phase consistency: the fields
  each phase's actions read must point at something real);
* :func:`state_problem`: everything above for one row, every entry of every field included (what
  ``Game.load_state_dict`` runs before it writes anything).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import batch as K
from . import layout as L
from .cards import COL_SYMBOL
from .invariants import FAILURE_NAMES, check_state

if TYPE_CHECKING:
    from .game import Game



def field_ranges(game: Game) -> list[tuple[str, int, int, int]]:
    """(field name, column, lowest, highest) of every state scalar the kernels use as an index or a loop bound."""
    return [(name, L.OFFSETS[name], lo, hi) for name, (lo, hi) in _scalar_bounds(game).items()
            if name not in ("round_points", "flips")]


def _scalar_bounds(game: Game) -> dict[str, tuple[int, int]]:
    n, k = game.num_players, game.num_kinds
    nd = game.dice.shape[0] if game.name == "dice" else 0
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


def field_bounds(game: Game) -> dict[str, tuple[int, int]]:
    """(lowest, highest) of every entry of every field of ``layout.FIELDS`` that this module knows.

    A field added to the layout must be given its bounds here (a test checks that every field is); until it is,
    :func:`state_problem` holds it only to the range of a row's entries.  Entries past the live part of an array
    (seats past ``num_players``, cards past ``draw_n``) are bounded too: seats past the game must be empty (the
    invariant checker), stale pile entries are still card (die) ids.  A wide field's bounds are its values'.
    """
    n, k = game.num_players, game.num_kinds
    nd = game.dice.shape[0] if game.name == "dice" else 0
    item = max(k, nd) - 1  # a pile entry is a kind (cards) or a die id (dice)
    out = _scalar_bounds(game)
    out.update({
        "hand_n": (0, L.MAX_ITEMS), "called": (0, 1), "scores": (0, L.WIDE_MAX), "hand": (0, L.MAX_ITEMS),
        "disc_count": (0, L.MAX_ITEMS), "draw": (0, item), "disc": (0, item), "die_loc": (L.LOC_CENTRE, n - 1),
        "die_face": (0, 5), "shown_hand": (0, L.MAX_ITEMS),
    })
    return out


def range_faults(game: Game, states: np.ndarray) -> tuple[np.ndarray, str]:
    """(B,) bool: rows with a field out of range (unsafe for any kernel, even the invariant checker), and what is
    wrong with the first of them ('' if none)."""
    n = game.num_players
    nd = game.dice.shape[0] if game.name == "dice" else 0
    bad = np.zeros(states.shape[0], dtype=bool)
    first = ""
    checks: list[tuple[str, Any, Any]]
    def column(name: str, col: int) -> np.ndarray:
        return L.wide_values(states[:, col: col + 2])[:, 0] if L.FIELD_BY_NAME[name].wide else states[:, col]

    checks = [(f"field {name!r} is {{}}, outside {lo}..{hi}" + (" (and not 0)" if col == L.S_DIR else ""),
               values, (values < lo) | (values > hi) | ((values == 0) if col == L.S_DIR else False))
              for name, col, lo, hi in field_ranges(game) for values in (column(name, col),)]
    sizes = states[:, L.S_DRAW_N].astype(np.int64) + states[:, L.S_DISC_N]
    checks.append(("fields 'draw_n' + 'disc_n': the piles hold {} items, more than the game has", sizes,
                   sizes > (nd if nd else L.MAX_ITEMS)))
    for name, start, lo, hi in (("called", L.O_CALLED, 0, 1), ("hand_n", L.O_HAND_N, 0, L.MAX_ITEMS)):
        block = states[:, start: start + n]
        out_of_range = (block < lo) | (block > hi)
        first_bad = block[np.arange(block.shape[0]), out_of_range.argmax(axis=1)]
        checks.append((f"field {name!r}: an entry is {{}}, outside {lo}..{hi}", first_bad, out_of_range.any(axis=1)))
    for message, values, fault in checks:
        if fault.any() and not first:
            b = int(np.flatnonzero(fault)[0])
            first = f"game {b}: " + message.format(int(values[b]))
        bad |= fault
    return bad, first


def row_problem(game: Game, states: np.ndarray) -> str:
    """'' when every state row is one the compiled kernels can read safely, else the first game and field that is
    not.  The ranges bound every index the kernels compute from a state; the compiled invariant checker (run
    once the ranges hold) adds conservation, hand sizes, the top card and the phase consistency."""
    if not isinstance(states, np.ndarray) or states.dtype != L.STATE_DTYPE or states.ndim != 2 \
            or states.shape[1] != game.state_len:
        return (f"state rows must be an {np.dtype(L.STATE_DTYPE).name} array of shape (B, {game.state_len}) "
                f"({game.num_players} players)")
    bad, first = range_faults(game, states)
    if bad.any():
        return first
    codes = np.zeros(states.shape[0], dtype=np.int64)
    K.check_states(states, game.cfg, game.spec, game.dice, codes)
    bad = np.flatnonzero(codes)
    if bad.size:
        b = int(bad[0])
        return f"game {b}: invariant broken ({FAILURE_NAMES[int(codes[b])]})"
    return ""


def _row_bounds(game: Game) -> tuple[np.ndarray, np.ndarray, list[tuple[L.Field, slice, int, int]]]:
    """(lowest, highest) of every entry of a state row under ``game`` (:func:`field_bounds`), and (field, entries,
    lowest, highest value) of every wide field, computed once.  A wide field's low parts are held to
    ``0 .. 2**WIDE_BITS - 1`` and its high parts to its bounds' high parts; its values are checked against the
    bounds themselves in :func:`state_problem`."""
    cached = game.__dict__.get("_row_bounds")
    if cached is None:
        lo = np.full(game.state_len, L.STATE_MIN, dtype=np.int64)
        hi = np.full(game.state_len, L.STATE_MAX, dtype=np.int64)
        wide = []
        for name, (a, b) in field_bounds(game).items():
            f = L.FIELD_BY_NAME[name]
            span = slice(L.OFFSETS[name], L.OFFSETS[name] + f.size_for(game.num_players))
            if f.wide:
                lo[span][0::2], hi[span][0::2] = 0, 2**L.WIDE_BITS - 1
                lo[span][1::2], hi[span][1::2] = a >> L.WIDE_BITS, b >> L.WIDE_BITS
                wide.append((f, span, a, b))
            else:
                lo[span], hi[span] = a, b
        cached = game.__dict__["_row_bounds"] = (lo, hi, wide)
    return cached


def state_problem(game: Game, row: np.ndarray) -> str:
    """'' when the state row ``row`` is one the rules can reach in form, else what is wrong, naming the field:
    every entry of every field within :func:`field_bounds`, the piles within the game's size, then the compiled
    invariant checker."""
    row = np.asarray(row)
    if row.shape != (game.state_len,):
        return f"a state row is 1-D of length {game.state_len} ({game.num_players} players); got shape {row.shape}"
    lo, hi, wide = _row_bounds(game)
    out = np.flatnonzero((row < lo) | (row > hi))
    if out.size or row[L.S_DIR] == 0:
        pos = int(out[0]) if out.size else L.S_DIR
        f = next(f for f in L.FIELDS if L.OFFSETS[f.name] <= pos < L.OFFSETS[f.name] + f.size)
        index = pos - L.OFFSETS[f.name]
        if f.wide:
            part = "low" if index % 2 == 0 else "high"
            at = f"[{index // 2}]" if f.shape else ""
            return (f"field {f.name!r}{at}: its {part} entry is {int(row[pos])}, outside {lo[pos]}..{hi[pos]} "
                    f"(a wide field stores each value as its low {L.WIDE_BITS} bits, then the rest)")
        at = "" if not f.shape else str(list(map(int, np.unravel_index(index, f.shape_for(game.num_players)))))
        allowed = "-1 or 1" if f.name == "dir" else f"{lo[pos]}..{hi[pos]}"
        return f"field {f.name!r}{at} is {int(row[pos])}, outside {allowed}"
    for f, span, a, b in wide:
        values = L.wide_values(row[span])
        bad = np.flatnonzero((values < a) | (values > b))
        if bad.size:
            at = f"[{int(bad[0])}]" if f.shape else ""
            return f"field {f.name!r}{at} is {int(values[bad[0]])}, outside {a}..{b}"
    nd = game.dice.shape[0] if game.name == "dice" else 0
    if int(row[L.S_DRAW_N]) + int(row[L.S_DISC_N]) > (nd if nd else L.MAX_ITEMS):
        return "fields 'draw_n' + 'disc_n': the piles hold more items than the game has"
    code = check_state(np.ascontiguousarray(row, dtype=L.STATE_DTYPE), game.cfg, game.spec, game.dice)
    return f"invariant broken ({FAILURE_NAMES[code]})" if code else ""
