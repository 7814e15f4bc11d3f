"""``bench_search.py``'s second reference: OpenSpiel's own ``ISMCTSBot`` plays uno-env's games through
``uno_env.openspiel``, against this package's compiled search, at the same number of simulations.

OpenSpiel has no UNO, and its C++ ``ISMCTSBot`` cannot search a Python game (pyspiel's Python states do not reach
C++'s ``ResampleFromInfostate``), so the reference is OpenSpiel's Python ``open_spiel.python.algorithms.ismcts``
(the same algorithm: single-observer ISMCTS, nodes keyed by the acting seat's observation string, UCT, random
rollouts through ``mcts.RandomRolloutEvaluator``, the most visited action), on ``pyspiel.load_game("uno_env_<game>")``.
Ours is ``ismcts:mode=tree,rollout=random`` (single-observer ISMCTS on the compiled core, nodes keyed by action
sequences, UCB1 with availability counts, random rollouts, the most visited action). Both score a game by who won:
OpenSpiel's returns are -1 / +1 and ours 0 / 1, so OpenSpiel's ``uct_c`` is twice our ``c`` for the same
exploration (``--c``, default 0.7, ours' default). Both draw their samples from the seat's information with the same
determinization (``resample_from_infostate`` is ours, compiled), so what differs is the search code itself.

What is measured (``args`` holds ``game``, ``players``, ``sims``, ``c``, ``speed_games``, ``games``, ``deal_base``,
``workers``):

1. :func:`speed`: on the decisions of ``speed_games`` games played by the greedy agent (every decision of the
   tracked seat with two legal actions or more), each search decides with ``sims`` simulations, alternating which
   goes first; simulations per CPU second of each and their ratio, and the median CPU milliseconds a decision.
2. :func:`strength`: ``games`` games of the duplicate arena (every deal twice, the two searches changing seats), a
   spec of ours against OpenSpiel's ``ISMCTSBot``; the win rate of ours with its 95% interval over deals. Every
   game is seeded from its index (the deal, our search's seed, OpenSpiel's random state and its resampling
   stream), so a run is repeatable; ``workers`` processes share the games.
"""
from __future__ import annotations

import argparse
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

MATCHED = "ismcts:mode=tree,rollout=random"


def openspiel_bot(game: Any, sims: int, c: float, seed: int) -> Any:
    """OpenSpiel's Python ISMCTSBot on ``game``, every random choice of it (rollouts, ties, resampling) seeded."""
    from open_spiel.python.algorithms import ismcts, mcts

    rng = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0 * c, max_simulations=sims,
                           random_state=rng, use_observation_string=True)
    sampler = random.Random(seed)
    # its default resampler draws from an unseeded pyspiel sampler: the same call with a seeded stream
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    return bot


def our_agent(spec: str, game: Any, sims: int, c: float, seed: int) -> Any:
    from uno_env.agents.registry import load_agent

    if spec == MATCHED or spec.startswith(MATCHED + ","):
        spec = f"{spec},sims={sims},c={c:g}"
    return load_agent(spec, game.core_game, seed=seed)


def load_game(args: argparse.Namespace) -> Any:
    import pyspiel

    import uno_env.openspiel  # noqa: F401 - registers the games

    return pyspiel.load_game(f"uno_env_{args.game}(players={args.players})")


def greedy_positions(args: argparse.Namespace, game: Any) -> list[Any]:
    """The states of ``--speed-games`` greedy games at which seat 0 has a choice."""
    from uno_env.agents.registry import load_agent

    greedy = load_agent("greedy", game.core_game, seed=0)
    positions = []
    for k in range(args.speed_games):
        state = game.new_initial_state(10_000 + k)
        while not state.is_terminal():
            player = state.current_player()
            legal = state.legal_actions()
            if player == 0 and len(legal) > 1:
                positions.append(state.clone())
            obs = np.asarray(state.observation_tensor(player), dtype=np.float32)
            state.apply_action(int(greedy.act(obs, np.asarray(state.legal_actions_mask(), dtype=np.int8))))
    return positions


def speed(args: argparse.Namespace) -> dict:
    game = load_game(args)
    positions = greedy_positions(args, game)
    if not positions:
        raise SystemExit("no decision with a choice in the speed games: raise --speed-games")
    ours = our_agent(MATCHED, game, args.sims, args.c, seed=1)
    theirs = openspiel_bot(game, args.sims, args.c, seed=1)
    # one untimed decision each first: loading our compiled search from the cache is not a simulation's cost
    ours.act_from_state(positions[0].core_state())
    openspiel_bot(game, args.sims, args.c, seed=0).step(positions[0])
    times = {"ours": [], "openspiel": []}
    sims = {"ours": 0, "openspiel": 0}
    for i, state in enumerate(positions):
        order = ("ours", "openspiel") if i % 2 == 0 else ("openspiel", "ours")
        for who in order:
            t0 = time.process_time()
            if who == "ours":
                ours.act_from_state(state.core_state())
                sims["ours"] += ours.last_search["simulations"]
            else:
                theirs.step(state)
                sims["openspiel"] += args.sims  # it always runs every simulation when there is a choice
            times[who].append(time.process_time() - t0)
    rate = {who: sims[who] / sum(times[who]) for who in times}
    return {"decisions": len(positions), "simulations": sims, "seconds": {w: sum(t) for w, t in times.items()},
            "sims_per_s": rate, "ratio": rate["ours"] / rate["openspiel"],
            "median_ms": {w: 1000 * statistics.median(t) for w, t in times.items()}}


def play_one(job: tuple[dict, str, int]) -> dict:
    """Game ``index`` of the match of ``spec`` against OpenSpiel's bot: deal ``index // 2``, ours at seat
    ``index % 2``."""
    arg_dict, spec, index = job
    args = argparse.Namespace(**arg_dict)
    game = load_game(args)
    seat = index % 2
    ours = our_agent(spec, game, args.sims, args.c, seed=index)
    theirs = openspiel_bot(game, args.sims, args.c, seed=index)
    state = game.new_initial_state(args.deal_base + index // 2)
    t = {"ours": 0.0, "openspiel": 0.0}
    while not state.is_terminal():
        t0 = time.process_time()
        if state.current_player() == seat:
            action = ours.act_from_state(state.core_state())
            t["ours"] += time.process_time() - t0
        else:
            action = theirs.step(state)
            t["openspiel"] += time.process_time() - t0
        state.apply_action(action)
    returns = state.returns()
    return {"index": index, "seat": seat, "win": float(returns[seat] > returns[1 - seat]), "seconds": t,
            "truncated": returns[seat] == returns[1 - seat]}


def strength(args: argparse.Namespace, spec: str) -> dict:
    from uno_env.training.evaluate import duplicate_interval

    jobs = [(vars(args), spec, i) for i in range(args.games)]
    if args.workers > 1:
        import multiprocessing

        with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            games = list(pool.map(play_one, jobs))
    else:
        games = [play_one(job) for job in jobs]
    deals = [(games[2 * k]["win"] + games[2 * k + 1]["win"]) / 2 for k in range(args.games // 2)]
    mean = statistics.fmean(deals)
    lo, hi = duplicate_interval(mean, statistics.stdev(deals) if len(deals) > 1 else 0.0, len(deals))
    return {"ours": spec, "games": len(games), "win_rate": mean, "ci95_low": lo, "ci95_high": hi,
            "truncated": sum(g["truncated"] for g in games),
            "cpu_s_per_game": {w: statistics.fmean(g["seconds"][w] for g in games) for w in ("ours", "openspiel")}}
