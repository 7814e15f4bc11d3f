"""Where a stronger player departs from the heuristic: the flat search (agent ``ismcts:prior=rollout``) plays one seat
against the heuristic, and on each of its decisions with a choice the heuristic's own choice on the same observation is
logged.  Printed: how often they differ, by the heuristic's action section (plays split into number / action /
wild / wild draw four cards), the (heuristic -> search) section pairs, and examples.  This is what a learned
policy would have to find to beat the heuristic (docs: Training).

    python benchmarks/search_departures.py [--game classic] [--players 2] [--games 150] [--sims 100]
"""
from __future__ import annotations

import argparse
import collections
import importlib
import time

from uno_env import GAMES
from uno_env.agents.registry import load_agent
from uno_env.core.actions import section_of


def _kind(name: str) -> str:
    if "draw four" in name:
        return "wd4"
    if "wild" in name:
        return "wild"
    if any(w in name for w in ("skip", "reverse", "draw two")):
        return "action"
    return "number"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="classic", choices=sorted(GAMES))
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=150)
    ap.add_argument("--sims", type=int, default=100)
    args = ap.parse_args()
    env = importlib.import_module(f"uno_env.{args.game}_v0").env(num_players=args.players)
    env.reset(seed=0)
    u = env.unwrapped
    g = u.game
    names = list(g.action_names)

    def section(a: int) -> str:
        s = section_of(int(a), g.num_kinds, g.num_dice)[0]
        return f"{s}:{_kind(names[a])}" if s.startswith("play") and not s.startswith("play_die") else s

    # improving on the heuristic (not on the shipped policy, the 2-player default): its departures are the point
    search = load_agent(f"ismcts:sims={args.sims},prior=rollout", g, seed=1)
    heuristic = load_agent("heuristic", g, seed=0)
    total: collections.Counter = collections.Counter()
    pairs: collections.Counter = collections.Counter()
    examples: list[tuple[str, str]] = []
    wins, t0 = 0, time.time()
    for i in range(args.games):
        env.reset(seed=i)
        me = env.possible_agents[i % args.players]
        for agent in env.agent_iter():
            obs, rew, term, trunc, _ = env.last()
            if term or trunc:
                wins += int(agent == me and rew > 0)
                env.step(None)
                continue
            mask = obs["action_mask"]
            h = heuristic.act(obs["observation"], mask)
            a = h
            if agent == me:
                a = search.act_from_state(u.game_view.row)
                if mask.sum() > 1:
                    total[section(h)] += 1
                    if a != h:
                        pairs[(section(h), section(a))] += 1
                        if len(examples) < 25:
                            examples.append((names[h], names[a]))
            env.step(a)
    n, d = sum(total.values()), sum(pairs.values())
    print(f"{args.game}, {args.players} players: ismcts:sims={args.sims} won {wins} of {args.games} games against "
          f"the heuristic ({time.time() - t0:.0f} s)")
    print(f"decisions with a choice: {n}; the search departs from the heuristic on {d} ({d / max(n, 1):.1%})")
    print("\nheuristic's choice      decisions  departures")
    for s, k in total.most_common():
        dep = sum(v for (hs, _), v in pairs.items() if hs == s)
        print(f"  {s:20s} {k:10d}  {dep / k:9.1%}")
    print("\nheuristic -> search      departures")
    for (hs, ss), v in pairs.most_common(15):
        print(f"  {hs:16s} -> {ss:16s} {v}")
    print("\nexamples (heuristic -> search):")
    for h_name, s_name in examples:
        print(f"  {h_name} -> {s_name}")


if __name__ == "__main__":
    main()
