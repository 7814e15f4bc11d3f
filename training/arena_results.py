"""The arena's result tables: each agent's totals (:class:`AgentStats`), the run's (:class:`ArenaResult`), how they
are counted from the game records (:func:`tally`) and printed (:func:`format_table`).

An agent with several seats wins a game when one of its seats wins; a truncated game (``max_turns``) is a win for
nobody and is counted in its own column.  Game length counts decisions.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .arena_duplicate import deal_scores
from .intervals import Z95, duplicate_interval, wilson_interval

__all__ = ["AgentStats", "ArenaResult", "tally", "format_table"]


@dataclass
class AgentStats:
    """One agent's totals in an arena run: games, wins, points, lengths and, with ratings, its OpenSkill rating."""
    name: str
    games: int = 0
    wins: int = 0
    truncated: int = 0
    points: int = 0
    length: int = 0
    seats: int = 0
    rating_mu: float | None = None
    rating_sigma: float | None = None
    deals: int = 0  # duplicate arena: the deals played, and the standard deviation of the agent's deal scores
    deal_sd: float | None = None

    @property
    def win_rate(self) -> float:
        """Wins per game played."""
        return self.wins / self.games if self.games else 0.0

    @property
    def ci(self) -> tuple[float, float]:
        """The 95% interval of the win rate (:meth:`interval`)."""
        return self.interval()

    def interval(self, z: float = Z95) -> tuple[float, float]:
        """The interval of the win rate: over deals in a duplicate arena (:func:`duplicate_interval`; the win rate
        is the mean deal score there), else Wilson's over games."""
        if self.deal_sd is not None:
            return duplicate_interval(self.win_rate, self.deal_sd, self.deals, z)
        return wilson_interval(self.wins, self.games, z)

    @property
    def mean_points(self) -> float:
        """Round points scored per game."""
        return self.points / self.games if self.games else 0.0

    @property
    def mean_length(self) -> float:
        """Mean game length in decisions."""
        return self.length / self.games if self.games else 0.0

    @property
    def rating_ordinal(self) -> float | None:
        """The conservative OpenSkill rating ``mu - 3 sigma``, or None without ratings."""
        if self.rating_mu is None or self.rating_sigma is None:
            return None
        return self.rating_mu - 3.0 * self.rating_sigma

    def to_dict(self) -> dict[str, Any]:
        """The statistics as plain data (JSON output of ``uno-env evaluate``)."""
        lo, hi = self.ci
        d = {
            "agent": self.name,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "ci95_low": lo,
            "ci95_high": hi,
            "mean_points": self.mean_points,
            "mean_length": self.mean_length,
            "truncated": self.truncated,
            "seats_per_game": self.seats / self.games if self.games else 0.0,
            "interval": "over deals" if self.deal_sd is not None else "wilson",
        }
        if self.deal_sd is not None:
            d.update(deals=self.deals, deal_score_sd=self.deal_sd)
        if self.rating_mu is not None:
            d.update(rating_mu=self.rating_mu, rating_sigma=self.rating_sigma, rating_ordinal=self.rating_ordinal)
        return d


@dataclass
class ArenaResult:
    """The result of :func:`~uno_env.training.arena.run_arena`: the settings of the run and one
    :class:`AgentStats` per agent.  ``ratings_skipped``: why a pool that is rated by default was not (OpenSkill is
    not installed), else None."""
    game: str
    num_players: int
    games: int
    seed: int
    rules: dict[str, Any]
    agents: list[AgentStats]
    truncated: int
    mean_length: float
    cycle_length: int
    seat_wins: list[int] = field(default_factory=list)
    duplicate: bool = False
    ratings_skipped: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data (what ``uno-env evaluate --json`` writes)."""
        out = {
            "game": self.game,
            "num_players": self.num_players,
            "games": self.games,
            "seed": self.seed,
            "rules": self.rules,
            "truncated_games": self.truncated,
            "mean_length": self.mean_length,
            "rotation_cycle": self.cycle_length,
            "duplicate": self.duplicate,
            "seat_wins": self.seat_wins,
            "agents": [a.to_dict() for a in self.agents],
        }
        if self.ratings_skipped is not None:
            out["ratings_skipped"] = self.ratings_skipped
        return out


@dataclass
class Tally:
    """What :func:`tally` counts over the records: per agent, and for the table as a whole."""
    agents: list[AgentStats]
    seat_wins: list[int]
    truncated: int = 0
    total_length: int = 0


def tally(records: Sequence[tuple[int, dict[str, Any]]], cycle: Sequence[tuple[int, ...]], labels: Sequence[str],
          num_players: int, duplicate: bool = False) -> Tally:
    """Each agent's totals over ``records`` (``(game index, record)`` in index order), the wins by seat, the
    truncated games and the summed length; in a duplicate arena each agent's deal scores too."""
    out = Tally([AgentStats(name=lab) for lab in labels], [0] * num_players)
    for i, rec in records:
        lineup = cycle[i % len(cycle)]
        out.total_length += rec["length"]
        if rec["truncated"]:
            out.truncated += 1
        else:
            out.seat_wins[rec["winner"]] += 1
        for a in set(lineup):
            _count_game(out.agents[a], rec, [seat for seat, who in enumerate(lineup) if who == a])
    if duplicate:
        deals, sds = deal_scores(records, cycle, len(labels))
        for s, sd in zip(out.agents, sds):
            s.deals, s.deal_sd = deals, sd
    return out


def _count_game(s: AgentStats, rec: dict[str, Any], seats: list[int]) -> None:
    """Add one game, in which the agent held ``seats``, to its totals."""
    s.games += 1
    s.length += rec["length"]
    s.seats += len(seats)
    s.points += sum(rec["scores"][seat] for seat in seats)
    if rec["truncated"]:
        s.truncated += 1
    elif rec["winner"] in seats:
        s.wins += 1


def format_table(result: ArenaResult) -> str:
    """The arena table as plain text."""
    rated = any(a.rating_mu is not None for a in result.agents)
    width = max([len("agent")] + [len(a.name) for a in result.agents])
    head = (f"{'agent':<{width}}  {'games':>7}  {'wins':>7}  {'win rate':>8}  {'95% CI':>17}  "
            f"{'points/game':>11}  {'length':>8}  {'truncated':>9}")
    if rated:
        head += f"  {'rating (mu +- sigma)':>21}"
    lines = [
        f"uno-env evaluate: {result.game}, {result.num_players} players, {result.games} games, seed {result.seed}",
        head,
        "-" * len(head),
    ]
    for a in result.agents:
        lo, hi = a.ci
        row = (f"{a.name:<{width}}  {a.games:>7}  {a.wins:>7}  {a.win_rate:>8.1%}  "
               f"{'[' + format(lo, '.1%') + ', ' + format(hi, '.1%') + ']':>17}  "
               f"{a.mean_points:>11.1f}  {a.mean_length:>8.1f}  {a.truncated:>9}")
        if rated:
            row += f"  {a.rating_mu:>10.2f} +- {a.rating_sigma:<6.2f}"
        lines.append(row)
    lines.append(f"truncated games: {result.truncated} of {result.games}; mean length {result.mean_length:.1f} "
                 f"decisions; wins by seat: {result.seat_wins}")
    if result.duplicate:
        deals = result.agents[0].deals
        lines.append(f"duplicate: {deals} deals, each played with all {result.games // max(deals, 1)} block orders; "
                     f"intervals over deals")
    if result.games % result.cycle_length:
        lines.append(f"note: {result.games} is not a multiple of the seat-rotation cycle ({result.cycle_length}); "
                     f"seats are balanced only up to one partial cycle")
    if result.ratings_skipped is not None:
        lines.append(f"ratings skipped: {result.ratings_skipped}")
    return "\n".join(lines)
