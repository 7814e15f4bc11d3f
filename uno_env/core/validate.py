"""Which state rows the compiled kernels may read: every index-like field in range, then the invariants.

A state row edited by hand (``UnoVectorEnv.states``, ``restore``) reaches compiled code, which trusts it; a seat,
kind or pile size out of range there would read or write outside the arrays.  These checks run in Python first
and name the game and the field that is wrong.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import batch as K
from . import layout as L
from .cards import COL_SYMBOL
from .invariants import FAILURE_NAMES

if TYPE_CHECKING:
    from .game import Game


def field_ranges(game: Game) -> list[tuple[str, int, int, int]]:
    """(name, column, lowest, highest) of every state scalar the kernels use as an index or a loop bound."""
    n, k = game.num_players, game.num_kinds
    nd = game.dice.shape[0] if game.name == "dice" else 0
    return [
        ("current seat", L.S_CUR, 0, n - 1), ("phase", L.S_PHASE, 0, L.NUM_PHASES - 1),
        ("direction", L.S_DIR, -1, 1), ("top kind", L.S_TOP, 0, k - 1), ("colour", L.S_COLOUR, 0, 3),
        ("pending draw", L.S_PENDING, 0, L.MAX_ITEMS),
        ("pending symbol", L.S_PENDING_SYM, -1, int(game.spec[:, COL_SYMBOL].max())),
        ("wild draw player", L.S_WD_PLAYER, -1, n - 1), ("wild draw guilty", L.S_WD_GUILTY, 0, 1),
        ("drawn kind", L.S_DRAWN, -1, k - 1), ("drawn die", L.S_DRAWN_DIE, -1, nd - 1),
        ("UNO missed seat", L.S_UNO_MISSED, -1, n - 1), ("jump-in seat", L.S_JUMP_ASK, -1, n - 1),
        ("jump-in opener", L.S_JUMP_FROM, -1, n - 1), ("dealer", L.S_DEALER, 0, n - 1),
        ("round", L.S_ROUND, 0, 2**31 - 1), ("turns", L.S_TURNS, 0, 2**31 - 1), ("done", L.S_DONE, 0, 2),
        ("round winner", L.S_WINNER, -1, n - 1), ("draw pile size", L.S_DRAW_N, 0, nd if nd else L.MAX_ITEMS),
        ("discard pile size", L.S_DISC_N, 1, 1 if nd else L.MAX_ITEMS), ("continuation", L.S_CONT, 0, 1),
        ("last player", L.S_LAST_PLAYER, -1, n - 1), ("match winner", L.S_MATCH_WINNER, -1, n - 1),
        ("played flag", L.S_PLAYED, 0, 1),
        ("shown hand's seat", L.S_SHOWN_FROM, -1, n - 1), ("shown hand's viewer", L.S_SHOWN_TO, -1, n - 1),
        ("wild draw die", L.S_WD_DIE, -1, nd - 1), ("wild draw previous die", L.S_WD_PREV_DIE, -1, nd - 1),
        ("wild draw previous face", L.S_WD_PREV_FACE, -1, 5 if nd else -1),
        ("wild draw previous colour", L.S_WD_PREV_COLOUR, -1, 3 if nd else -1),
    ]


def range_faults(game: Game, states: np.ndarray) -> tuple[np.ndarray, str]:
    """(B,) bool: rows with a field out of range (unsafe for any kernel, even the invariant checker), and what is
    wrong with the first of them ('' if none)."""
    n = game.num_players
    nd = game.dice.shape[0] if game.name == "dice" else 0
    bad = np.zeros(states.shape[0], dtype=bool)
    first = ""
    checks: list[tuple[str, Any, Any]]
    checks = [(f"{name} is {{}}, outside {lo}..{hi}" + (" (and not 0)" if col == L.S_DIR else ""), states[:, col],
               (states[:, col] < lo) | (states[:, col] > hi) | ((states[:, col] == 0) if col == L.S_DIR else False))
              for name, col, lo, hi in field_ranges(game)]
    sizes = states[:, L.S_DRAW_N].astype(np.int64) + states[:, L.S_DISC_N]
    checks.append(("the piles hold {} items, more than the game has", sizes, sizes > (nd if nd else L.MAX_ITEMS)))
    for name, start, lo, hi in (("UNO call flag", L.O_CALLED, 0, 1), ("hand size", L.O_HAND_N, 0, L.MAX_ITEMS)):
        block = states[:, start: start + n]
        out_of_range = (block < lo) | (block > hi)
        first_bad = block[np.arange(block.shape[0]), out_of_range.argmax(axis=1)]
        checks.append((f"a {name} is {{}}, outside {lo}..{hi}", first_bad, out_of_range.any(axis=1)))
    for message, values, fault in checks:
        if fault.any() and not first:
            b = int(np.flatnonzero(fault)[0])
            first = f"game {b}: " + message.format(int(values[b]))
        bad |= fault
    return bad, first


def row_problem(game: Game, states: np.ndarray) -> str:
    """'' when every state row is one the compiled kernels can read safely, else the first game and field that is
    not.  The ranges bound every index the kernels compute from a state; the compiled invariant checker (run
    once the ranges hold) adds conservation, hand sizes and the top card."""
    if not isinstance(states, np.ndarray) or states.dtype != np.int32 or states.ndim != 2 \
            or states.shape[1] != L.STATE_LEN:
        return f"state rows must be an int32 array of shape (B, {L.STATE_LEN})"
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
