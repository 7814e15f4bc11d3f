"""The compiled baselines by kind code: the one entry through which the batched simulator's kernel, the agents
``greedy`` and ``heuristic`` and the trainer's advice ask a player for its action.

``random`` is played by the kernel itself (a uniformly random legal action from the game's opponent stream);
``greedy`` (:mod:`~uno_env.players.greedy`) and ``heuristic`` (:mod:`~uno_env.players.card_heuristic`, in UNO
Dice :mod:`~uno_env.players.dice_heuristic`) are dispatched here.  Every player reads one seat's observation and
legal mask and the game's parameter array (:func:`uno_env.players.parameters.baseline_weight_array`).
"""
from __future__ import annotations

import numpy as np

from ..core import common as U
from ..core._cache import track_dependencies
from ..core._jit import njit, njit_refcounted
from ..core.layout import C_GAME, C_NP, GAME_DICE, STATE_DTYPE, STATE_LEN
from . import card_heuristic, dice_heuristic
from ._cache import player_sources
from .greedy import dice_greedy_action, greedy_action
from .workspace import baseline_scratch

track_dependencies(__file__, player_sources())

#: what plays a seat inside the batched kernel (``pool_kind`` codes); EXTERNAL seats are moved from Python
KIND_EXTERNAL, KIND_RANDOM, KIND_GREEDY, KIND_HEURISTIC = -1, 0, 1, 2
#: baseline name -> kind code, for the baselines the kernel can play itself
COMPILED_BASELINES = {"random": KIND_RANDOM, "greedy": KIND_GREEDY, "heuristic": KIND_HEURISTIC}


@njit(cache=True, inline="always")
def _choice(kind, obs, mask, cfg, spec, offs, w, scratch, shift, fw, iw, bw):
    """Compiled baseline ``kind``'s action (greedy: tie-break rotation ``shift``); -1 if it has none."""
    if kind == KIND_GREEDY:
        if cfg[C_GAME] == GAME_DICE:
            return dice_greedy_action(obs, mask, spec, offs, w, cfg[C_NP], shift, bw)
        return greedy_action(obs, mask, spec, offs, cfg[C_NP], shift)
    if kind == KIND_HEURISTIC:
        if cfg[C_GAME] == GAME_DICE:
            return dice_heuristic.heuristic_action(obs, mask, cfg, spec, offs, w, fw, bw)
        return card_heuristic.heuristic_action(obs, mask, cfg, spec, offs, w, scratch, fw, iw, bw)
    return -1


@njit(cache=True)
def baseline_action(kind, obs, mask, cfg, spec, offs, w, scratch, rng, fw, iw, bw):
    """The action of compiled baseline ``kind`` (KIND_*) for one seat's ``obs`` and ``mask``; -1 if it has none
    (or, in UNO Dice, when ``w`` is not the game's parameter array).

    ``rng`` (a PRNG word) gives greedy its tie-break rotation; ``scratch`` is a zeroed state row and
    ``fw``/``iw``/``bw`` the work arrays of ``workspace.baseline_scratch``.
    """
    shift = U.below(rng, mask.shape[0]) if kind == KIND_GREEDY else 0
    return _choice(kind, obs, mask, cfg, spec, offs, w, scratch, shift, fw, iw, bw)


@njit_refcounted(cache=True, nogil=True)
def baseline_actions(kind, obs, masks, cfg, spec, offs, w, shifts, out):
    """``out[i]`` = compiled baseline ``kind``'s action for row ``i`` (greedy: tie-break rotation ``shifts[i]``);
    ``w``: the game's parameter array.  Returns the first row left without an action (``out`` -1: an all-zero
    mask, or UNO Dice with a ``w`` lacking the dice block), else -1."""
    # allocating needs reference counting, which the loop over the rows is compiled without (``core/_jit.py``)
    scratch = np.zeros(STATE_LEN, dtype=STATE_DTYPE)
    fw, iw, bw = baseline_scratch(masks.shape[1])
    return _baseline_rows(kind, obs, masks, cfg, spec, offs, w, shifts, out, scratch, fw, iw, bw)


@njit(cache=True, nogil=True)
def _baseline_rows(kind, obs, masks, cfg, spec, offs, w, shifts, out, scratch, fw, iw, bw):
    """:func:`baseline_actions` with its work arrays given."""
    bad = -1
    for i in range(masks.shape[0]):
        out[i] = _choice(kind, obs[i], masks[i], cfg, spec, offs, w, scratch, shifts[i], fw, iw, bw)
        if out[i] < 0 and bad < 0:
            bad = i
    return bad
