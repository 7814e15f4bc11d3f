"""The standard protocol of ``uno-env benchmark`` and the leaderboard: which tables, which agents, which deals.

* **Tables**: classic, pocket and dice at 2 and 4 players under the standard rules, and 2-player classic under the
  ``rlcard`` preset (:data:`TABLES`).
* **The ladder** of a table (:func:`ladder_agents`): ``random``, ``greedy``, ``heuristic``, ``rlcard-rule`` (rlcard
  preset only), each family of shipped policies with a policy trained under exactly the table's rules
  (``distilled+heuristic``), and ``ismcts`` at its defaults.
* **Pairs**: a candidate plays each ladder agent (itself excepted) in a duplicate arena of the two
  (:func:`~uno_env.training.arena.run_arena` with ``duplicate=True``): every deal is played twice, the two agents
  swapping seats; at 4 players each agent holds a block of two neighbouring seats, each deal is played with both
  block orders, and the blocks turn by one seat from deal to deal, so over four deals each agent holds every pair of
  neighbouring seats equally often.  Deal ``k`` is dealt from ``(SEED, k)``, and every agent's random stream in it
  follows its block of seats, so every candidate meets the same deals, and a pair's games are the same whichever
  of the two is the candidate: the ladder plays each pair once.
* **Deals per pair**: :data:`DEALS` (its 95% interval over deals is at most +-1 point for an agent whose deal
  scores have a standard deviation up to 0.36; the ladder's pairs measured at most 0.34); a pair with a searching
  agent (one that plays from the game state, ``ismcts`` with any arguments) plays the table's
  :data:`SEARCH_DEALS`, a prefix of the same deals, and its interval is shown as it is.  ``quick``: the first
  :data:`QUICK_DEALS` (:data:`QUICK_SEARCH_DEALS` with a search), a look that is never a leaderboard row.
* **Scores**: per pair, each side's win rate (its wins over the games; a truncated game is nobody's win) with the
  95% interval over deals (:func:`~uno_env.training.intervals.duplicate_interval`), and its mean round points per
  game (what the round's winner scores from the cards left in the other hands, summed over the agent's seats).
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from uno_env.agents.base import resolve_game
from uno_env.agents.policy import NumpyPolicyAgent
from uno_env.agents.registry import load_agent
from uno_env.agents.shipped import SHIPPED_FAMILIES, family_fits_table
from uno_env.config import RuleConfig, make_rules
from uno_env.core.game import Game

from .arena import run_arena

try:
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]
from .arena_results import AgentStats

__all__ = ["PROTOCOL", "SEED", "DEALS", "SEARCH_DEALS", "QUICK_DEALS", "QUICK_SEARCH_DEALS", "Table",
           "TABLES", "ProtocolError", "find_table", "ladder_agents", "plays_from_state", "agent_deals", "pair_deals",
           "deals_plan", "play_time_aids", "load_protocol_agent", "play_pair"]

#: the protocol's name and version, in every row and table file: rows of different versions are not compared
PROTOCOL = "uno-env benchmark v1"
#: every table's deals come from this seed
SEED = 7_777
#: deals per pair: 2 * DEALS games
DEALS = 5_000
#: deals per pair where one side searches (the search costs 30-300 times the time of the other agents per decision)
SEARCH_DEALS = {"classic_2p": 400, "classic_4p": 200, "pocket_2p": 500, "pocket_4p": 400, "dice_2p": 800,
                "dice_4p": 600, "classic_2p_rlcard": 800}
#: ``--quick``: deals per pair, and with a search
QUICK_DEALS = 250
QUICK_SEARCH_DEALS = 20


class ProtocolError(ValueError):
    """A table or an agent the protocol does not cover; the message says what it does cover."""


@dataclass(frozen=True)
class Table:
    """A leaderboard's table: a game, a number of players and a preset of rules."""

    game: str
    num_players: int
    rules: str = "standard"

    @property
    def id(self) -> str:
        """``classic_2p``, ``classic_2p_rlcard``: the table's file name in the leaderboard."""
        return f"{self.game}_{self.num_players}p" + ("" if self.rules == "standard" else f"_{self.rules}")

    @property
    def title(self) -> str:
        """``classic, 2 players`` (with the preset when it is not the standard rules)."""
        return f"{self.game}, {self.num_players} players" + ("" if self.rules == "standard" else
                                                              f", {self.rules} rules")

    def rules_config(self) -> RuleConfig:
        """The table's rules."""
        return make_rules(self.game, self.num_players, None if self.rules == "standard" else self.rules)

    def to_dict(self) -> dict[str, Any]:
        """The table as a row and a table file name it."""
        return {"id": self.id, "game": self.game, "num_players": self.num_players, "rules": self.rules}


#: the tables of the leaderboard
TABLES: tuple[Table, ...] = (
    Table("classic", 2), Table("classic", 4), Table("pocket", 2), Table("pocket", 4), Table("dice", 2),
    Table("dice", 4), Table("classic", 2, "rlcard"),
)


def find_table(game: str, num_players: int | None, rules: str | None) -> Table:
    """The protocol's table for ``game``, ``num_players`` (default 2) and the preset ``rules`` (default standard);
    :class:`ProtocolError` listing the tables when there is none."""
    want = Table(game, 2 if num_players is None else num_players, rules or "standard")
    if want in TABLES:
        return want
    listing = "; ".join(f"--game {t.game} -n {t.num_players}" + ("" if t.rules == "standard" else f" --rules {t.rules}")
                        for t in TABLES)
    raise ProtocolError(f"the protocol has no table for {want.title}; its tables: {listing}")


def ladder_agents(table: Table) -> list[str]:
    """The ladder of ``table``, weakest first as a rule (the order the pairs are played and listed in)."""
    game = Game(table.rules_config())
    out = ["random", "greedy", "heuristic"] + (["rlcard-rule"] if table.rules == "rlcard" else [])
    out += [name for name in SHIPPED_FAMILIES if family_fits_table(name, game)]
    return out + ["ismcts"]


def plays_from_state(agent: Any) -> bool:
    """Whether ``agent`` searches from the game state (``ismcts``): its pairs play the table's search deals."""
    return bool(getattr(agent, "needs_state", False))


def agent_deals(table: Table, agent: Any, quick: bool = False) -> int:
    """The deals ``agent``'s pairs may play: :data:`SEARCH_DEALS` for a search, else :data:`DEALS` (``quick``:
    :data:`QUICK_SEARCH_DEALS`, or :data:`QUICK_DEALS`)."""
    if plays_from_state(agent):
        return QUICK_SEARCH_DEALS if quick else SEARCH_DEALS[table.id]
    return QUICK_DEALS if quick else DEALS


def pair_deals(table: Table, first: Any, second: Any, quick: bool = False) -> int:
    """The deals of a pair: the fewer of its two agents' (:func:`agent_deals`), the same whichever is first."""
    return min(agent_deals(table, first, quick), agent_deals(table, second, quick))


def deals_plan(table: Table) -> dict[str, int]:
    """The protocol's deals for ``table``, as the table's file records them."""
    return {"standard": DEALS, "search": SEARCH_DEALS[table.id]}


def play_time_aids(agent: Any) -> list[str] | None:
    """What ``agent`` runs besides its own choice at play time: ``"heuristic"`` (it computes the heuristic's choice,
    as an input or in its rollouts), ``"search"``; ``[]`` for none, None when uno-env cannot tell (an agent of your
    own that does not say it with a ``uses_at_play_time`` attribute)."""
    declared = getattr(agent, "uses_at_play_time", None)
    if declared is not None:
        if isinstance(declared, str) or not all(isinstance(x, str) and 0 < len(x) <= 40 for x in declared):
            raise ProtocolError(f"agent {getattr(agent, 'name', type(agent).__name__)!r}: uses_at_play_time must be "
                                f"a list of short strings (e.g. ['heuristic'], ['search'], []), got {declared!r}")
        return list(declared)
    if plays_from_state(agent):
        return ["search", "heuristic"]  # uno-env's search plays its rollouts with the heuristic
    if isinstance(agent, NumpyPolicyAgent):
        advice = agent.weights.advice
        return [] if advice == "none" else [advice]
    if type(agent).__module__.startswith(("uno_env.agents.", "uno_env.training.")):  # random, greedy, heuristic, ...
        return []
    return None


def load_protocol_agent(spec: str, game: Game) -> Any:
    """A ladder agent, or a registered or saved one, built as the protocol builds every agent (the arena resets each
    agent's random stream for every game, so how it is seeded here does not matter)."""
    return load_agent(spec, game, seed=SEED)


@dataclass
class Side:
    """One agent's results in a pair."""

    wins: int
    win_rate: float
    ci95: tuple[float, float]
    deal_sd: float
    points_per_game: float

    @classmethod
    def of(cls, stats: AgentStats) -> Side:
        """One side of a duplicate arena's result."""
        lo, hi = stats.interval()
        return cls(stats.wins, stats.win_rate, (lo, hi), float(stats.deal_sd or 0.0), stats.mean_points)

    def to_dict(self) -> dict[str, Any]:
        """The side as a table file stores it."""
        return {"wins": self.wins, "win_rate": self.win_rate, "ci95_low": self.ci95[0], "ci95_high": self.ci95[1],
                "deal_sd": self.deal_sd, "points_per_game": self.points_per_game}


@dataclass
class Pair:
    """A pair's duplicate arena: the deals, the games, and each side's results (``first``: the candidate)."""

    deals: int
    games: int
    truncated: int
    mean_length: float
    seconds: float
    cpu_seconds: float  # this process's and its workers': on a shared machine the wall time also counts the neighbours
    first: Side
    second: Side


def play_pair(first: Any, second: Any, table: Table, deals: int, workers: int = 1,
              progress: Callable[[int], Any] | None = None) -> Pair:
    """The duplicate arena of two agent objects on ``table``: ``deals`` deals from :data:`SEED`, each played with
    both block orders."""
    t0, cpu0 = time.perf_counter(), _cpu_seconds()
    res = run_arena([first, second], game=table.game, num_players=table.num_players, rules=table.rules_config(),
                    games=2 * deals, seed=SEED, workers=workers, progress=progress or False, ratings=False,
                    duplicate=True)
    a, b = res.agents
    return Pair(deals=deals, games=res.games, truncated=res.truncated, mean_length=res.mean_length,
                seconds=round(time.perf_counter() - t0, 2), cpu_seconds=round(_cpu_seconds() - cpu0, 2),
                first=Side.of(a), second=Side.of(b))


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished workers (the arena joins its workers before it returns)."""
    if resource is None:  # pragma: no cover - Windows: this process only
        return time.process_time()
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def protocol_game(table: Table) -> Game:
    """The table's game (its rules, checked)."""
    return resolve_game(table.rules_config())


def default_workers() -> int:
    """Worker processes by default: every CPU this process may use (the results do not depend on it)."""
    from uno_env._threads import available_cpus

    return max(1, min(available_cpus(), os.cpu_count() or 1))
