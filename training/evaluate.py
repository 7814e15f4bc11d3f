"""The arena: play many games between agents and report win rates with 95% Wilson intervals.

``uno-env evaluate heuristic random --game classic --num-players 2 --games 20000 --seed 0``

* Agents are baseline names (``random``, ``greedy``, ``heuristic``) or saved policies: the pickle-free
  ``policy.npz`` a training run writes (or its run directory); SB3 zips and RLlib checkpoints only with
  ``--trust-pickle``, since loading them unpickles (runs code from) the file.
* Seats rotate so that no agent profits from its position: with ``m`` agents at ``n`` seats (``m <= n``) the
  seats are split into ``m`` contiguous blocks of copies, and both the block order (cyclic shifts of the
  agents) and the seat offset (``n`` rotations) cycle, so over every ``m * n`` games each agent occupies each
  seat equally often.  With more agents than seats, every ``n``-subset of the pool plays all ``n`` rotations.
* An agent with several seats wins a game when one of its seats wins; a truncated game (``max_turns``) is a
  win for nobody and is counted in its own column.  Game length counts decisions.
* Every game ``i`` gets its own seeds from ``(seed, i)`` (for the deal and for each agent's random stream), so
  the table does not depend on ``--workers``: a fixed ``--seed`` reproduces it exactly.
* ``--duplicate`` plays every deal once with each block order, as duplicate bridge does: the ``m`` games of one
  rotation share the deal (and each block of seats its random stream), so the cards favour every agent equally
  and the interval is computed over deals (:func:`duplicate_interval`).  Two copies of one deterministic agent
  then score exactly 50%, and a small edge between similar agents shows with far fewer games.
* A pool of 3 or more agents is also rated with OpenSkill (Plackett-Luce), games taken in index order.
* The ``heuristic`` agent plays through its compiled twin (``uno_env.core.baselines``, the same choices, held
  equal by tests), which costs a fraction of the Python agent's time per decision.
* Games are played in lockstep batches (:func:`play_lockstep`: ``--batch-size`` games at once, each agent asked
  once per round for all its decisions with ``act_batch``, the games stepped by a compiled kernel) when every
  agent supports it (:func:`lockstep_mode`: the baselines and numpy policies do; ``ismcts``, ``human``, torch
  policies and unknown agents do not, and then every game is played alone by :func:`play_game`).  Both paths play
  the same games: each game keeps its deal, its lineup and each agent's random stream for that game, so every
  record, and the table, is the same (``--sequential`` forces one game at a time).
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from uno_env._threads import available_cpus

__all__ = [
    "wilson_interval",
    "lineup_cycle",
    "seat_lineup",
    "game_seeds",
    "duplicate_deal",
    "arena_seeds",
    "duplicate_interval",
    "play_game",
    "play_lockstep",
    "lockstep_mode",
    "IllegalAgentActionError",
    "AgentStats",
    "ArenaResult",
    "run_arena",
    "against_baselines",
    "format_table",
    "add_arguments",
    "run",
]

Z95 = 1.959963984540054
# Bounds of one arena run, far above any real use: they turn a typo into an error instead of a fork bomb
# (workers are processes) or a machine out of memory (every game's record is kept until the table is made).
MAX_GAMES = 10**8
MAX_WORKERS = 1024
SEED_MAX = 2**63 - 1  # game_seeds keeps 63 bits of the seed: a larger or negative one would alias another


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (``(0, 1)`` when there are no trials)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    # clamped to contain p: at p = 0 or 1, rounding would otherwise leave it a hair outside its own interval
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def lineup_cycle(num_agents: int, num_players: int, duplicate: bool = False) -> list[tuple[int, ...]]:
    """Every lineup (agent index per seat) of one rotation cycle; game ``i`` uses ``cycle[i % len(cycle)]``.

    ``duplicate`` (``num_agents <= num_players`` only): the same lineups, ordered so that the ``num_agents`` block
    orders of one rotation follow each other: game ``i`` then has ``(a - i) mod num_agents`` as agent ``a``'s block
    (its block order), and games ``k * num_agents`` to ``k * num_agents + num_agents - 1`` play deal ``k``."""
    m, n = num_agents, num_players
    if duplicate:
        if not 2 <= m <= n:
            raise ValueError(f"a duplicate arena needs 2 to {n} agents (one block of seats each), got {m}")
        plain = lineup_cycle(m, n)
        return [plain[shift * n + rot] for rot in range(n) for shift in range(m)]
    if m < 1 or n < 2:
        raise ValueError(f"need at least one agent and two seats, got {m} agents and {n} seats")
    out: list[tuple[int, ...]] = []
    if m <= n:
        block = [s * m // n for s in range(n)]  # contiguous blocks of copies, sizes differ by at most 1
        for shift in range(m):
            for rot in range(n):
                out.append(tuple((block[(s + rot) % n] + shift) % m for s in range(n)))
    else:
        for combo in itertools.combinations(range(m), n):
            for rot in range(n):
                out.append(tuple(combo[(s + rot) % n] for s in range(n)))
    return out


def seat_lineup(num_agents: int, num_players: int, index: int) -> tuple[int, ...]:
    """The agent index at each seat in game ``index``."""
    cycle = lineup_cycle(num_agents, num_players)
    return cycle[index % len(cycle)]


def game_seeds(seed: int, index: int, num_agents: int) -> tuple[int, list[int]]:
    """The deal seed of game ``index`` and one seed per agent, from ``(seed, index)`` only."""
    words = np.random.SeedSequence([int(seed) & (2**63 - 1), int(index)]).generate_state(1 + num_agents, np.uint64)
    vals = [int(w) & (2**63 - 1) for w in words]
    return vals[0], vals[1:]


def duplicate_deal(index: int, num_agents: int) -> int:
    """The deal game ``index`` plays in a duplicate arena: ``num_agents`` consecutive games, one per block order
    (``lineup_cycle(..., duplicate=True)``), share a deal."""
    return int(index) // num_agents


def arena_seeds(seed: int, index: int, num_agents: int, duplicate: bool = False) -> tuple[int, list[int]]:
    """The deal seed of game ``index`` and one seed per agent (by agent index).

    Plain: :func:`game_seeds` of the game.  Duplicate: :func:`game_seeds` of its deal (:func:`duplicate_deal`),
    with the stream seeds following the block of seats rather than the agent, so that the seats' cards and the
    seats' luck both repeat when the agents change places."""
    if not duplicate:
        return game_seeds(seed, index, num_agents)
    m = num_agents
    deal_seed, block_seeds = game_seeds(seed, duplicate_deal(index, m), m)
    shift = int(index) % m  # agent a sits in block (a - shift) mod m (lineup_cycle with duplicate)
    return deal_seed, [block_seeds[(a - shift) % m] for a in range(m)]


def duplicate_interval(mean: float, sd: float, deals: int, z: float = Z95) -> tuple[float, float]:
    """The normal interval of a mean over deals, clamped to [0, 1]: ``mean`` and ``sd`` (sample standard deviation)
    of the deal scores (a score: the agent's wins over its seatings of the deal, divided by their number);
    ``(0, 1)`` with fewer than two deals.

    Deals are independent where the games of one deal are not, so the standard error comes from the spread of the
    deal scores: the luck of the cards, shared by both sides of a deal, cancels inside each score."""
    if deals < 2:
        return 0.0, 1.0
    half = z * sd / math.sqrt(deals)
    return max(0.0, mean - half), min(1.0, mean + half)


class IllegalAgentActionError(RuntimeError):
    """An agent chose an action that is not legal (the arena never substitutes one)."""


def play_game(game, seat_agents: Sequence[Any], seed: int, labels: Sequence[str] | None = None) -> dict[str, Any]:
    """Play one game on the compiled core; ``seat_agents[s]`` acts for seat ``s``.

    Returns ``{"winner": seat or -1 (truncated), "length": decisions, "scores": [per seat], "truncated": bool,
    "seed", "actions", "rewards": [per seat, summed]}`` (what a game record holds).
    """
    from uno_env.core import engine as E
    from uno_env.core.layout import MAX_PLAYERS, PHASE_NAMES, StateView
    from uno_env.core.observe import observe_one
    from uno_env.core.step_result import decode_step
    from uno_env.opponents import agent_action
    from uno_env.vector import game_seed

    cfg, spec, dice, offs = game.cfg, game.spec, game.dice, game.obs_offsets
    states, rngs = game.new_states(1)
    st, rng = states[0], rngs[0]
    # ``seed`` is an env seed: ``uno_env.env(...).reset(seed=seed)`` deals the same game (a recorded game replays)
    E.reset_one(st, rng, cfg, spec, dice, game_seed(int(seed)))
    mask = np.zeros(game.num_actions, dtype=np.int8)
    E.legal_mask(st, cfg, spec, dice, mask)
    rew = np.zeros(MAX_PLAYERS, dtype=np.float32)
    step = E.step_masked
    view = StateView(st)
    dim = game.obs_dim
    actions: list[int] = []
    totals = np.zeros(game.num_players, dtype=np.float64)
    while view.done == 0:
        seat = view.cur
        obs = np.empty(dim, dtype=np.float32)
        observe_one(st, cfg, spec, offs, seat, obs)
        action = agent_action(seat_agents[seat], st, obs, mask.copy())
        try:
            action = int(action)
        except (TypeError, ValueError):
            action = -1
        status, rewarded, _, _ = decode_step(step(st, rng, cfg, spec, dice, action, mask, rew))
        actions.append(action)
        if rewarded:
            totals += rew[: game.num_players]
        if status:
            who = labels[seat] if labels else type(seat_agents[seat]).__name__
            name = game.action_names[action] if 0 <= action < game.num_actions else "out of range"
            raise IllegalAgentActionError(
                f"agent {who} at seat {seat} chose the illegal action {action} ({name}) in phase "
                f"{PHASE_NAMES[view.phase]!r}"
            )
    n = game.num_players
    truncated = view.done == 2
    return {
        "winner": -1 if truncated else view.match_winner,
        "length": view.turns,
        "scores": [int(x) for x in view.scores[:n]],
        "truncated": truncated,
        "seed": int(seed),
        "actions": np.array(actions, dtype=np.int32),  # compact: thousands of games come back from workers
        "rewards": [float(x) for x in totals],
    }


class _CompiledHeuristicAgent:
    """The ``heuristic`` agent as the arena plays it: the compiled heuristic with the agent's weights, whose choices
    tests hold equal to the Python agent's (``tests/test_compiled_baselines.py``)."""

    def __init__(self, agent: Any):
        from uno_env.agents.policy import compiled_heuristic

        self.name = agent.name
        self.game = agent.game
        self._choose = compiled_heuristic(agent.game, agent.weights)

    def act(self, observation: Any, action_mask: Any = None) -> int:
        from uno_env.agents.base import split_observation

        obs, mask = split_observation(observation, action_mask)
        return int(self._choose(np.asarray(obs)[None, :], np.asarray(mask)[None, :])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return self._choose(observations, action_masks)

    def reset(self, seed: int | None = None) -> None:
        """The heuristic has no random stream."""


def _arena_player(agent: Any) -> Any:
    """The player that acts for ``agent`` in the arena: the heuristic's compiled twin, else the agent itself."""
    from uno_env.agents.heuristic import HeuristicAgent

    if type(agent) is HeuristicAgent:
        return _CompiledHeuristicAgent(agent)
    return agent


# ---------------------------------------------------------------------------------------------- lockstep play
#: how the lockstep arena plays an agent (:func:`lockstep_mode`)
STATELESS = "stateless"  # act_batch's choice for a row depends on that row alone
ROW_STREAMS = "row_streams"  # ...and on the agent's ``rng``, drawn along the batch's first axis (one row a decision)
ROW_LOOP = "row_loop"  # ``act`` one decision at a time, with the ``rng`` of the decision's game
LOCKSTEP_MODES = (STATELESS, ROW_STREAMS, ROW_LOOP)


def lockstep_mode(agent: Any) -> str | None:
    """How the lockstep arena plays ``agent``, or None when only the one-game-at-a-time arena can.

    An agent may say it with an attribute ``arena_lockstep`` (one of :data:`LOCKSTEP_MODES`):

    * ``"stateless"``: ``act_batch`` chooses each row's action from that row alone (no random stream, no memory);
    * ``"row_streams"``: besides, it draws from its ``rng`` attribute (a numpy ``Generator``) with ``rng.random`` or
      ``rng.integers``, one slice along the first axis per row, as ``act`` draws for one decision; the arena hands it
      each game's own stream (``numpy.random.default_rng`` of the agent's seed for that game);
    * ``"row_loop"``: ``act`` is called per decision with its ``rng`` set to the game's stream.

    The built-in agents need no attribute: the arena's heuristic (compiled) and a deterministic numpy policy
    are ``stateless``, ``random``, ``greedy`` and a sampling numpy policy ``row_streams`` (``greedy`` in UNO Dice
    and ``rlcard-rule`` ``row_loop``).  Agents that need the state (``ismcts``), a person (``human``), torch
    policies (SB3, RLlib: their float rounding depends on the batch size) and unknown agents are played one game at
    a time.
    """
    declared = getattr(agent, "arena_lockstep", None)
    if declared is not None:
        who = getattr(agent, "name", type(agent).__name__)
        if declared not in LOCKSTEP_MODES:
            raise ValueError(f"agent {who!r}: arena_lockstep must be one of {LOCKSTEP_MODES} (or None), got "
                             f"{declared!r}")
        if declared != STATELESS and not isinstance(getattr(agent, "rng", None), np.random.Generator):
            raise ValueError(f"agent {who!r}: arena_lockstep {declared!r} needs the agent's random stream as a numpy "
                             f"Generator in its 'rng' attribute")
        needs = "act" if declared == ROW_LOOP else "act_batch"
        if not callable(getattr(agent, needs, None)):
            raise ValueError(f"agent {who!r}: arena_lockstep {declared!r} needs a method {needs!r}")
        return declared
    if getattr(agent, "needs_state", False):
        return None
    from uno_env.agents.greedy import GreedyAgent
    from uno_env.agents.policy import NumpyPolicyAgent
    from uno_env.agents.random_agent import RandomAgent
    from uno_env.agents.rlcard_rule import RLCardRuleAgent

    kind = type(agent)  # exact types: a subclass may change how it chooses
    if kind is _CompiledHeuristicAgent:
        return STATELESS
    if kind is NumpyPolicyAgent:
        return STATELESS if agent.deterministic else ROW_STREAMS
    if kind is RandomAgent:
        return ROW_STREAMS
    if kind is GreedyAgent:
        return ROW_LOOP if agent.actions.num_dice else ROW_STREAMS  # UNO Dice: its act_batch is a loop of act
    if kind is RLCardRuleAgent:
        return ROW_LOOP
    return None


class _RowStreams:
    """Stands in for an agent's ``rng`` during one ``act_batch`` call: row ``r``'s numbers come from the stream of
    row ``r``'s game, drawn as ``act`` draws them for that one decision, so a game's draws are the ones the
    one-game-at-a-time arena makes whatever batch the game is played in."""

    def __init__(self, streams: list[np.random.Generator], who: str):
        self._streams = streams
        self._who = who

    def _split(self, method: str, size: Any, *args: Any, **kwargs: Any) -> np.ndarray:
        k = len(self._streams)
        shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size) if size is not None else ()
        if not shape or shape[0] != k:
            raise IllegalAgentActionError(
                f"agent {self._who}: drew random numbers of shape {shape} for {k} decisions; the lockstep arena "
                f"splits draws along the first axis, one row per decision (play it with batched=False)")
        if len(shape) == 1:  # one number per row: a scalar draw is the same number as size=1, and 4x cheaper
            return np.array([getattr(s, method)(*args, **kwargs) for s in self._streams])
        one = (1, *shape[1:])
        return np.concatenate([getattr(s, method)(*args, size=one, **kwargs) for s in self._streams])

    def random(self, size: Any = None, dtype: Any = np.float64) -> np.ndarray:
        return self._split("random", size, dtype=dtype)

    def integers(self, low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64,
                 endpoint: bool = False) -> np.ndarray:
        return self._split("integers", size, low, high, dtype=dtype, endpoint=endpoint)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"agent {self._who}: the lockstep arena's per-game streams offer rng.random and "
                             f"rng.integers only, not rng.{name} (play it with batched=False)")


def _batch_actions(agent: Any, mode: str, label: str, obs: np.ndarray, masks: np.ndarray,
                   streams: list[np.random.Generator] | None) -> np.ndarray:
    """``agent``'s actions for the rows ``obs``/``masks``, checked to be one integer per row."""
    k = obs.shape[0]
    if mode == ROW_LOOP:
        out = np.empty(k, dtype=np.int64)
        assert streams is not None
        for r in range(k):
            agent.rng = streams[r]
            try:
                out[r] = int(agent.act(obs[r], masks[r]))
            except (TypeError, ValueError, OverflowError):
                out[r] = -1  # as play_game: not an action id, so an illegal one
        return out
    if mode == ROW_STREAMS:
        assert streams is not None
        agent.rng = _RowStreams(streams, label)
    raw = agent.act_batch(obs, masks)
    arr = np.asarray(raw)
    if arr.shape != (k,) or not np.issubdtype(arr.dtype, np.integer):
        raise IllegalAgentActionError(
            f"agent {label}: act_batch returned an array of shape {arr.shape} and dtype {arr.dtype} for {k} "
            f"decisions; it must return one integer action id per row, shape ({k},)")
    return arr


def play_lockstep(game, players: Sequence[Any], modes: Sequence[str], labels: Sequence[str],
                  cycle: Sequence[tuple[int, ...]], seed: int, indices: Sequence[int], batch_size: int = 256,
                  on_done: Any = None, duplicate: bool = False) -> list[tuple[int, dict[str, Any]]]:
    """Play the games ``indices`` up to ``batch_size`` at a time in lockstep; the records :func:`play_game` gives.

    Each round, every unfinished game's seat to act is observed (compiled), the decisions are grouped by the agent
    that makes them, each agent's ``act_batch`` is called once for its group, and every game is stepped (compiled,
    ``_lockstep.step_rows``); a finished game's slot takes the next game.  Game ``i`` keeps its deal seed and lineup
    and an agent with a random stream gets game ``i``'s stream (:func:`arena_seeds`, ``duplicate`` as there), so
    every record equals the one-game-at-a-time arena's (``modes``: :func:`lockstep_mode` of each player).
    ``on_done(k)`` is called as ``k`` more games finish.
    """
    from uno_env.core import engine as E
    from uno_env.core.layout import MAX_PLAYERS, PHASE_NAMES, StateView
    from uno_env.vector import game_seed

    from ._lockstep import start_game, step_rows

    cfg, spec, dice, offs = game.cfg, game.spec, game.dice, game.obs_offsets
    n, m, num_actions = game.num_players, len(players), game.num_actions
    queue = indices if isinstance(indices, range) else list(indices)
    slots = max(1, min(int(batch_size), len(queue)))
    states, rngs = game.new_states(slots)
    masks = np.zeros((slots, num_actions), dtype=np.int8)
    obs = np.zeros((slots, game.obs_dim), dtype=np.float32)
    seats = np.full(slots, -1, dtype=np.int64)
    rew = np.zeros((slots, MAX_PLAYERS), dtype=np.float32)
    totals = np.zeros((slots, n), dtype=np.float64)
    log = np.zeros((slots, 256), dtype=np.int32)
    lengths = np.zeros(slots, dtype=np.int64)
    lineup_of = np.zeros((slots, n), dtype=np.int64)  # agent index at each seat of each slot's game
    game_of = np.full(slots, -1, dtype=np.int64)
    deal_of = [0] * slots
    streamed = [a for a in range(m) if modes[a] in (ROW_STREAMS, ROW_LOOP)]
    streams: list[dict[int, np.random.Generator]] = [{} for _ in range(slots)]
    saved_rngs = {a: players[a].rng for a in streamed}
    records: list[tuple[int, dict[str, Any]]] = []
    next_game = 0
    threads = None

    def start(slot: int) -> None:
        nonlocal next_game
        i = queue[next_game]
        next_game += 1
        lineup = cycle[i % len(cycle)]
        deal_seed, agent_seeds = arena_seeds(seed, i, m, duplicate)
        game_of[slot] = i
        deal_of[slot] = deal_seed
        lineup_of[slot] = lineup
        streams[slot] = {a: np.random.default_rng(agent_seeds[a]) for a in set(lineup) if a in saved_rngs}
        totals[slot] = 0.0
        lengths[slot] = 0
        seats[slot] = start_game(states[slot], rngs[slot], cfg, spec, dice, offs, game_seed(int(deal_seed)),
                                 masks[slot], obs[slot])
        if states[slot, E.S_DONE] != 0:
            seats[slot] = -1

    def refill(slot: int) -> int:
        """Start the next games in ``slot`` until one has a decision to make; returns how many finished at once."""
        over = 0
        while next_game < len(queue):
            start(slot)
            if seats[slot] >= 0:
                break
            finish(slot)  # over at the deal: nothing to decide, as play_game records it
            over += 1
        return over

    def finish(slot: int) -> None:
        view = StateView(states[slot])
        truncated = view.done == 2
        records.append((int(game_of[slot]), {
            "winner": -1 if truncated else view.match_winner,
            "length": view.turns,
            "scores": [int(x) for x in view.scores[:n]],
            "truncated": truncated,
            "seed": int(deal_of[slot]),
            "actions": log[slot, : lengths[slot]].copy(),
            "rewards": [float(x) for x in totals[slot]],
        }))
        game_of[slot] = -1

    try:
        threads = _one_blas_thread()
        over = sum(refill(slot) for slot in range(slots))
        while True:
            if over and on_done is not None:
                on_done(over)
            active = np.flatnonzero(seats >= 0)
            if active.size == 0:
                break
            if lengths[active].max() >= log.shape[1]:
                log = np.concatenate([log, np.zeros_like(log)], axis=1)
            who = lineup_of[active, seats[active]]
            actions = np.empty(active.size, dtype=np.int64)
            for a in np.unique(who):
                sel = np.flatnonzero(who == a)
                rows = active[sel]
                row_streams = [streams[s][a] for s in rows] if a in saved_rngs else None
                acts = _batch_actions(players[a], modes[a], labels[a], obs[rows], masks[rows], row_streams)
                ok = (acts >= 0) & (acts < num_actions)
                ok[ok] = masks[rows[ok], acts[ok].astype(np.int64)] != 0
                if not ok.all():
                    bad = int(np.flatnonzero(~ok)[0])
                    raise _IllegalInBatch(int(rows[bad]), int(acts[bad]))
                actions[sel] = acts
            if step_rows(states, rngs, cfg, spec, dice, offs, active, actions, masks, rew, totals, log, lengths,
                         seats, obs) >= 0:  # checked legal above: a failure here is the core's
                raise RuntimeError("the lockstep arena stepped an action the core refused")
            over = 0
            for slot in active[seats[active] < 0]:
                finish(slot)
                over += 1 + refill(slot)
    except _IllegalInBatch as exc:
        for a, rng in saved_rngs.items():
            players[a].rng = rng
        # replay one at a time the unfinished games up to this one: the first illegal action in game order, and
        # so the error, is then exactly the sequential arena's (the finished games played the same and were legal)
        finished = {i for i, _ in records}
        failing = int(game_of[exc.slot])
        _play_indices(game, players, labels, cycle, seed, [i for i in queue if i not in finished and i <= failing],
                      duplicate)
        view = StateView(states[exc.slot])
        name = game.action_names[exc.action] if 0 <= exc.action < num_actions else "out of range"
        raise IllegalAgentActionError(
            f"agent {labels[lineup_of[exc.slot, view.cur]]} at seat {view.cur} chose the illegal action {exc.action} "
            f"({name}) in phase {PHASE_NAMES[view.phase]!r}") from None
    finally:
        for a, rng in saved_rngs.items():
            players[a].rng = rng
        if threads is not None:
            threads.restore_original_limits()
    records.sort(key=lambda r: r[0])
    return records


def _one_blas_thread() -> Any:
    """Limit BLAS to one thread while the lockstep arena runs (undone by ``restore_original_limits``), or None
    without threadpoolctl.  A batch's matrix products are small: OpenBLAS's threads gain nothing there and, on a
    busy machine or beside other arena workers, spin against each other (the arena ran 3-5x slower)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - in the train extra
        return None
    return threadpool_limits(limits=1, user_api="blas")


class _IllegalInBatch(Exception):
    """An agent's illegal choice in a lockstep round (turned into :class:`IllegalAgentActionError`)."""

    def __init__(self, slot: int, action: int):
        super().__init__(slot, action)
        self.slot = slot
        self.action = action


# ---------------------------------------------------------------------------------------------- workers
_WORKER: dict[str, Any] = {}


def _play_indices(game, agents, labels, cycle, seed, indices, duplicate=False) -> list[tuple[int, dict[str, Any]]]:
    out = []
    m = len(agents)
    for i in indices:
        lineup = cycle[i % len(cycle)]
        deal_seed, agent_seeds = arena_seeds(seed, i, m, duplicate)
        for a in sorted(set(lineup)):
            reset = getattr(agents[a], "reset", None)
            if callable(reset):
                reset(seed=agent_seeds[a])
        rec = play_game(game, [agents[a] for a in lineup], deal_seed, [labels[a] for a in lineup])
        out.append((i, rec))
    return out


def _worker_init(rules, agents, labels, cycle, seed, batch_size=0, duplicate=False) -> None:
    import sys

    from uno_env.core.game import Game

    if "torch" in sys.modules:
        # a forked worker deadlocks on its first torch operation if the parent ran several torch threads
        sys.modules["torch"].set_num_threads(1)

    modes = [lockstep_mode(a) for a in agents] if batch_size else None
    _WORKER.update(game=Game(rules), agents=agents, labels=labels, cycle=cycle, seed=seed, batch_size=batch_size,
                   modes=modes, duplicate=duplicate)


def _worker_run(indices: Sequence[int]):
    w = _WORKER
    if w["batch_size"]:
        return play_lockstep(w["game"], w["agents"], w["modes"], w["labels"], w["cycle"], w["seed"], indices,
                             w["batch_size"], duplicate=w["duplicate"])
    return _play_indices(w["game"], w["agents"], w["labels"], w["cycle"], w["seed"], indices, w["duplicate"])


# ---------------------------------------------------------------------------------------------- results
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
    """The result of :func:`run_arena`: the settings of the run and one :class:`AgentStats` per agent."""
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

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data (what ``uno-env evaluate --json`` writes)."""
        return {
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


def _rate(records, cycle, stats: list[AgentStats]) -> None:
    try:
        from openskill.models import PlackettLuce
    except ImportError as exc:
        raise ImportError(
            "rating a pool of agents needs openskill: pip install openskill (in the train extra)") from exc
    model = PlackettLuce()
    ratings = [model.rating(name=s.name) for s in stats]
    for i, rec in records:
        lineup = cycle[i % len(cycle)]
        present = sorted(set(lineup))
        if len(present) < 2:
            continue
        winner_agent = lineup[rec["winner"]] if rec["winner"] >= 0 else None
        ranks = [0.0 if (winner_agent is None or a == winner_agent) else 1.0 for a in present]
        new = model.rate([[ratings[a]] for a in present], ranks=ranks)
        for a, team in zip(present, new):
            ratings[a] = team[0]
    for s, r in zip(stats, ratings):
        s.rating_mu, s.rating_sigma = float(r.mu), float(r.sigma)


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

    ``ratings``: rate with OpenSkill (default: when there are 3 or more agents).  ``allow_pickle``: also load
    Stable-Baselines3 zips and RLlib checkpoints, which unpickle (run code from) the file; only for files you
    trust (see :func:`uno_env.agents.registry.load_agent`).  ``record_dir``: write every game there as a
    replayable record (``uno_env.record``).

    ``batched``: play ``batch_size`` games at a time in lockstep (:func:`play_lockstep`: one ``act_batch`` call per
    agent and round) or one game at a time (:func:`play_game`); by default lockstep when every agent supports it
    (:func:`lockstep_mode`), and ``True`` with an agent that does not is an error.  Both give the same records
    (the games, the seeds, every agent's random stream), so the table does not depend on it, nor on ``workers``
    or ``batch_size``.  With ``workers > 1`` each worker plays its share of the games in lockstep batches.

    ``duplicate``: play each deal once with every block order (:func:`duplicate_deal`, :func:`arena_seeds`) and
    give each agent's interval over deals (:func:`duplicate_interval`); needs 2 to ``num_players`` agents and a
    number of games that completes every deal (a multiple of the number of agents).
    """
    from uno_env.agents.base import resolve_game
    from uno_env.agents.registry import load_agent
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    if isinstance(agents, (str, bytes)) or len(agents) < 1:
        raise ValueError("give at least one agent (a name or a path), e.g. ['heuristic', 'random']")
    if not isinstance(games, (int, np.integer)) or isinstance(games, bool) or not 1 <= games <= MAX_GAMES:
        raise ValueError(f"games must be a positive integer, at most {MAX_GAMES:,}, got {games!r}")
    if not isinstance(workers, (int, np.integer)) or isinstance(workers, bool) or not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers must be an integer from 1 to {MAX_WORKERS}, got {workers!r}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= seed <= SEED_MAX:
        raise ValueError(f"seed must be an integer from 0 to {SEED_MAX}, got {seed!r}")
    if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    if batched not in (None, True, False):
        raise ValueError(f"batched must be None (choose), True or False, got {batched!r}")
    if duplicate not in (True, False):
        raise ValueError(f"duplicate must be True or False, got {duplicate!r}")
    cfg = make_rules(game, num_players, rules)
    g = Game(cfg)
    n = g.num_players
    m = len(agents)
    cycle = lineup_cycle(m, n, duplicate)  # before loading the agents: a bad count fails at once
    if duplicate and games % m:
        raise ValueError(f"duplicate: games must be a multiple of the number of agents ({m}), so that "
                         f"every deal is played with each block order; got {games}")
    if record_dir is not None:
        os.makedirs(record_dir, exist_ok=True)  # an unwritable directory fails before any game is played
    loaded = [load_agent(a, g, seed=None, allow_pickle=allow_pickle) for a in agents]
    for spec, ag in zip(agents, loaded):
        ag_game = getattr(ag, "game", None)
        if ag_game is not None and hasattr(ag_game, "num_actions"):
            ag_game = resolve_game(ag_game)
            if ag_game.num_actions != g.num_actions or ag_game.obs_dim != g.obs_dim:
                raise ValueError(f"agent {spec!r} was built for {ag_game.name!r} with {ag_game.num_players} players, "
                                 f"not {g.name!r} with {n}")
    names = [getattr(a, "name", None) if not isinstance(s, (str, os.PathLike)) else
             (os.path.basename(os.fspath(s)).removesuffix(".zip") if os.sep in os.fspath(s) or
              os.fspath(s).endswith(".zip") else os.fspath(s))
             for s, a in zip(agents, loaded)]
    labels = _unique_labels([nm or type(a).__name__ for nm, a in zip(names, loaded)])
    players = [_arena_player(a) for a in loaded]
    indices = range(int(games))  # a range, sliced into parts: no list of every game index
    modes = [lockstep_mode(p) for p in players]
    unfit = [lab for lab, mode in zip(labels, modes) if mode is None]
    # one object at two agent indices shares one stream in the sequential arena, which per-game streams cannot copy
    shared = [lab for a, lab in enumerate(labels) if modes[a] in (ROW_STREAMS, ROW_LOOP)
              and any(players[b] is players[a] for b in range(m) if b != a)]
    if batched and (unfit or shared):
        why = ("it has no lockstep mode, see lockstep_mode" if unfit else
               "one agent object with a random stream in several places")
        raise ValueError(f"batched=True: the lockstep arena cannot play {', '.join(unfit + shared)} ({why}); "
                         f"use batched=None or False")
    lockstep = batched if batched is not None else not (unfit or shared)

    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=len(indices), unit="game", desc="arena", file=sys.stderr, smoothing=0.05)
        except ImportError:  # pragma: no cover - tqdm is in the train extra
            bar = None
    records: list[tuple[int, dict[str, Any]]] = []
    try:
        if workers == 1 and lockstep:
            records = play_lockstep(g, players, cast(list[str], modes), labels, cycle, seed, indices, batch_size,
                                    on_done=bar.update if bar is not None else None, duplicate=duplicate)
        elif workers == 1:
            step = max(1, min(chunk, 100))
            for start in range(0, len(indices), step):
                part = indices[start: start + step]
                records += _play_indices(g, players, labels, cycle, seed, part, duplicate)
                if bar is not None:
                    bar.update(len(part))
        else:
            from concurrent.futures import ProcessPoolExecutor, as_completed

            # lockstep: parts of several batches, so that finished games' slots are refilled within a part
            size = max(chunk, 4 * batch_size) if lockstep else chunk
            size = min(size, -(-len(indices) // workers))  # every worker gets work
            parts = [indices[i: i + size] for i in range(0, len(indices), size)]
            # more processes than parts idle, more than CPUs only contend: the table is the same either way
            with ProcessPoolExecutor(max_workers=min(workers, len(parts), available_cpus()),
                                     initializer=_worker_init,
                                     initargs=(cfg, players, labels, cycle, seed,
                                               batch_size if lockstep else 0, duplicate)) as pool:
                futures = [pool.submit(_worker_run, p) for p in parts]
                for fut in as_completed(futures):
                    res = fut.result()
                    records += res
                    if bar is not None:
                        bar.update(len(res))
    finally:
        if bar is not None:
            bar.close()
    records.sort(key=lambda r: r[0])
    if record_dir is not None:
        from uno_env.record import save_arena_games

        save_arena_games(record_dir, cfg, [(i, [labels[a] for a in cycle[i % len(cycle)]], rec) for i, rec in records])

    stats = [AgentStats(name=lab) for lab in labels]
    seat_wins = [0] * n
    truncated = 0
    total_len = 0
    for i, rec in records:
        lineup = cycle[i % len(cycle)]
        total_len += rec["length"]
        if rec["truncated"]:
            truncated += 1
        else:
            seat_wins[rec["winner"]] += 1
        for a in set(lineup):
            s = stats[a]
            s.games += 1
            s.length += rec["length"]
            seats = [seat for seat, who in enumerate(lineup) if who == a]
            s.seats += len(seats)
            s.points += sum(rec["scores"][seat] for seat in seats)
            if rec["truncated"]:
                s.truncated += 1
            elif rec["winner"] in seats:
                s.wins += 1
    if duplicate:
        deal_wins = np.zeros((m, len(records) // m), dtype=np.int64)
        for i, rec in records:
            if not rec["truncated"]:
                deal_wins[cycle[i % len(cycle)][rec["winner"]], duplicate_deal(i, m)] += 1
        for a, s in enumerate(stats):
            s.deals = deal_wins.shape[1]
            s.deal_sd = float((deal_wins[a] / m).std(ddof=1)) if s.deals > 1 else 0.0
    if ratings is None:
        ratings = m >= 3
    if ratings:
        _rate(records, cycle, stats)
    return ArenaResult(
        game=g.name,
        num_players=n,
        games=len(records),
        seed=int(seed),
        rules=cfg.to_dict(),
        agents=stats,
        truncated=truncated,
        mean_length=total_len / max(len(records), 1),
        cycle_length=len(cycle),
        seat_wins=seat_wins,
        duplicate=bool(duplicate),
    )


def against_baselines(agent: Any, opponents: Sequence[str], game: str, num_players: int | None, rules: Any,
                      games: int, seed: int, workers: int = 1, progress: bool = False,
                      confidence: float = 0.95, duplicate: bool = False) -> list[dict[str, Any]]:
    """The evaluation both trainers run: ``agent`` alone against one baseline in every other seat, per baseline.

    One row per baseline: ``opponent, games, wins, draws, win_rate, ci_low, ci_high, interval, mean_length,
    seconds``; ``interval`` says which: ``"wilson"`` (Wilson's at ``confidence``) or, with ``duplicate``, ``"over
    deals"`` (see :func:`run_arena`).
    Seats rotate and every game is seeded from ``(seed, index)``, as in :func:`run_arena`.
    """
    import time
    from statistics import NormalDist

    from uno_env.config import make_rules

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
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env evaluate``."""
    parser.add_argument("agents", nargs="+", metavar="AGENT",
                        help="agents to play: baseline names (random, greedy, heuristic) or saved policies "
                             "(runs/NAME/policy.npz, or a run directory); repeat a name to play copies")
    parser.add_argument("--game", default="classic", choices=("classic", "pocket", "dice"), help="which game")
    parser.add_argument("-n", "--num-players", type=int, default=None,
                        help="seats at the table (default: the rules' number, 2)")
    parser.add_argument("--rules", default=None,
                        help="rules preset name (e.g. standard, rlcard) or path of a rules YAML file")
    parser.add_argument("-g", "--games", type=int, default=1000, help="number of games (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed; the same seed reproduces the table (default 0)")
    parser.add_argument("-w", "--workers", type=int, default=1, help="processes to spread games over (default 1)")
    parser.add_argument("--json", metavar="PATH", default=None, help="also write the results as JSON to PATH")
    parser.add_argument("--ratings", action="store_true",
                        help="rate with OpenSkill even with two agents (always done for 3 or more)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--trust-pickle", action="store_true",
                        help="also load Stable-Baselines3 .zip files and RLlib checkpoints: they unpickle, so a "
                             "crafted file runs code; use only for files you trust")
    parser.add_argument("--batch-size", type=int, default=256, metavar="N",
                        help="games played at once in lockstep, one act_batch call per agent and round (default 256)")
    parser.add_argument("--sequential", action="store_true",
                        help="play one game at a time (the same games and results; by default the arena plays in "
                             "lockstep batches when every agent supports it)")
    parser.add_argument("--duplicate", action="store_true",
                        help="play every deal once with each block order (as duplicate bridge) and compute the "
                             "intervals over deals: the luck of the cards cancels, so small edges show in fewer "
                             "games; 2 to N agents, GAMES a multiple of their number")
    parser.add_argument("--record", metavar="DIR", default=None,
                        help="save every game as a replayable record DIR/game_NNNNNN.json (see uno-env replay)")


def run(args: argparse.Namespace) -> int:
    """``uno-env evaluate``: play the agents against each other and print (or save) the table; returns the exit status.
    """
    from uno_env.agents.registry import UnknownAgentError

    problem = _check_options(args)
    if problem:
        print(f"uno-env evaluate: error: {problem}", file=sys.stderr)
        return 2
    progress = not args.quiet and sys.stderr.isatty()
    try:
        result = run_arena(args.agents, game=args.game, num_players=args.num_players, rules=args.rules,
                           games=args.games, seed=args.seed, workers=args.workers, progress=progress,
                           ratings=True if args.ratings else None, allow_pickle=args.trust_pickle,
                           record_dir=args.record, batched=False if args.sequential else None,
                           batch_size=args.batch_size, duplicate=args.duplicate)
    except (UnknownAgentError, OSError, ValueError, TypeError, ImportError, IllegalAgentActionError) as exc:
        print(f"uno-env evaluate: error: {exc}", file=sys.stderr)
        return 2
    print(format_table(result))
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump(result.to_dict(), fh, indent=2)
                fh.write("\n")
        except OSError as exc:
            print(f"uno-env evaluate: error: --json {args.json!r}: cannot write it: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
    return 0


def _check_options(args: argparse.Namespace) -> str | None:
    """What is wrong with the numbers and the output path of the command line, or None; checked before any game is
    played, so that a typo does not cost the whole run."""
    if not 1 <= args.games <= MAX_GAMES:
        return f"--games must be from 1 to {MAX_GAMES:,}, got {args.games}"
    if not 1 <= args.workers <= MAX_WORKERS:
        return f"--workers must be from 1 to {MAX_WORKERS}, got {args.workers}"
    if not 0 <= args.seed <= SEED_MAX:
        return f"--seed must be from 0 to {SEED_MAX}, got {args.seed}"
    if args.batch_size < 1:
        return f"--batch-size: batch_size must be a positive integer, got {args.batch_size}"
    if args.json:
        return _check_output_file("--json", args.json)
    return None


def _check_output_file(option: str, path: str) -> str | None:
    if "\0" in path:
        return f"{option} {path!r}: a path cannot hold a NUL character"
    if os.path.isdir(path):
        return f"{option} {path!r} is a directory; give a file path, e.g. {os.path.join(path, 'results.json')}"
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"{option} {path!r}: the directory {parent!r} does not exist"
    target = path if os.path.exists(path) else parent
    if not os.access(target, os.W_OK):
        return f"{option} {path!r}: {target!r} is not writable"
    return None

