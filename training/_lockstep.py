"""The compiled step of the lockstep arena (``evaluate.play_lockstep``): one call plays one decision in each of many
games, with the same engine calls, in the same order, as ``evaluate.play_game`` makes for one game."""
from __future__ import annotations

from numba import njit

from uno_env.core import engine as E
from uno_env.core._cache import rule_sources, track_dependencies
from uno_env.core.observe import observe_one
from uno_env.core.step_result import decode_step_compiled

track_dependencies(__file__, rule_sources())


@njit(cache=True, nogil=True)
def step_rows(states, rngs, cfg, spec, dice, offs, rows, actions, masks, rew, totals, log, lengths, seats, obs):
    """Play ``actions[i]`` in game ``rows[i]`` (checked legal by the caller) for every i.

    Adds the game's rewards to ``totals`` (float64, as ``play_game`` sums them), appends the action to ``log`` at
    ``lengths``, then writes the seat to act next into ``seats`` (-1 once the game is over) and, while the game goes
    on, that seat's observation into ``obs``.  Returns the first i whose step failed (-1: none)."""
    n = cfg[E.C_NP]
    bad = -1
    for i in range(rows.shape[0]):
        b = rows[i]
        st = states[b]
        status, rewarded, _, _ = decode_step_compiled(E.step_masked(st, rngs[b], cfg, spec, dice, actions[i],
                                                                    masks[b], rew[b]))
        if status != E.OK:
            if bad < 0:
                bad = i
            continue
        log[b, lengths[b]] = actions[i]
        lengths[b] += 1
        if rewarded:
            for s in range(n):
                totals[b, s] += rew[b, s]
        if st[E.S_DONE] == 0:
            seats[b] = st[E.S_CUR]
            observe_one(st, cfg, spec, offs, seats[b], obs[b])
        else:
            seats[b] = -1
    return bad


@njit(cache=True, nogil=True)
def start_game(st, rng, cfg, spec, dice, offs, core_seed, mask, obs):
    """Deal a game from ``core_seed`` (as ``play_game``), write its legal mask and the first seat's observation;
    returns the seat to act."""
    E.reset_one(st, rng, cfg, spec, dice, core_seed)
    E.legal_mask(st, cfg, spec, dice, mask)
    observe_one(st, cfg, spec, offs, st[E.S_CUR], obs)
    return st[E.S_CUR]
