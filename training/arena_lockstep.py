"""Lockstep play: many arena games at once, each agent asked once per round for all its decisions.

:func:`play_lockstep` plays ``batch_size`` games at a time: each round, every unfinished game's seat to act is
observed (compiled), the decisions are grouped by the agent that makes them, each agent's ``act_batch`` is called
once for its group, and every game is stepped (compiled, ``_lockstep.step_rows``).  It plays exactly the games of
the one-game-at-a-time arena (:func:`~uno_env.training.arena_games.play_indices`): each game keeps its deal, its
lineup and each agent's random stream for that game, so every record is the same.  :func:`lockstep_mode` says
whether and how an agent can be played so.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from uno_env.agents.greedy import GreedyAgent
from uno_env.agents.heuristic import HeuristicAgent
from uno_env.agents.policy import NumpyPolicyAgent
from uno_env.agents.random_agent import RandomAgent
from uno_env.agents.rlcard_rule import RLCardRuleAgent
from uno_env.core import engine as E
from uno_env.core.layout import MAX_PLAYERS, PHASE_NAMES, StateView
from uno_env.vector import game_seed

from ._lockstep import start_game, step_rows
from .arena_duplicate import arena_seeds
from .arena_games import IllegalAgentActionError, IndexedRecord, play_indices

__all__ = ["STATELESS", "ROW_STREAMS", "ROW_LOOP", "LOCKSTEP_MODES", "lockstep_mode", "play_lockstep"]

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

    The built-in agents need no attribute: ``heuristic`` and a deterministic numpy policy
    are ``stateless``, ``random``, ``greedy`` and a sampling numpy policy ``row_streams`` (``greedy`` in UNO Dice
    and ``rlcard-rule`` ``row_loop``).  Agents that need the state (``ismcts``), a person (``human``), torch
    policies (SB3, RLlib: their float rounding depends on the batch size) and unknown agents are played one game at
    a time.
    """
    declared = getattr(agent, "arena_lockstep", None)
    if declared is not None:
        return _declared_mode(agent, declared)
    if getattr(agent, "needs_state", False):
        return None
    kind = type(agent)  # exact types: a subclass may change how it chooses
    if kind is HeuristicAgent:  # its compiled player reads the row alone
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


def _declared_mode(agent: Any, declared: Any) -> str:
    """An agent's own ``arena_lockstep``, checked against what that mode needs of it."""
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


class _IllegalInBatch(Exception):
    """An agent's illegal choice in a lockstep round (turned into :class:`IllegalAgentActionError`)."""

    def __init__(self, slot: int, action: int):
        super().__init__(slot, action)
        self.slot = slot
        self.action = action


class _Slots:
    """The games in play, one per slot: their compiled states, the seat to act and its observation and mask, each
    game's index, lineup, deal seed, agents' streams, summed rewards and actions so far; a finished game's slot takes
    the next game of the queue."""

    def __init__(self, game, players: Sequence[Any], modes: Sequence[str], cycle: Sequence[tuple[int, ...]],
                 seed: int, indices: Sequence[int], batch_size: int, duplicate: bool):
        self.game, self.players, self.modes, self.cycle = game, players, modes, cycle
        self.seed, self.duplicate = seed, duplicate
        n, m = game.num_players, len(players)
        self.queue = indices if isinstance(indices, range) else list(indices)
        slots = max(1, min(int(batch_size), len(self.queue)))
        self.states, self.rngs = game.new_states(slots)
        self.masks = np.zeros((slots, game.num_actions), dtype=np.int8)
        self.obs = np.zeros((slots, game.obs_dim), dtype=np.float32)
        self.seats = np.full(slots, -1, dtype=np.int64)
        self.rew = np.zeros((slots, MAX_PLAYERS), dtype=np.float32)
        self.totals = np.zeros((slots, n), dtype=np.float64)
        self.log = np.zeros((slots, 256), dtype=np.int32)
        self.lengths = np.zeros(slots, dtype=np.int64)
        self.lineup_of = np.zeros((slots, n), dtype=np.int64)  # agent index at each seat of each slot's game
        self.game_of = np.full(slots, -1, dtype=np.int64)
        self.deal_of = [0] * slots
        self.streams: list[dict[int, np.random.Generator]] = [{} for _ in range(slots)]
        #: the agents with a random stream, and the stream each had before the run (given back at the end)
        self.saved_rngs = {a: players[a].rng for a in range(m) if modes[a] in (ROW_STREAMS, ROW_LOOP)}
        self.records: list[IndexedRecord] = []
        self.next_game = 0

    def start(self, slot: int) -> None:
        """Deal the next game of the queue in ``slot``."""
        g = self.game
        i = self.queue[self.next_game]
        self.next_game += 1
        lineup = self.cycle[i % len(self.cycle)]
        deal_seed, agent_seeds = arena_seeds(self.seed, i, len(self.players), self.duplicate)
        self.game_of[slot] = i
        self.deal_of[slot] = deal_seed
        self.lineup_of[slot] = lineup
        self.streams[slot] = {a: np.random.default_rng(agent_seeds[a]) for a in set(lineup) if a in self.saved_rngs}
        self.totals[slot] = 0.0
        self.lengths[slot] = 0
        self.seats[slot] = start_game(self.states[slot], self.rngs[slot], g.cfg, g.spec, g.dice, g.obs_offsets,
                                      game_seed(int(deal_seed)), self.masks[slot], self.obs[slot])
        if self.states[slot, E.S_DONE] != 0:
            self.seats[slot] = -1

    def refill(self, slot: int) -> int:
        """Start the next games in ``slot`` until one has a decision to make; returns how many finished at once."""
        over = 0
        while self.next_game < len(self.queue):
            self.start(slot)
            if self.seats[slot] >= 0:
                break
            self.finish(slot)  # over at the deal: nothing to decide, as play_game records it
            over += 1
        return over

    def finish(self, slot: int) -> None:
        """Record the game of ``slot``, which is over."""
        view = StateView(self.states[slot])
        truncated = view.done == 2
        self.records.append((int(self.game_of[slot]), {
            "winner": -1 if truncated else view.match_winner,
            "length": view.turns,
            "scores": [int(x) for x in view.scores[:self.game.num_players]],
            "truncated": truncated,
            "seed": int(self.deal_of[slot]),
            "actions": self.log[slot, : self.lengths[slot]].copy(),
            "rewards": [float(x) for x in self.totals[slot]],
        }))
        self.game_of[slot] = -1

    def decide(self, active: np.ndarray, labels: Sequence[str]) -> np.ndarray:
        """The actions of the games ``active``, each agent asked once for its rows; ``_IllegalInBatch`` at the first
        illegal one."""
        who = self.lineup_of[active, self.seats[active]]
        actions = np.empty(active.size, dtype=np.int64)
        for a in np.unique(who):
            sel = np.flatnonzero(who == a)
            rows = active[sel]
            row_streams = [self.streams[s][a] for s in rows] if a in self.saved_rngs else None
            acts = _batch_actions(self.players[a], self.modes[a], labels[a], self.obs[rows], self.masks[rows],
                                  row_streams)
            ok = (acts >= 0) & (acts < self.game.num_actions)
            ok[ok] = self.masks[rows[ok], acts[ok].astype(np.int64)] != 0
            if not ok.all():
                bad = int(np.flatnonzero(~ok)[0])
                raise _IllegalInBatch(int(rows[bad]), int(acts[bad]))
            actions[sel] = acts
        return actions

    def step(self, active: np.ndarray, actions: np.ndarray) -> None:
        """Play ``actions`` (checked legal) in the games ``active``."""
        g = self.game
        if self.lengths[active].max() >= self.log.shape[1]:
            self.log = np.concatenate([self.log, np.zeros_like(self.log)], axis=1)
        if step_rows(self.states, self.rngs, g.cfg, g.spec, g.dice, g.obs_offsets, active, actions, self.masks,
                     self.rew, self.totals, self.log, self.lengths, self.seats, self.obs) >= 0:
            # checked legal above: a failure here is the core's
            raise RuntimeError("the lockstep arena stepped an action the core refused")

    def play(self, labels: Sequence[str], on_done: Any) -> None:
        """Play every game of the queue."""
        over = sum(self.refill(slot) for slot in range(len(self.seats)))
        while True:
            if over and on_done is not None:
                on_done(over)
            active = np.flatnonzero(self.seats >= 0)
            if active.size == 0:
                break
            self.step(active, self.decide(active, labels))
            over = 0
            for slot in active[self.seats[active] < 0]:
                self.finish(slot)
                over += 1 + self.refill(slot)

    def give_back_rngs(self) -> None:
        for a, rng in self.saved_rngs.items():
            self.players[a].rng = rng

    def illegal(self, exc: _IllegalInBatch, labels: Sequence[str]) -> IllegalAgentActionError:
        """The error the one-game-at-a-time arena raises for the same games: the unfinished games up to the failing
        one are replayed one at a time, so that the first illegal action in game order, and so the error, is
        exactly the sequential arena's (the finished games played the same and were legal)."""
        self.give_back_rngs()
        finished = {i for i, _ in self.records}
        failing = int(self.game_of[exc.slot])
        play_indices(self.game, self.players, labels, self.cycle, self.seed,
                     [i for i in self.queue if i not in finished and i <= failing], self.duplicate)
        view = StateView(self.states[exc.slot])
        name = self.game.action_names[exc.action] if 0 <= exc.action < self.game.num_actions else "out of range"
        return IllegalAgentActionError(
            f"agent {labels[self.lineup_of[exc.slot, view.cur]]} at seat {view.cur} chose the illegal action "
            f"{exc.action} ({name}) in phase {PHASE_NAMES[view.phase]!r}")


def play_lockstep(game, players: Sequence[Any], modes: Sequence[str], labels: Sequence[str],
                  cycle: Sequence[tuple[int, ...]], seed: int, indices: Sequence[int], batch_size: int = 256,
                  on_done: Any = None, duplicate: bool = False) -> list[IndexedRecord]:
    """Play the games ``indices`` up to ``batch_size`` at a time in lockstep; the records
    :func:`~uno_env.training.arena_games.play_game` gives.

    Each round, every unfinished game's seat to act is observed (compiled), the decisions are grouped by the agent
    that makes them, each agent's ``act_batch`` is called once for its group, and every game is stepped (compiled,
    ``_lockstep.step_rows``); a finished game's slot takes the next game.  Game ``i`` keeps its deal seed and lineup
    and an agent with a random stream gets game ``i``'s stream (:func:`~uno_env.training.arena_duplicate.arena_seeds`,
    ``duplicate`` as there), so every record equals the one-game-at-a-time arena's (``modes``: :func:`lockstep_mode`
    of each player).  ``on_done(k)`` is called as ``k`` more games finish.
    """
    slots = _Slots(game, players, modes, cycle, seed, indices, batch_size, duplicate)
    threads = None
    try:
        threads = _one_blas_thread()
        slots.play(labels, on_done)
    except _IllegalInBatch as exc:
        raise slots.illegal(exc, labels) from None
    finally:
        slots.give_back_rngs()
        if threads is not None:
            threads.restore_original_limits()
    slots.records.sort(key=lambda r: r[0])
    return slots.records


def _one_blas_thread() -> Any:
    """Limit BLAS to one thread while the lockstep arena runs (undone by ``restore_original_limits``), or None
    without threadpoolctl.  A batch's matrix products are small: OpenBLAS's threads gain nothing there and, on a
    busy machine or beside other arena workers, spin against each other (the arena ran 3-5x slower)."""
    try:  # threadpoolctl is in the train extra: a core install plays without it
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - in the train extra
        return None
    return threadpool_limits(limits=1, user_api="blas")
