"""The arena: play many games between agents and collect each agent's results (:func:`run_arena`), and the
evaluation both trainers run, one agent against each baseline (:func:`against_baselines`).

The pieces, each in its module: who sits where and the seeds of each game (:mod:`.arena_seating`), the duplicate
format (:mod:`.arena_duplicate`), one game at a time (:mod:`.arena_games`), many games in lockstep
(:mod:`.arena_lockstep`), the result tables (:mod:`.arena_results`) and the OpenSkill ratings (:mod:`.arena_ratings`).
"""
from __future__ import annotations

import concurrent.futures
import os
import sys
import time
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any, cast

import numpy as np

from uno_env._threads import available_cpus
from uno_env.agents.base import resolve_game
from uno_env.agents.registry import load_agent
from uno_env.config import make_rules
from uno_env.core.game import Game
from uno_env.record import save_arena_games

from .arena_games import IndexedRecord, play_indices
from .arena_lockstep import ROW_LOOP, ROW_STREAMS, lockstep_mode, play_lockstep
from .arena_ratings import rate, ratings_unavailable
from .arena_results import ArenaResult, tally
from .arena_seating import lineup_cycle
from .limits import ARENA_SEED_MAX, MAX_GAMES, MAX_WORKERS

__all__ = ["run_arena", "against_baselines"]


def run_arena(
    agents: Sequence[Any],
    game: str = "classic",
    num_players: int | None = None,
    rules: Any = None,
    games: int = 1000,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    ratings: bool | None = None,
    chunk: int = 25,
    allow_pickle: bool = False,
    record_dir: str | os.PathLike | None = None,
    batched: bool | None = None,
    batch_size: int = 256,
    duplicate: bool = False,
) -> ArenaResult:
    """Play ``games`` games between ``agents`` (names, paths or agent objects) and collect the statistics.

    ``ratings``: rate with OpenSkill (default: when there are 3 or more agents, and OpenSkill is installed; without
    it the result says the ratings were skipped and why, while ``ratings=True`` is an ImportError before any game
    is played).  ``allow_pickle``: also load Stable-Baselines3 zips and RLlib checkpoints, which unpickle (run code
    from) the file; only for files you trust (see :func:`uno_env.agents.registry.load_agent`).  ``record_dir``:
    write every game there as a replayable record (``uno_env.record``).

    ``batched``: play ``batch_size`` games at a time in lockstep
    (:func:`~uno_env.training.arena_lockstep.play_lockstep`: one ``act_batch`` call per agent and round) or one game
    at a time (:func:`~uno_env.training.arena_games.play_game`); by default lockstep when every agent supports it
    (:func:`~uno_env.training.arena_lockstep.lockstep_mode`), and ``True`` with an agent that does not is an error.
    Both give the same records (the games, the seeds, every agent's random stream), so the table does not depend on
    it, nor on ``workers`` or ``batch_size``.  With ``workers > 1`` each worker plays its share of the games in
    lockstep batches.

    ``duplicate``: play each deal once with every block order (:mod:`~uno_env.training.arena_duplicate`) and give
    each agent's interval over deals (:func:`~uno_env.training.intervals.duplicate_interval`); needs 2 to
    ``num_players`` agents and a number of games that completes every deal (a multiple of the number of agents).
    """
    _check_arguments(agents, games, workers, seed, batch_size, batched, duplicate)
    cfg = make_rules(game, num_players, rules)
    g = Game(cfg)
    n = g.num_players
    m = len(agents)
    cycle = lineup_cycle(m, n, duplicate)  # before loading the agents: a bad count fails at once
    if duplicate and games % m:
        raise ValueError(f"duplicate: games must be a multiple of the number of agents ({m}), so that "
                         f"every deal is played with each block order; got {games}")
    rate_them, skipped = _ratings_plan(ratings, m)
    if record_dir is not None:
        os.makedirs(record_dir, exist_ok=True)  # an unwritable directory fails before any game is played
    loaded = _load_agents(agents, g, allow_pickle)
    labels = _unique_labels([_label(spec, agent) for spec, agent in zip(agents, loaded)])
    modes, lockstep = _lockstep_plan(loaded, labels, batched)
    plan = _Plan(g, loaded, labels, cycle, int(seed), duplicate, modes if lockstep else None, batch_size)
    records = _play_with_progress(plan, range(int(games)), workers, chunk, progress)
    records.sort(key=lambda r: r[0])
    if record_dir is not None:
        save_arena_games(record_dir, cfg, [(i, [labels[a] for a in cycle[i % len(cycle)]], rec) for i, rec in records])
    counted = tally(records, cycle, labels, n, duplicate)
    if rate_them:
        rate(records, cycle, counted.agents)
    return ArenaResult(
        game=g.name,
        num_players=n,
        games=len(records),
        seed=int(seed),
        rules=cfg.to_dict(),
        agents=counted.agents,
        truncated=counted.truncated,
        mean_length=counted.total_length / max(len(records), 1),
        cycle_length=len(cycle),
        seat_wins=counted.seat_wins,
        duplicate=bool(duplicate),
        ratings_skipped=skipped,
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _check_arguments(agents: Sequence[Any], games: Any, workers: Any, seed: Any, batch_size: Any, batched: Any,
                     duplicate: Any) -> None:
    """Every argument of :func:`run_arena` that is wrong before anything is built, as a ValueError naming it."""
    if isinstance(agents, (str, bytes)) or len(agents) < 1:
        raise ValueError("give at least one agent (a name or a path), e.g. ['heuristic', 'random']")
    if not _is_int(games) or not 1 <= games <= MAX_GAMES:
        raise ValueError(f"games must be a positive integer, at most {MAX_GAMES:,}, got {games!r}")
    if not _is_int(workers) or not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers must be an integer from 1 to {MAX_WORKERS}, got {workers!r}")
    if not _is_int(seed) or not 0 <= seed <= ARENA_SEED_MAX:
        raise ValueError(f"seed must be an integer from 0 to {ARENA_SEED_MAX}, got {seed!r}")
    if not _is_int(batch_size) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    if batched not in (None, True, False):
        raise ValueError(f"batched must be None (choose), True or False, got {batched!r}")
    if duplicate not in (True, False):
        raise ValueError(f"duplicate must be True or False, got {duplicate!r}")


def _ratings_plan(ratings: bool | None, num_agents: int) -> tuple[bool, str | None]:
    """Whether to rate the pool, and why a pool rated by default is not (OpenSkill missing); checked before any
    game, so that asking for ratings that cannot be made costs no games."""
    wanted = num_agents >= 3 if ratings is None else bool(ratings)
    missing = ratings_unavailable() if wanted else None
    if missing is None:
        return wanted, None
    if ratings:
        raise ImportError(missing)
    return False, missing


def _load_agents(specs: Sequence[Any], g: Game, allow_pickle: bool) -> list[Any]:
    """The agents ``specs`` name, each checked to be built for the arena's game and table."""
    loaded = [load_agent(a, g, seed=None, allow_pickle=allow_pickle) for a in specs]
    for spec, ag in zip(specs, loaded):
        ag_game = getattr(ag, "game", None)
        if ag_game is not None and hasattr(ag_game, "num_actions"):
            ag_game = resolve_game(ag_game)
            if ag_game.num_actions != g.num_actions or ag_game.obs_dim != g.obs_dim:
                raise ValueError(f"agent {spec!r} was built for {ag_game.name!r} with {ag_game.num_players} players, "
                                 f"not {g.name!r} with {g.num_players}")
    return loaded


def _label(spec: Any, agent: Any) -> str:
    """An agent's name in the table: a baseline's name, a policy file's name, an object's ``name``."""
    if not isinstance(spec, (str, os.PathLike)):
        name = getattr(agent, "name", None)
    else:
        text = os.fspath(spec)
        name = os.path.basename(text).removesuffix(".zip") if os.sep in text or text.endswith(".zip") else text
    return name or type(agent).__name__


def _unique_labels(names: list[str]) -> list[str]:
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for n in names:
        if counts[n] > 1:
            seen[n] = seen.get(n, 0) + 1
            out.append(f"{n}#{seen[n]}")
        else:
            out.append(n)
    return out


def _lockstep_plan(players: list[Any], labels: list[str], batched: bool | None) -> tuple[list[Any], bool]:
    """Each player's lockstep mode and whether the games are played in lockstep (``batched``, or when every player
    can be)."""
    modes = [lockstep_mode(p) for p in players]
    unfit = [lab for lab, mode in zip(labels, modes) if mode is None]
    # one object at two agent indices shares one stream in the sequential arena, which per-game streams cannot copy
    shared = [lab for a, lab in enumerate(labels) if modes[a] in (ROW_STREAMS, ROW_LOOP)
              and any(players[b] is players[a] for b in range(len(players)) if b != a)]
    if batched and (unfit or shared):
        why = ("it has no lockstep mode, see lockstep_mode" if unfit else
               "one agent object with a random stream in several places")
        raise ValueError(f"batched=True: the lockstep arena cannot play {', '.join(unfit + shared)} ({why}); "
                         f"use batched=None or False")
    return modes, batched if batched is not None else not (unfit or shared)


class _Plan:
    """What a share of the arena's games is played with, in this process or in a worker: the game, the players
    and their labels, the seatings, the seed, and (lockstep) each player's mode and the batch size."""

    def __init__(self, game: Game, players: list[Any], labels: list[str], cycle: list[tuple[int, ...]], seed: int,
                 duplicate: bool, modes: list[Any] | None, batch_size: int):
        self.game, self.players, self.labels, self.cycle = game, players, labels, cycle
        self.seed, self.duplicate, self.modes, self.batch_size = seed, duplicate, modes, batch_size

    def play(self, indices: Sequence[int], on_done: Any = None) -> list[IndexedRecord]:
        """The records of the games ``indices``, in lockstep when the plan has modes, else one game at a time."""
        if self.modes is not None:
            return play_lockstep(self.game, self.players, cast(list[str], self.modes), self.labels, self.cycle,
                                 self.seed, indices, self.batch_size, on_done=on_done, duplicate=self.duplicate)
        return play_indices(self.game, self.players, self.labels, self.cycle, self.seed, indices, self.duplicate)


def _play_with_progress(plan: _Plan, indices: range, workers: int, chunk: int,
                        progress: bool) -> list[IndexedRecord]:
    bar = _progress_bar(len(indices)) if progress else None
    update = bar.update if bar is not None else None
    try:
        if workers == 1:
            return _play_here(plan, indices, chunk, update)
        return _play_in_workers(plan, indices, workers, chunk, update)
    finally:
        if bar is not None:
            bar.close()


def _progress_bar(total: int) -> Any:
    try:  # tqdm is in the train extra: a core install plays without a bar
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is in the train extra
        return None
    return tqdm(total=total, unit="game", desc="arena", file=sys.stderr, smoothing=0.05)


def _play_here(plan: _Plan, indices: range, chunk: int, update: Any) -> list[IndexedRecord]:
    """Every game in this process: one lockstep run, or one game at a time in parts (for the progress bar)."""
    if plan.modes is not None:
        return plan.play(indices, on_done=update)
    records: list[IndexedRecord] = []
    step = max(1, min(chunk, 100))
    for start in range(0, len(indices), step):
        part = indices[start: start + step]
        records += plan.play(part)
        if update is not None:
            update(len(part))
    return records


def _play_in_workers(plan: _Plan, indices: range, workers: int, chunk: int, update: Any) -> list[IndexedRecord]:
    """Every game spread over worker processes, in parts; the records come back in any order."""
    # lockstep: parts of several batches, so that finished games' slots are refilled within a part
    size = max(chunk, 4 * plan.batch_size) if plan.modes is not None else chunk
    size = min(size, -(-len(indices) // workers))  # every worker gets work
    parts = [indices[i: i + size] for i in range(0, len(indices), size)]
    records: list[IndexedRecord] = []
    # more processes than parts idle, more than CPUs only contend: the table is the same either way
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(workers, len(parts), available_cpus()),
                                                initializer=_worker_init, initargs=(plan,)) as pool:
        futures = [pool.submit(_worker_run, p) for p in parts]
        for fut in concurrent.futures.as_completed(futures):
            res = fut.result()
            records += res
            if update is not None:
                update(len(res))
    return records


_WORKER: dict[str, _Plan] = {}


def _worker_init(plan: _Plan) -> None:
    if "torch" in sys.modules:
        # a forked worker deadlocks on its first torch operation if the parent ran several torch threads
        sys.modules["torch"].set_num_threads(1)
    _WORKER["plan"] = plan


def _worker_run(indices: Sequence[int]) -> list[IndexedRecord]:
    return _WORKER["plan"].play(indices)


def against_baselines(agent: Any, opponents: Sequence[str], game: str, num_players: int | None, rules: Any,
                      games: int, seed: int, workers: int = 1, progress: bool = False,
                      confidence: float = 0.95, duplicate: bool = False) -> list[dict[str, Any]]:
    """The evaluation both trainers run: ``agent`` alone against one baseline in every other seat, per baseline.

    One row per baseline: ``opponent, games, wins, draws, win_rate, ci_low, ci_high, interval, mean_length,
    seconds``; ``interval`` says which: ``"wilson"`` (Wilson's at ``confidence``) or, with ``duplicate``, ``"over
    deals"`` (see :func:`run_arena`).
    Seats rotate and every game is seeded from ``(seed, index)``, as in :func:`run_arena`.
    """
    cfg = make_rules(game, num_players, rules)
    n = cast(int, cfg.num_players)  # an option of every game: never None
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    rows = []
    for name in opponents:
        t0 = time.time()
        res = run_arena([agent] + [name] * (n - 1), game=game, num_players=n, rules=cfg, games=games, seed=seed,
                        workers=workers, progress=progress, ratings=False, duplicate=duplicate)
        me = res.agents[0]
        lo, hi = me.interval(z)
        rows.append({"opponent": name, "games": me.games, "wins": me.wins, "draws": me.truncated,
                     "win_rate": me.win_rate, "ci_low": lo, "ci_high": hi,
                     "interval": "over deals" if duplicate else "wilson", "mean_length": res.mean_length,
                     "seconds": round(time.time() - t0, 2)})
    return rows
