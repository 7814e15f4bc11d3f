"""Pool arena runs of one lineup played with different seeds into one row: the first agent's wins over all games,
its Wilson interval, and whether the interval clears the even share (its seats a game / players).

A long matchup of a slow agent is played as several seeded runs (``uno-env evaluate ... --seed S --json F``) so
that each finished run is kept if a later one is stopped; different seeds deal different games, so their games
add up.  Every file must hold the same game, player count, rules and lineup.  Runs of the duplicate arena
(``--duplicate``: rows whose ``interval`` is "over deals") are pooled over their deals, as the arena computes its own
interval: the deal scores' mean and sample standard deviation are rebuilt from each run's (``deals``,
``deal_score_sd``), so the pooled interval is the one a single run of all those deals would give.  Plain and
duplicate runs do not mix.

    python benchmarks/arena_pooled.py benchmarks/results/arena/ismcts_1v3/classic_4p_seed*.json
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from uno_env.training.evaluate import duplicate_interval, wilson_interval


def pool(paths: list[Path]) -> dict:
    runs = [json.loads(p.read_text()) for p in paths]
    first = runs[0]
    key = (first["game"], first["num_players"], first["rules"], [a["agent"] for a in first["agents"]])
    seeds = []
    for path, run in zip(paths, runs):
        if (run["game"], run["num_players"], run["rules"], [a["agent"] for a in run["agents"]]) != key:
            raise ValueError(f"{path}: another game, rules or lineup than {paths[0]}")
        seeds.append(run["seed"])
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"a seed appears twice ({sorted(seeds)}): the same games would be counted twice")
    games = sum(r["games"] for r in runs)
    wins = sum(r["agents"][0]["wins"] for r in runs)
    others = [sum(r["agents"][i]["wins"] for r in runs) for i in range(1, len(first["agents"]))]
    over_deals = [r["agents"][0].get("interval") == "over deals" for r in runs]
    if any(over_deals) and not all(over_deals):
        raise ValueError("plain and duplicate-arena runs mixed: their intervals cannot be pooled")
    if all(over_deals):
        lo, hi = _pooled_over_deals([r["agents"][0] for r in runs])
        interval = "over deals"
    else:
        lo, hi = wilson_interval(wins, games)
        interval = "wilson"
    # at 4 players a two-agent lineup gives each agent two seats a game: its even share is 2 / 4
    share = first["agents"][0].get("seats_per_game", 1.0) / first["num_players"]
    verdict = "above" if lo > share else "below" if hi < share else "not clear of"
    return {"game": first["game"], "num_players": first["num_players"], "lineup": key[3], "seeds": sorted(seeds),
            "games": games, "wins": wins, "win_rate": wins / games, "ci95_low": lo, "ci95_high": hi,
            "other_seats_win_rate": [w / games for w in others], "even_share": share, "verdict": verdict,
            "interval": interval}


def _pooled_over_deals(rows: list[dict]) -> tuple[float, float]:
    """The duplicate interval of all the runs' deals together.  A run's win rate is its deal scores' mean (every
    deal is played the same number of times), so the pooled sum of squares is each run's within-run part,
    ``(deals - 1) * sd**2``, plus its mean's distance from the pooled mean."""
    deals = [int(r["deals"]) for r in rows]
    means = [float(r["win_rate"]) for r in rows]
    total = sum(deals)
    mean = sum(d * m for d, m in zip(deals, means)) / total
    squares = sum((d - 1) * float(r["deal_score_sd"]) ** 2 + d * (m - mean) ** 2
                  for d, m, r in zip(deals, means, rows))
    sd = (squares / (total - 1)) ** 0.5 if total > 1 else 0.0
    return duplicate_interval(mean, sd, total)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().split("\n\n")[-1].strip())
        return 2
    try:
        row = pool([Path(a) for a in argv])
    except (OSError, ValueError, KeyError, IndexError) as exc:
        print(f"arena_pooled: {exc}", file=sys.stderr)
        return 2
    others = ", ".join(f"{100 * r:.1f}%" for r in row["other_seats_win_rate"])
    print(f"{row['game']}, {row['num_players']} players, {' / '.join(row['lineup'])}, seeds {row['seeds']}: "
          f"{row['lineup'][0]} won {row['wins']} of {row['games']} games, {100 * row['win_rate']:.1f}% "
          f"[{100 * row['ci95_low']:.1f}, {100 * row['ci95_high']:.1f}], {row['verdict']} the even share of "
          f"{100 * row['even_share']:.0f}% (the other seats: {others}; interval {row['interval']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
