"""How much a flat-search variant gains over the heuristic per decision, under the search's own model, without
playing an arena: cheaper and far less noisy than win rates when the gain is a point or two.

1. ``--games`` games of ``heuristic`` at every seat are played (seeds 500..); at every decision of one probe seat
   (rotating with the game) that has a choice, a large flat search (``--oracle-sims`` samples, no pruning, rounds
   played out) estimates every legal action's paired gain in the seat's own win over the heuristic's choice: the
   model's truth (the heuristic playing every seat from deals drawn from what the seat knows).
2. Every variant named (``ismcts`` arguments, e.g. ``horizon=20,sims=300``) then decides on each saved state, with
   two search seeds; printed: the truth's gain summed over the states where it left the heuristic's choice (per
   seed, so per ``--games`` games of one seat), its departures (and how many of them the truth scores below 0),
   and its CPU time per decision.

The gain is under the model, not against real opponents (the arena measures that), and the truth's own noise
(one standard error about 0.015 a state at 2,000 samples) is shared by every variant.

    python benchmarks/search_oracle.py --game classic --players 4 --games 40 --oracle-sims 2000 \
        [--truth classic4.npz] horizon=0 horizon=20 horizon=20,sims=300

The truth is most of the run's time; ``--truth FILE.npz`` keeps it (pickle-free) so that later variants are scored
against the same one.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from uno_env.agents.heuristic import HeuristicAgent
from uno_env.agents.ismcts import ISMCTSAgent
from uno_env.agents.registry import parse_agent_spec
from uno_env.config import make_rules
from uno_env.core import engine as E
from uno_env.core.game import Game
from uno_env.core.layout import MAX_PLAYERS
from uno_env.core.observe import observe_one
from uno_env.vector import game_seed


def truth(g: Game, games: int, sims: int):
    """The probe seat's decision states and each legal action's paired gain (and its standard error) over the
    heuristic's choice, from a ``sims``-sample flat search with the rounds played out."""
    oracle = ISMCTSAgent(g, seed=12345, sims=sims, prune=0, z=0, horizon=0)
    heuristic = HeuristicAgent(g, seed=0)
    mask = np.zeros(g.num_actions, np.int8)
    rew = np.zeros(MAX_PLAYERS, np.float32)
    obs = np.zeros(g.obs_dim, np.float32)
    states, gains, errors, bases = [], [], [], []
    for i in range(games):
        rows, rngs = g.new_states(1)
        st, rng = rows[0], rngs[0]
        E.reset_one(st, rng, g.cfg, g.spec, g.dice, game_seed(500 + i))
        me = i % g.num_players
        while st[E.S_DONE] == 0:
            seat = int(st[E.S_CUR])
            E.legal_mask(st, g.cfg, g.spec, g.dice, mask)
            observe_one(st, g.cfg, g.spec, g.obs_offsets, seat, obs)
            a = heuristic.act(obs, mask.copy())
            if seat == me and mask.sum() > 1:
                oracle.act_from_state(st)
                base = oracle.last_search["base"]
                gain = np.full(g.num_actions, np.nan)
                err = np.full(g.num_actions, np.nan)
                for b in np.flatnonzero(mask):
                    gain[b], err[b], _ = oracle._paired(int(b), base)
                states.append(st.copy())
                gains.append(gain)
                errors.append(err)
                bases.append(base)
            E.step_one(st, rng, g.cfg, g.spec, g.dice, a, mask, rew)
    return np.array(states), np.array(gains), np.array(errors), np.array(bases)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="classic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--oracle-sims", type=int, default=2000)
    ap.add_argument("--truth", metavar="FILE.npz",
                    help="keep the truth in this file: read it when it exists (made with the same game, players, "
                         "games and oracle sims), else compute it and write it, so that variants can be scored later "
                         "without recomputing it")
    ap.add_argument("variants", nargs="*", help="ismcts arguments, e.g. horizon=20,sims=300")
    args = ap.parse_args()
    g = Game(make_rules(args.game, args.players, None))
    load = os.getloadavg()
    key = np.array([args.players, args.games, args.oracle_sims], dtype=np.int64)
    if args.truth and os.path.exists(args.truth):
        with np.load(args.truth, allow_pickle=False) as f:
            if str(f["game"]) != args.game or not np.array_equal(f["key"], key):
                ap.error(f"{args.truth} holds the truth of another game, player count, --games or --oracle-sims")
            X, G, SE, B = f["states"], f["gains"], f["errors"], f["bases"]
    else:
        X, G, SE, B = truth(g, args.games, args.oracle_sims)
        if args.truth:
            np.savez(args.truth, game=np.array(args.game), key=key, states=X, gains=G, errors=SE, bases=B)
    found = np.nansum(np.where(G > 2 * SE, G, 0.0), axis=1)
    print(f"{args.game}, {args.players} players, {args.games} games, truth {args.oracle_sims} samples; load average "
          f"{load[0]:.2f}; {len(X)} decisions with a choice; gain over 2 standard errors at {int((found > 0).sum())} "
          f"of them, summed {found.sum():.3f}")
    for variant in args.variants:
        _, kwargs = parse_agent_spec(f"ismcts:{variant}")
        gain, departures, worse, cpu = 0.0, 0, 0, 0.0
        for seed in (1, 2):
            agent = ISMCTSAgent(g, seed=seed, **kwargs)
            for i in range(len(X)):
                c0 = time.process_time()
                a = agent.act_from_state(X[i])
                cpu += time.process_time() - c0
                if a != B[i]:
                    departures += 1
                    gain += G[i, a]
                    worse += int(G[i, a] < 0)
        print(f"{variant:>24}: gain {gain / 2:.3f} per seed, departures {departures / 2:.1f} (scored below 0: "
              f"{worse / 2:.1f}), {1000 * cpu / (2 * len(X)):.1f} ms CPU a decision", flush=True)


if __name__ == "__main__":
    main()
