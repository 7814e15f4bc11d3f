"""The ladder: every baseline against every other, per game (2 players), OpenSkill ratings and head-to-head intervals.

Each pair plays ``--games`` seeded games with :func:`uno_env.training.evaluate.run_arena`, as duplicate deals (every
deal played once with each seating, the interval over deals, which the luck of the cards leaves narrower for close
agents; ``--no-duplicate``: seats rotated, Wilson's interval over games); the results are saved as JSON
(``benchmarks/results/ladder/<game>_2p.json``), from which the ratings are computed: OpenSkill's
Plackett-Luce model updated game by game, the pairs' games interleaved in a fixed order, so the same JSON always
gives the same table.  ``--write-docs`` puts the tables between the ladder markers of docs/arena.md.

    python benchmarks/ladder.py                        # play what is missing, print the tables
    python benchmarks/ladder.py --read-only --write-docs
    python benchmarks/ladder.py --games 20000 --agents random greedy heuristic ppo --replay
    python benchmarks/ladder.py --games 10000 --replay-agent ismcts   # only ismcts's pairs, with other games
"""
from __future__ import annotations

import argparse
import itertools
import json
from collections import Counter
from pathlib import Path
from typing import Any

from uno_env.agents.registry import BASELINES
from uno_env.training.evaluate import duplicate_interval, run_arena, wilson_interval

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "ladder"
GAMES = ("classic", "pocket", "dice")
START, END = "<!-- ladder:start -->", "<!-- ladder:end -->"


def available(game: str, agents: list[str]) -> list[str]:
    """The agents that can play ``game`` with 2 players (``ppo`` needs a shipped policy for it)."""
    from uno_env.agents.registry import UnknownAgentError, load_agent

    out = []
    for a in agents:
        try:
            load_agent(a, game, seed=0)
        except UnknownAgentError as e:
            print(f"{game}: leaving out {a}: {e}")
            continue
        out.append(a)
    return out


def play(game: str, agents: list[str], games: int, seed: int, workers: int, replay: bool,
         replay_agent: str | None = None, duplicate: bool = True) -> dict:
    """Every pair's head-to-head, cached in the game's JSON: only the pairs it does not hold are played, with
    ``games`` games (a saved pair stays as it was played, whatever its number of games and kind of arena; ``replay``
    plays every pair again).  With ``replay_agent``, that agent's pairs are played again with ``games`` games and
    the other pairs kept as saved (a new policy, or more games to separate two close agents).  ``duplicate``:
    duplicate deals (``run_arena(duplicate=True)``), saved with the deals and the standard deviation of each side's
    deal scores, from which :func:`table` gives the interval."""
    agents = available(game, agents)
    path = OUT / f"{game}_2p.json"
    data: dict[str, Any] = {"game": game, "num_players": 2, "pairs": []}
    if path.exists() and not replay:
        data = json.loads(path.read_text())
    if replay_agent is None:
        have = {(p["a"], p["b"]) for p in data["pairs"]}
    else:
        have = {(p["a"], p["b"]) for p in data["pairs"] if replay_agent not in (p["a"], p["b"])}
    data["pairs"] = [p for p in data["pairs"] if (p["a"], p["b"]) in have]
    for a, b in itertools.combinations(agents, 2):
        if (a, b) in have:
            continue
        res = run_arena([a, b], game=game, num_players=2, games=games, seed=seed, workers=workers, ratings=False,
                        duplicate=duplicate)
        first, second = res.agents
        pair = {"a": a, "b": b, "games": games, "seed": seed, "wins_a": first.wins, "wins_b": second.wins,
                "truncated": res.truncated}
        if duplicate:
            pair.update(duplicate=True, deals=first.deals, deal_sd_a=first.deal_sd, deal_sd_b=second.deal_sd)
        data["pairs"].append(pair)
        print(f"{game}: {a} vs {b}: {first.wins}/{games}", flush=True)
        OUT.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2) + "\n")
    data["pairs"] = [p for p in data["pairs"] if p["a"] in agents and p["b"] in agents]
    return data


def _spread(wins_a: int, wins_b: int) -> list[int]:
    """A pair's results in rating order (0: a won, 1: b won; truncated games rate nobody): the rarer result at the
    middle of equal stretches of the more common one.

    The rating is updated game by game and its early games, rated while the uncertainty is large, move it most: a
    fixed shuffle that happened to put the weaker side's rare win first cost the stronger agent two rating places
    (``ismcts``'s first game against ``random`` was one of random's 12 wins in 1,000), and which of the two was
    listed first decided it.  Spread this way, the order is the same whichever side is ``a``.
    """
    n = wins_a + wins_b
    rare, common = (0, 1) if wins_a <= wins_b else (1, 0)
    k = min(wins_a, wins_b)
    out = [common] * n
    for j in range(k):
        out[(2 * j + 1) * n // (2 * k)] = rare
    return out


def ratings(data: dict) -> dict[str, tuple[float, float]]:
    """OpenSkill (Plackett-Luce) mu and sigma per agent from the pairs' results, game by game, interleaved."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    names = sorted({p["a"] for p in data["pairs"]} | {p["b"] for p in data["pairs"]})
    r = {n: model.rating(name=n) for n in names}
    # each pair's games as a sequence of results, pairs interleaved
    seqs = [(p["a"], p["b"], _spread(p["wins_a"], p["wins_b"])) for p in data["pairs"]]
    for i in range(max((len(s[2]) for s in seqs), default=0)):
        for a, b, res in seqs:
            if i < len(res):
                new = model.rate([[r[a]], [r[b]]], ranks=[res[i], 1 - res[i]])
                r[a], r[b] = new[0][0], new[1][0]
    return {n: (float(x.mu), float(x.sigma)) for n, x in r.items()}


def _pairs_named(pairs: list[dict], every: list[dict]) -> str:
    """``pairs`` (some of ``every``) in words: "x's pairs" when they are all of one agent's pairs, else each pair."""
    names = {p["a"] for p in every} | {p["b"] for p in every}
    for n in sorted(names):
        if len(pairs) > 1 and [p for p in every if n in (p["a"], p["b"])] == pairs:
            return f"{n}'s pairs"
    return ", ".join(f"{p['a']} vs {p['b']}" for p in pairs)


def _heading(data: dict) -> str:
    """The table's heading: the usual number of games per pair, the pairs that played another, and the arena."""
    every = data["pairs"]
    usual = Counter(p["games"] for p in every).most_common(1)[0][0]
    sizes = f"{usual:,} games per pair"
    for n in sorted({p["games"] for p in every} - {usual}):
        sizes += f", {_pairs_named([p for p in every if p['games'] == n], every)} {n:,}"
    plain = [p for p in every if not p.get("duplicate")]
    if not plain:
        kind = "duplicate deals"
    elif len(plain) == len(every):
        kind = "seats rotated"
    else:
        kind = f"duplicate deals, seats rotated for {_pairs_named(plain, every)}"
    return f"**{data['game']}, 2 players** ({sizes}, {kind})"


def _cell(pair: dict, side: str) -> str:
    """A side (``"a"`` or ``"b"``) of a pair as a table cell: its win rate and 95% interval, over deals for a
    duplicate pair, else Wilson's over games."""
    wins, games = pair[f"wins_{side}"], pair["games"]
    if pair.get("duplicate"):
        lo, hi = duplicate_interval(wins / games, pair[f"deal_sd_{side}"], pair["deals"])
    else:
        lo, hi = wilson_interval(wins, games)
    return f"{100 * wins / games:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def table(data: dict) -> str:
    rt = ratings(data)
    order = sorted(rt, key=lambda n: -(rt[n][0] - 3 * rt[n][1]))
    lines = [_heading(data), "",
             "| rank | agent | OpenSkill mu | sigma | ordinal (mu - 3 sigma) |", "|---:|---|---:|---:|---:|"]
    for i, n in enumerate(order, 1):
        mu, sigma = rt[n]
        lines.append(f"| {i} | {n} | {mu:.2f} | {sigma:.2f} | {mu - 3 * sigma:.2f} |")
    lines += ["", "| row vs column: win rate [95% CI] | " + " | ".join(order) + " |", "|---|" + "---|" * len(order)]
    by = {}
    for p in data["pairs"]:
        by[(p["a"], p["b"])] = _cell(p, "a")
        by[(p["b"], p["a"])] = _cell(p, "b")
    for a in order:
        lines.append(f"| **{a}** | " + " | ".join("" if a == b else by[(a, b)] for b in order) + " |")
    return "\n".join(lines) + "\n"


PAGE = ROOT / "docs" / "arena.md"


def write_docs(text: str) -> None:
    s = PAGE.read_text()
    if START not in s or END not in s:
        raise SystemExit(f"{PAGE.relative_to(ROOT)} has no {START} ... {END} markers")
    a, b = s.index(START) + len(START), s.index(END)
    PAGE.write_text(s[:a] + "\n" + text + s[b:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default_agents = ["random", "greedy", "heuristic", "ppo"] + (["ismcts"] if "ismcts" in BASELINES else [])
    ap.add_argument("--agents", nargs="+", default=default_agents)
    ap.add_argument("--games-per-pair", "--games", dest="games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--only", nargs="+", choices=GAMES, default=list(GAMES))
    ap.add_argument("--read-only", action="store_true", help="only read the saved JSON (play nothing)")
    ap.add_argument("--replay", action="store_true", help="play every pair again")
    ap.add_argument("--replay-agent", default=None, metavar="AGENT",
                    help="play this agent's pairs again with --games games, keep the other pairs as saved")
    ap.add_argument("--duplicate", action=argparse.BooleanOptionalAction, default=True,
                    help="duplicate deals: every deal played once with each seating, the interval over deals "
                         "(default; --no-duplicate: seats rotated, Wilson's interval over games)")
    ap.add_argument("--write-docs", action="store_true", help="write the tables into docs/arena.md")
    args = ap.parse_args()
    parts = []
    for game in args.only:
        if args.read_only:
            path = OUT / f"{game}_2p.json"
            if not path.exists():
                continue
            data = json.loads(path.read_text())
        else:
            data = play(game, args.agents, args.games, args.seed, args.workers, args.replay, args.replay_agent,
                        args.duplicate)
        parts.append(table(data))
    text = "\n".join(parts)
    print(text)
    if args.write_docs:
        cmd = "python benchmarks/ladder.py --read-only --write-docs"
        # the games per pair are in each table's heading (a replayed agent's pairs may have more)
        write_docs(text + f"\nGenerated by `{cmd}` from `benchmarks/results/ladder/*.json` (played with "
                     f"`python benchmarks/ladder.py --games N`, an agent's pairs replayed with `--replay-agent`).\n")


if __name__ == "__main__":
    main()
