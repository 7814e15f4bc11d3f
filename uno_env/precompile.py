"""Compile every kernel the shells use, once, into numba's on-disk cache: ``uno-env precompile``.

The rules core is compiled by numba on first use. Compiling all of it takes 20-45 s on a 2-core machine; the
cache (``__pycache__`` beside the sources, keyed by the sources' contents, the numba version and this CPU) makes
every later start take under a second. ``make``'s set-up runs this step right after installing, so a fresh
checkout never pays the compilation inside a test, a training run or a notebook, and a wheel built from the
sources runs it on its build tree and ships the cache (``build_support/uno_env_build.py``). Run it yourself where
an installed cache does not fit, for example a wheel built on another CPU model, in a container image or on a
cluster node (``RUN uno-env precompile``), so that workers start warm.

It plays a few steps of every game through each shell (AEC, Gymnasium, the two batched faces), which compiles
exactly the specialisations those shells call; nothing here is a second list of kernels to keep in sync.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

GAMES = ("classic", "pocket", "dice")


def _first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _warm_aec(game: str) -> None:
    import uno_env

    env = uno_env.env(game)
    env.reset(seed=0)
    # a whole game with the lowest legal action reaches the round's end: scoring and the next deal compile too
    for _ in range(2000):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        env.step(_first_legal(env.observe(agent)["action_mask"]))
    env.unwrapped.load_state_dict(env.unwrapped.state_dict())  # loading checks one row with the invariant checker


def _warm_gym(game: str) -> None:
    import gymnasium

    env = gymnasium.make(f"uno_env/{game.capitalize()}-v0")
    obs, _ = env.reset(seed=0)
    for _ in range(20):
        obs, _, terminated, truncated, _ = env.step(_first_legal(obs["action_mask"]))
        if terminated or truncated:
            break
    env.close()


def _warm_vector(game: str) -> None:
    from uno_env.vector import UnoSingleAgentVectorEnv, UnoVectorEnv

    # 128 games on 2 threads: enough for the threaded step (``batch.publish``, ``advance_lead``, ``helper_spin``),
    # which the runner tries within its first calls, so that a big batch does not compile it on first use
    multi = UnoVectorEnv(game, num_envs=128, seed=0, num_threads=2)
    _, masks, _ = multi.reset()
    for _ in range(20):
        _, masks, *_ = multi.step([_first_legal(m) for m in masks])
    single = UnoSingleAgentVectorEnv(game, num_envs=128, seed=0, num_threads=2)
    _, masks = single.reset()
    for _ in range(20):
        _, masks, *_ = single.step([_first_legal(m) for m in masks])


def _warm_players(game: str) -> None:
    """The compiled ``greedy`` and ``heuristic`` as the agents and the trainer's advice call them (a batch of
    observations), on a fresh deal."""
    from uno_env.config import make_rules
    from uno_env.core import engine as E
    from uno_env.core.game import Game
    from uno_env.core.observe import observe_one
    from uno_env.players import baselines as BL
    from uno_env.players.parameters import baseline_weight_array

    g = Game(make_rules(game, None, None))
    states, rngs = g.new_states(1)
    E.reset_one(states[0], rngs[0], g.cfg, g.spec, g.dice, 0)
    obs, masks = np.zeros((1, g.obs_dim), np.float32), np.zeros((1, g.num_actions), np.int8)
    E.legal_mask(states[0], g.cfg, g.spec, g.dice, masks[0])
    observe_one(states[0], g.cfg, g.spec, g.obs_offsets, int(states[0][E.S_CUR]), obs[0])
    for kind in (BL.KIND_GREEDY, BL.KIND_HEURISTIC):
        BL.baseline_actions(kind, obs, masks, g.cfg, g.spec, g.obs_offsets, baseline_weight_array(g),
                            np.zeros(1, np.int64), np.zeros(1, np.int64))


def _warm_search(game: str) -> None:
    """The ``ismcts`` agent's compiled search (determinization, tree, rollouts) on a fresh deal."""
    from uno_env.config import make_rules
    from uno_env.core import engine as E
    from uno_env.core.game import Game
    from uno_env.core.layout import MAX_ITEMS, MAX_PLAYERS, STATE_DTYPE, STATE_LEN
    from uno_env.players import rollout as R
    from uno_env.players import search as S
    from uno_env.players.parameters import heuristic_weight_array

    g = Game(make_rules(game, None, None))
    states, rngs = g.new_states(1)
    E.reset_one(states[0], rngs[0], g.cfg, g.spec, g.dice, 0)
    a, nodes = g.num_actions, 4
    child = np.full((nodes, a), -1, np.int32)
    visits, avail = np.zeros(nodes, np.int32), np.zeros(nodes, np.int32)
    wins, counters = np.zeros((nodes, MAX_PLAYERS), np.float32), np.zeros(S.T_LEN, np.int64)
    S.tree_reset(child, visits, avail, wins, counters)
    st, seat = states[0], int(states[0][E.S_CUR])
    obs, offs, w = np.zeros(g.obs_dim, np.float32), g.obs_offsets, heuristic_weight_array()
    s, srng, m = np.zeros(g.state_len, STATE_DTYPE), np.zeros(1, np.uint64), np.zeros(a, np.int8)
    rew, value = np.zeros(MAX_PLAYERS, np.float32), np.zeros(MAX_PLAYERS, np.float32)
    pool = np.zeros(MAX_ITEMS, np.int32)
    # policy, opponent model and bias are run-time values: one call compiles every variant
    S.search(st, g.cfg, g.spec, g.dice, seat, 3, R.POLICY_HEURISTIC, 0.7, 0, 1, 1.0, np.ones(1, np.uint64), child,
             visits, avail, wins, counters, s, srng, m, rew, pool, np.zeros(nodes + 1, np.int32), obs, offs, w,
             np.zeros(STATE_LEN, STATE_DTYPE), np.zeros(5, np.int64), value)
    root = np.zeros(a, np.int8)
    E.legal_mask(st, g.cfg, g.spec, g.dice, root)
    S.flat_search(st, g.cfg, g.spec, g.dice, seat, 1, R.POLICY_HEURISTIC, 0, np.ones(1, np.uint64), root,
                  int(np.flatnonzero(root)[0]), np.zeros(a), np.zeros(a), np.zeros(a), np.zeros(a, np.int64),
                  counters, s, srng, np.zeros(g.state_len, STATE_DTYPE),
                  np.zeros(1, np.uint64), np.zeros(1, np.uint64), m, rew, pool, obs, offs, w,
                  np.zeros(STATE_LEN, STATE_DTYPE), np.zeros(5, np.int64), value)
    mask = np.zeros(a, np.int8)
    E.legal_mask(states[0], g.cfg, g.spec, g.dice, mask)
    S.root_choice(child, visits, wins, mask, int(states[0][E.S_CUR]), np.zeros(a, np.int64), np.zeros(a))
    R.policy_action(st, g.cfg, g.spec, g.dice, mask, a, R.POLICY_HEURISTIC, np.ones(1, np.uint64), obs, offs, w,
                    np.zeros(STATE_LEN, STATE_DTYPE), np.zeros(5, np.int64))  # the flat search's base choice


SHELLS = {"aec": _warm_aec, "gym": _warm_gym, "vector": _warm_vector, "players": _warm_players,
          "search": _warm_search}


def precompile(verbose: bool = False) -> float:
    """Compile (or load from the cache) every shell's kernels for every game; returns the seconds it took."""
    start = time.perf_counter()
    for game in GAMES:
        for shell, warm in SHELLS.items():
            t = time.perf_counter()
            warm(game)
            if verbose:
                print(f"{game:8s} {shell:7s} {time.perf_counter() - t:6.1f} s", flush=True)
    return time.perf_counter() - start


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env precompile``."""
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")


def run(args: argparse.Namespace) -> int:
    """``uno-env precompile``: compile every kernel into numba's cache; exit code 0."""
    seconds = precompile(verbose=not args.quiet)
    if not args.quiet:
        print(f"uno-env precompile: every kernel is in numba's cache ({seconds:.1f} s)")
    return 0
