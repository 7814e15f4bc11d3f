"""The ``greedy`` player, compiled: the one implementation that ``GreedyAgent`` (``uno_env.agents.greedy``) and the
batched simulator's in-kernel ``"greedy"`` opponent play.

Every legal action gets a fixed score and the best one is taken: a play scores 1000 + the card's points (the UNO
call half a point more), a Wild Dip Into Deck give 500 + the card's points, a seven_zero swap 500, a colour 100,
keeping a drawn card 10, drawing / rerolling / accepting / passing 0, a challenge never.  A colour is named after
the colour the hand holds most of, a swap is made with the smallest other hand.  Ties are broken by a rotation of
the action order, ``shift`` (0..A-1): among the best, the action ``a`` with the largest ``(a - shift) mod A``.  The
agent draws the rotation from its numpy stream, the batched simulator from the game's opponent stream.  UNO Dice
is played by face: the card rule over the faces the legal dice show, then the lowest die showing the chosen face.
"""
from __future__ import annotations

import numpy as np

from ..core import observe as O
from ..core._cache import track_dependencies
from ..core._jit import njit
from ..core.actions import (
    A_CHALLENGE_B,
    A_CHALLENGE_K,
    A_COLOUR_B,
    A_COLOUR_K,
    A_GIVE_B,
    A_GIVE_K,
    A_KEEP_B,
    A_KEEP_K,
    A_PLAY_B,
    A_PLAY_K,
    A_PLAY_UNO_B,
    A_PLAY_UNO_K,
    A_SWAP_B,
    A_SWAP_K,
)
from ..core.cards import COL_COLOUR, COL_POINTS
from ._cache import player_sources
from .parameters import block_fits
from .view import dice_count, die_for, kind_mask, section_start
from .workspace import B_KIND_MASK

track_dependencies(__file__, player_sources())

_NONE = -(2**62)  # below every score of a legal action


@njit(cache=True, inline="always")
def _colour_choice(obs, mask, spec, offs, colour, shift):
    """The colour the hand holds most of."""
    k = spec.shape[0]
    a_n = mask.shape[0]
    best, best_s = -1, np.int64(_NONE)
    for c in range(4):
        if mask[colour + c] == 0:
            continue
        cnt = np.float32(0.0)
        for kind in range(k):
            if spec[kind, COL_COLOUR] == c:
                cnt += obs[offs[O.B_HAND] + kind]
        s = np.int64(cnt) * a_n + (colour + c - shift) % a_n
        if s > best_s:
            best, best_s = colour + c, s
    return best


@njit(cache=True, inline="always")
def _swap_choice(obs, mask, offs, swap, n_swap, shift):
    """The swap with the smallest other hand."""
    a_n = mask.shape[0]
    best, best_s = -1, np.int64(_NONE)
    for i in range(n_swap):
        if mask[swap + i] == 0:
            continue
        s = -np.int64(obs[offs[O.B_HAND_SIZES] + 1 + i]) * a_n + (swap + i - shift) % a_n
        if s > best_s:
            best, best_s = swap + i, s
    return best


@njit(cache=True, inline="always")
def _fixed_score(spec, a, k):
    """The fixed score of action ``a`` (every decision but naming a colour and swapping hands)."""
    play = section_start(A_PLAY_K, A_PLAY_B, k)
    play_uno = section_start(A_PLAY_UNO_K, A_PLAY_UNO_B, k)
    colour = section_start(A_COLOUR_K, A_COLOUR_B, k)
    give = section_start(A_GIVE_K, A_GIVE_B, k)
    if a < play_uno:
        return 1000.0 + spec[a - play, COL_POINTS]
    if a < colour:
        return 1000.5 + spec[a - play_uno, COL_POINTS]
    if a < colour + 4:
        return 100.0
    if a == section_start(A_KEEP_K, A_KEEP_B, k):
        return 10.0
    if a == section_start(A_CHALLENGE_K, A_CHALLENGE_B, k):
        return -1e9
    if give <= a < give + k:
        return 500.0 + spec[a - give, COL_POINTS]
    if a >= section_start(A_SWAP_K, A_SWAP_B, k):
        return 500.0
    return 0.0


@njit(cache=True, inline="always")
def _any_legal(mask, lo, hi):
    for a in range(lo, hi):
        if mask[a] != 0:
            return True
    return False


@njit(cache=True)
def greedy_action(obs, mask, spec, offs, n, shift):
    """Greedy's choice for one decision of a card game; ``shift`` is its tie-break rotation (0..A-1)."""
    k = spec.shape[0]
    a_n = mask.shape[0]
    colour = section_start(A_COLOUR_K, A_COLOUR_B, k)
    swap = section_start(A_SWAP_K, A_SWAP_B, k)
    n_swap = min(n - 1, a_n - swap)
    if _any_legal(mask, colour, colour + 4):
        return _colour_choice(obs, mask, spec, offs, colour, shift)
    if n_swap > 0 and _any_legal(mask, swap, swap + n_swap):
        return _swap_choice(obs, mask, offs, swap, n_swap, shift)
    best, best_v, best_r = -1, -np.inf, -1
    for a in range(a_n):
        if mask[a] == 0:
            continue
        v = _fixed_score(spec, a, k)
        r = (a - shift) % a_n
        if v > best_v or (v == best_v and r > best_r):
            best, best_v, best_r = a, v, r
    return best


@njit(cache=True)
def dice_greedy_action(obs, mask, spec, offs, w, n, shift, bw):
    """Greedy's choice in UNO Dice: the card rule over the faces the legal dice show, then the lowest die showing
    the chosen face; -1 when ``w`` lacks the dice block (``bw``: ``workspace.baseline_scratch``'s)."""
    d = dice_count(mask, spec)
    if not block_fits(w, spec, d):
        return -1
    km = bw[B_KIND_MASK:B_KIND_MASK + mask.shape[0]]
    kind_mask(obs, mask, spec, offs, w, d, km)
    best = greedy_action(obs, km, spec, offs, n, shift)
    if 0 <= best < section_start(A_COLOUR_K, A_COLOUR_B, spec.shape[0]):
        die = die_for(obs, mask, spec, offs, w, d, best, False)
        return die if die >= 0 else best
    return best
