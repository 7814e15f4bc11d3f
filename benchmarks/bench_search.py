"""Speed of the ``ismcts`` search beside the plain simulator, per core, from one run.

For each game at 2 and 4 players this prints:

* the plain simulator: decisions/s of the compiled core playing whole games on one core with each rollout policy
  (``random``, ``greedy``, ``heuristic``; legal mask + policy + step per decision, no observations);
* inside the search: simulated decisions/s (every decision a simulation takes in the tree and in its rollout,
  determinization included) and simulations/s (flat search: samples/s, each sample one rollout per legal root
  action), at the agent's default search, budget and rollout (``flat``, up to 100 samples, 300 in classic at 4
  players, in the card games; ``tree``, 200 simulations, in UNO Dice; ``heuristic`` rollouts);
* the time per decision at the default budget (mean and 95th percentile over the decisions of ``--games`` games
  that the ``ismcts`` agent plays against ``heuristic``; decisions with one legal action take no search and are
  left out).

Then the search beside a named reference, OpenSpiel's C++ ``MCTSBot`` on ``crazy_eights`` (OpenSpiel has no UNO
and no information-set search for that game, see ``_baselines.openspiel_crazy_eights_mcts``): the same search (UCT,
uniformly random rollouts, 200 simulations a decision), the searching seat against uniformly random players, ours
in classic (``ismcts:mode=tree,rollout=random,sims=200``) with its rollouts cut (``horizon``) at the mean length
of the reference's random playouts from the positions it searched, so that a simulation is about as long in both
(a random classic round is about 1,700 decisions, a crazy_eights game about 45). Ours samples a deal consistent
with the seat's information for every simulation; the reference searches the true state. The two alternate,
``--reference-repeats`` times, and the ratio is each repeat's, with the median and quartiles.

Then the second reference, OpenSpiel's own (Python) ``ISMCTSBot`` on 2-player UNO Dice through ``uno_env.openspiel``
(``_ismcts_openspiel.py``): simulations per CPU second beside ours at the same budget and search
(``ismcts:mode=tree,rollout=random``), and strength head to head in the duplicate arena: ours (the matched search
and the default ``ismcts``) against it, the win rate with its 95% interval over deals.

Speeds are per CPU second of this process (``time.process_time``; the search runs on one thread), so that a
shared machine's other load slows the wall clock but not the figures much; the wall-clock time per decision is
printed too, with the load average.

    python benchmarks/bench_search.py [--quick] [--games 3] [--steps 2000000] [--reference-games 3]
        [--reference-repeats 5] [--ismcts-speed-games 3] [--ismcts-games 100] [--workers 2]
        [--only ours|reference|ismcts]

Writes ``benchmarks/results/bench_search.json`` (``--json`` elsewhere).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from uno_env.agents.heuristic import HeuristicAgent
from uno_env.agents.ismcts import (
    DEFAULT_ROLLOUT,
    DEFAULT_SIMS,
    DEFAULT_SIMS_CLASSIC_MANY,
    DEFAULT_Z,
    ISMCTSAgent,
    default_mode,
    default_sims,
)
from uno_env.agents.random_agent import RandomAgent
from uno_env.config import make_rules
from uno_env.core import engine as E
from uno_env.core.game import Game
from uno_env.core.layout import MAX_PLAYERS, STATE_LEN
from uno_env.core.observe import observe_one
from uno_env.players import rollout as R
from uno_env.players.parameters import heuristic_weight_array
from uno_env.vector import game_seed

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _ismcts_openspiel  # noqa: E402

import _baselines  # noqa: E402

GAMES = ("classic", "pocket", "dice")
REFERENCE_SIMS = 200  # the tree search's default budget


def plain_speed(g: Game, policy: int, steps: int) -> float:
    """Decisions per CPU second of whole games played by a compiled rollout policy (no search)."""
    states, rngs = g.new_states(1)
    st, rng = states[0], rngs[0]
    E.reset_one(st, rng, g.cfg, g.spec, g.dice, game_seed(1))
    mask = np.zeros(g.num_actions, np.int8)
    rew = np.zeros(MAX_PLAYERS, np.float32)
    scratch = (np.zeros(g.obs_dim, np.float32), g.obs_offsets, heuristic_weight_array(),
               np.zeros(STATE_LEN, np.int32), np.zeros(5, np.int64))
    prng = np.ones(1, np.uint64)
    R.rollout_speed(st, rng, g.cfg, g.spec, g.dice, policy, 1000, mask, rew, *scratch, prng)  # compile
    t0 = time.process_time()
    R.rollout_speed(st, rng, g.cfg, g.spec, g.dice, policy, steps, mask, rew, *scratch, prng)
    return steps / (time.process_time() - t0)


def warm_up(g: Game, **agent_kw) -> None:
    """One search of a throwaway agent, so that loading (or compiling) the search's code is not timed: the first
    search of a process counted it (50-100 ms of CPU), in the first row of each search mode (classic and dice at 2
    players; classic 2p read 1.04M simulated decisions per CPU-second, then 1.83M when the same row ran again in
    the process; dice 2p's two games hold only about a dozen searches of 2-3 ms). The timed agent is a new one, so
    its choices are those it made before."""
    agent = ISMCTSAgent(g, seed=0, **{**agent_kw, "sims": 2})
    states, rngs = g.new_states(1)
    st, rng = states[0], rngs[0]
    E.reset_one(st, rng, g.cfg, g.spec, g.dice, game_seed(99))
    mask = np.zeros(g.num_actions, np.int8)
    rew = np.zeros(MAX_PLAYERS, np.float32)
    while st[E.S_DONE] == 0:
        a = agent.act_from_state(st)
        if agent.last_search["simulations"]:
            return
        E.step_one(st, rng, g.cfg, g.spec, g.dice, a, mask, rew)


def search_speed(g: Game, games: int, opponent: type = HeuristicAgent, **agent_kw) -> dict[str, float]:
    """ismcts (its defaults, or ``agent_kw``) against ``opponent`` for ``games`` games: per-decision times and
    simulated decisions/s."""
    warm_up(g, **agent_kw)
    n = g.num_players
    searcher = ISMCTSAgent(g, seed=0, **agent_kw)
    other = opponent(g, seed=0)
    mask = np.zeros(g.num_actions, np.int8)
    rew = np.zeros(MAX_PLAYERS, np.float32)
    obs = np.zeros(g.obs_dim, np.float32)
    cpu, wall, decisions, sims = [], [], 0, 0
    for i in range(games):
        states, rngs = g.new_states(1)
        st, rng = states[0], rngs[0]
        E.reset_one(st, rng, g.cfg, g.spec, g.dice, game_seed(100 + i))
        me = i % n
        while st[E.S_DONE] == 0:
            seat = int(st[E.S_CUR])
            E.legal_mask(st, g.cfg, g.spec, g.dice, mask)
            if seat == me:
                c0, w0 = time.process_time(), time.perf_counter()
                a = searcher.act_from_state(st)
                c1, w1 = time.process_time(), time.perf_counter()
                info = searcher.last_search
                if info["simulations"]:
                    cpu.append(c1 - c0)
                    wall.append(w1 - w0)
                    decisions += info["decisions"]
                    sims += info["simulations"]
            else:
                observe_one(st, g.cfg, g.spec, g.obs_offsets, seat, obs)
                a = other.act(obs, mask.copy())
            E.step_one(st, rng, g.cfg, g.spec, g.dice, a, mask, rew)
    total = sum(cpu)
    return {
        "searches": len(cpu),
        "sim_decisions_per_cpu_s": decisions / total,
        "sims_per_cpu_s": sims / total,
        "decisions_per_sim": decisions / max(sims, 1),
        "ms_per_decision_cpu": 1000 * total / len(cpu),
        "ms_per_decision_cpu_p95": 1000 * float(np.percentile(cpu, 95)),
        "ms_per_decision_wall": 1000 * sum(wall) / len(wall),
    }


def our_rows(games: int, steps: int, load: tuple[float, float, float]) -> list[dict]:
    print(f"ismcts defaults: flat search with {DEFAULT_SIMS['flat']} samples (z={DEFAULT_Z:g}; "
          f"{DEFAULT_SIMS_CLASSIC_MANY} in classic at 4 players; at 2 players improving on the shipped ppo policy's "
          f"choice) in the card games and 2-player dice, tree search with {DEFAULT_SIMS['tree']} simulations in "
          f"4-player dice, rollout {DEFAULT_ROLLOUT}; "
          f"speeds per CPU second of one core; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on "
          f"{os.cpu_count()} CPUs")
    head = (f"{'game':<8}{'n':>3}{'search':>7}  {'plain random':>13}{'plain greedy':>13}{'plain heur.':>13}  "
            f"{'budget':>7}{'search dec/s':>13}{'sims/s':>9}{'dec/sim':>8}  {'ms/decision':>11}{'p95':>7}{'wall':>7}")
    print(head)
    print("-" * len(head))
    rows = []
    for name in GAMES:
        for n in (2, 4):
            g = Game(make_rules(name, n, None))
            plain = {p: plain_speed(g, i, steps) for i, p in enumerate(R.ROLLOUTS)}
            s = search_speed(g, games)
            mode = default_mode(g)
            sims = default_sims(g, mode)
            rows.append({"game": name, "num_players": n, "mode": mode, "sims": sims,
                         "plain_decisions_per_cpu_s": plain, **s})
            print(f"{name:<8}{n:>3}{mode:>7}  "
                  f"{plain['random']:>13,.0f}{plain['greedy']:>13,.0f}{plain['heuristic']:>13,.0f}  "
                  f"{sims:>7}{s['sim_decisions_per_cpu_s']:>13,.0f}{s['sims_per_cpu_s']:>9,.0f}"
                  f"{s['decisions_per_sim']:>8.1f}  "
                  f"{s['ms_per_decision_cpu']:>11.1f}{s['ms_per_decision_cpu_p95']:>7.1f}"
                  f"{s['ms_per_decision_wall']:>7.1f}", flush=True)
    return rows


def reference_rows(games: int, repeats: int, players: tuple[int, ...] = (2, 4),
                   sims: int = REFERENCE_SIMS) -> list[dict]:
    """The search beside OpenSpiel's MCTSBot, alternating, ``repeats`` times per player count (see the module's
    docstring). Raises ImportError when OpenSpiel is not installed."""
    rows = []
    for n in players:
        g = Game(make_rules("classic", n, None))
        theirs, ours = [], []
        horizon = None
        for _ in range(repeats):
            # the same games every repeat: the first repeat's playouts give the length for all
            theirs.append(_baselines.openspiel_crazy_eights_mcts(n, sims, games, seed=0,
                                                                 playouts=0 if theirs else 10))
            if horizon is None:
                horizon = max(1, round(theirs[0]["decisions_per_sim"]))
            ours.append(search_speed(g, games, RandomAgent, mode="tree", rollout="random", sims=sims,
                                     horizon=horizon))
        ratios = [a["sims_per_cpu_s"] / b["sims_per_cpu_s"] for a, b in zip(ours, theirs)]
        q1, _, q3 = statistics.quantiles(ratios, n=4, method="inclusive") if len(ratios) > 1 else ratios * 3
        ours_sims = statistics.median(r["sims_per_cpu_s"] for r in ours)
        theirs_sims = statistics.median(r["sims_per_cpu_s"] for r in theirs)
        rows.append({
            "num_players": n, "sims": sims, "horizon": horizon, "repeats": repeats, "games": games,
            "ours_sims_per_cpu_s": ours_sims, "ours_decisions_per_sim": ours[0]["decisions_per_sim"],
            "ours_ms_per_decision_cpu": statistics.median(r["ms_per_decision_cpu"] for r in ours),
            "theirs_sims_per_cpu_s": theirs_sims, "theirs_decisions_per_sim": theirs[0]["decisions_per_sim"],
            "theirs_ms_per_decision_cpu": statistics.median(r["ms_per_decision_cpu"] for r in theirs),
            "ratios": ratios, "ratio_median": statistics.median(ratios), "ratio_q1": q1, "ratio_q3": q3,
            "decisions_ratio": (ours_sims * ours[0]["decisions_per_sim"])
            / (theirs_sims * theirs[0]["decisions_per_sim"]),
        })
    return rows


def print_reference(rows: list[dict]) -> None:
    import pyspiel  # noqa: PLC0415 - only reached once the reference ran

    print(f"\nthe search beside OpenSpiel {getattr(pyspiel, '__version__', '')} crazy_eights C++ MCTSBot: UCT, "
          f"uniformly random rollouts, {REFERENCE_SIMS} simulations a decision, against uniformly random players; "
          "ours: classic, ismcts:mode=tree,rollout=random, rollouts cut at the reference's mean playout length "
          "(horizon), a deal sampled from the seat's information every simulation; OpenSpiel: the true state; "
          "medians over alternating repeats, per CPU second of one core")
    head = (f"{'players':>7}{'horizon':>8}  {'uno-env sims/s':>15}{'dec/sim':>8}{'ms/dec':>7}  "
            f"{'OpenSpiel sims/s':>17}{'dec/sim*':>9}{'ms/dec':>7}  {'ratio sims/s [q1, q3]':>22}{'dec/s':>7}")
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r['num_players']:>7}{r['horizon']:>8}  {r['ours_sims_per_cpu_s']:>15,.0f}"
              f"{r['ours_decisions_per_sim']:>8.1f}{r['ours_ms_per_decision_cpu']:>7.2f}  "
              f"{r['theirs_sims_per_cpu_s']:>17,.0f}{r['theirs_decisions_per_sim']:>9.1f}"
              f"{r['theirs_ms_per_decision_cpu']:>7.2f}  "
              f"{r['ratio_median']:>8.2f} [{r['ratio_q1']:.2f}, {r['ratio_q3']:.2f}]{r['decisions_ratio']:>7.2f}",
              flush=True)
    print("* the reference's decisions per simulation: the mean of uniformly random playouts from the positions "
          "it searched (its simulations are not instrumented)")


def ismcts_reference(args: argparse.Namespace, run: _baselines.Run) -> dict:
    """Speed and strength beside OpenSpiel's Python ISMCTSBot on 2-player UNO Dice (``_ismcts_openspiel``)."""
    sub = argparse.Namespace(game="dice", players=2, sims=100, c=0.7, speed_games=args.ismcts_speed_games,
                             games=args.ismcts_games, deal_base=0, workers=args.workers)
    s = _ismcts_openspiel.speed(sub)
    print(f"\nthe search beside OpenSpiel's Python ISMCTSBot, 2-player dice, {sub.sims} simulations a decision, "
          f"{s['decisions']} decisions: sims per CPU s ours {s['sims_per_s']['ours']:,.0f}, OpenSpiel "
          f"{s['sims_per_s']['openspiel']:,.0f}", flush=True)
    run.headline("search/ismcts_openspiel/speed", "search, simulations per CPU second, dice 2p, 100 simulations",
                 s["sims_per_s"]["ours"], s["sims_per_s"]["openspiel"], "OpenSpiel ISMCTSBot (Python)", "sims/CPU-s")
    out: dict = {"speed": s, "strength": []}
    for spec in ([] if args.ismcts_games == 0 else [_ismcts_openspiel.MATCHED, "ismcts"]):
        r = _ismcts_openspiel.strength(sub, spec)
        out["strength"].append(r)
        print(f"{spec} against OpenSpiel's ISMCTSBot, {r['games']} games of the duplicate arena: "
              f"{100 * r['win_rate']:.1f}% [{100 * r['ci95_low']:.1f}, {100 * r['ci95_high']:.1f}]", flush=True)
        run.headline(f"search/ismcts_openspiel/strength/{spec}",
                     f"search strength, {spec} vs OpenSpiel ISMCTSBot, dice 2p, {r['games']} games (win rate)",
                     100 * r["win_rate"], None, "OpenSpiel ISMCTSBot (Python)", "%",
                     interval=[100 * r["ci95_low"], 100 * r["ci95_high"]])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="1 game a config, 200,000 plain decisions, 3 reference repeats, 20 games against ISMCTSBot")
    ap.add_argument("--games", type=int, default=None, help="games of ismcts vs heuristic per config (default 3)")
    ap.add_argument("--steps", type=int, default=None, help="decisions per plain-simulator measurement")
    ap.add_argument("--reference-games", type=int, default=None,
                    help="games per repeat of the search beside OpenSpiel's MCTSBot (default 3)")
    ap.add_argument("--reference-repeats", type=int, default=None, help="alternating repeats of that (default 5)")
    ap.add_argument("--ismcts-speed-games", type=int, default=None,
                    help="greedy games whose decisions both searches time beside OpenSpiel's ISMCTSBot (default 3)")
    ap.add_argument("--ismcts-games", type=int, default=None,
                    help="games of each match against OpenSpiel's ISMCTSBot, even (default 100; 0: none)")
    ap.add_argument("--workers", type=int, default=2, help="processes of those matches")
    ap.add_argument("--only", choices=("ours", "reference", "ismcts"), default=None,
                    help="run only our searches' table, the MCTSBot comparison or the ISMCTSBot one")
    ap.add_argument("--json", type=Path, default=None, help="write here instead of benchmarks/results/")
    args = ap.parse_args(argv)
    for name, full, quick in (("games", 3, 1), ("steps", 2_000_000, 200_000), ("reference_games", 3, 2),
                              ("reference_repeats", 5, 3), ("ismcts_speed_games", 3, 1), ("ismcts_games", 100, 20)):
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
    for name in ("games", "steps", "reference_games", "reference_repeats", "ismcts_speed_games", "workers"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.ismcts_games < 0 or args.ismcts_games % 2:
        ap.error("--ismcts-games must be an even number (every deal is played twice), 0 for none")
    run = _baselines.Run("bench_search", argv, args.quick)
    load = os.getloadavg()
    rows: list[dict] = []
    if args.only in (None, "ours"):
        rows = our_rows(args.games, args.steps, load)
    reference: list[dict] | None = None
    ismcts: dict | None = None
    if args.only in (None, "reference"):
        try:
            reference = reference_rows(args.reference_games, args.reference_repeats)
        except ImportError as exc:
            print(f"\nthe search beside OpenSpiel: n/a ({exc})")
        else:
            print_reference(reference)
            for r in reference:
                run.headline(f"search/mcts/{r['num_players']}p",
                             f"search, simulations per CPU second, tree search {r['num_players']}p, random rollouts",
                             r["ours_sims_per_cpu_s"], r["theirs_sims_per_cpu_s"], "OpenSpiel MCTSBot (C++)",
                             "sims/CPU-s", spread=[r["ratio_q1"], r["ratio_median"], r["ratio_q3"]])
    if args.only in (None, "ismcts"):
        try:
            import pyspiel  # noqa: F401
        except ImportError as exc:
            print(f"\nthe search beside OpenSpiel's ISMCTSBot: n/a ({exc})")
        else:
            ismcts = ismcts_reference(args, run)
    run.details = {"default_sims": DEFAULT_SIMS, "default_sims_classic_many": DEFAULT_SIMS_CLASSIC_MANY,
                   "default_rollout": DEFAULT_ROLLOUT, "default_z": DEFAULT_Z, "rows": rows,
                   "openspiel_mcts": reference, "openspiel_ismcts": ismcts}
    run.write(args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
