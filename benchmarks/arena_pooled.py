"""Pool arena runs of one lineup played with different seeds into one row: the first agent's wins over all games,
its Wilson interval, and whether the interval clears the even share (its seats a game / players).

A long matchup of a slow agent is played as several seeded runs (``uno-env evaluate ... --seed S --json F``) so
that each finished run is kept if a later one is stopped; different seeds deal different games, so their games
add up.  Every file must hold the same game, player count, rules and lineup.

    python benchmarks/arena_pooled.py benchmarks/results/arena/ismcts_1v3/classic_4p_seed*.json
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from uno_env.training.evaluate import wilson_interval


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
    lo, hi = wilson_interval(wins, games)
    # at 4 players a two-agent lineup gives each agent two seats a game: its even share is 2 / 4
    share = first["agents"][0].get("seats_per_game", 1.0) / first["num_players"]
    verdict = "above" if lo > share else "below" if hi < share else "not clear of"
    return {"game": first["game"], "num_players": first["num_players"], "lineup": key[3], "seeds": sorted(seeds),
            "games": games, "wins": wins, "win_rate": wins / games, "ci95_low": lo, "ci95_high": hi,
            "other_seats_win_rate": [w / games for w in others], "even_share": share, "verdict": verdict}


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
          f"{100 * row['even_share']:.0f}% (the other seats: {others})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
