"""``ismcts``: information-set Monte Carlo tree search on the compiled core (single-observer ISMCTS).

The search (``uno_env.core.search``) runs every simulation in compiled code on a state sampled from what the
acting seat knows (``uno_env.core.determinize``), expands its tree with the actions legal in the sample and
finishes the round with a compiled rollout policy.  See those modules for the algorithm and for exactly what a
sample keeps and redraws.

A search needs the game state, not only the observation vector: like OpenSpiel's bots, the agent is handed the
whole state (:meth:`ISMCTSAgent.act_from_state`) and reads it only through the determinization, which copies
the seat's own information and redraws the rest (tests: two states that differ only in what the seat cannot
see give the same decisions).  The arena, ``uno-env play`` and the Gymnasium opponents call it that way (they
check the agent's ``needs_state`` flag); :meth:`act` on an observation alone raises, since an observation does
not hold enough to rebuild a state.

Budget: ``sims`` simulations per decision (the default; reproducible: the same seed and states give the same
choices) or ``ms`` milliseconds per decision (the search stops between batches of simulations; the result then
depends on the machine's speed).  A decision with one legal action is taken without searching.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from uno_env.core import engine as E
from uno_env.core import search as S
from uno_env.core.invariants import FAILURE_NAMES, check_state
from uno_env.core.layout import MAX_ITEMS, MAX_PLAYERS, STATE_LEN

from .base import BaseAgent, NoLegalActionError

__all__ = ["ISMCTSAgent", "DEFAULT_SIMS", "DEFAULT_ROLLOUT", "DEFAULT_C", "DEFAULT_HORIZON", "ISMCTS_ARGUMENTS"]

#: the default budget and rollout policy (chosen by a pilot: see the README's arena table)
DEFAULT_SIMS = 200
DEFAULT_ROLLOUT = "greedy"
#: UCB1 exploration constant (wins are 0/1 per simulation)
DEFAULT_C = 0.7
#: rollout decisions before a simulation is scored from the hand sizes (0: play the round out)
DEFAULT_HORIZON = 0
MAX_SIMS = 1_000_000
MAX_MS = 600_000.0
#: batch of simulations between two clock reads under a time budget
_TIME_BATCH = 16
#: tree size under a time budget (the tree stops growing there; simulations go on as rollouts from its leaves)
_TIME_NODES = 50_000

#: the arguments ``ismcts:sims=400,rollout=greedy`` may set, with what each accepts
ISMCTS_ARGUMENTS: dict[str, str] = {
    "sims": f"simulations per decision, an integer 1..{MAX_SIMS} (default {DEFAULT_SIMS})",
    "ms": f"milliseconds per decision instead of a number of simulations, 0 < ms <= {MAX_MS:g} (not reproducible)",
    "rollout": f"rollout policy: one of {', '.join(S.ROLLOUTS)} (default {DEFAULT_ROLLOUT})",
    "c": f"UCB1 exploration constant, 0 <= c <= 100 (default {DEFAULT_C})",
    "horizon": f"rollout decisions before the position is scored from the hand sizes, an integer 0..100000; "
               f"0 plays the round out (default {DEFAULT_HORIZON})",
}


def _number(name: str, value: Any, kind: type, lo: float, hi: float, lo_open: bool = False):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"ismcts: {name} must be a number ({ISMCTS_ARGUMENTS[name]}); got {value!r}")
    if kind is int and float(value) != int(value):
        raise ValueError(f"ismcts: {name} must be an integer ({ISMCTS_ARGUMENTS[name]}); got {value!r}")
    v = kind(value)
    if not (lo < v if lo_open else lo <= v) or not v <= hi or v != v:
        raise ValueError(f"ismcts: {name}={value!r} is out of range ({ISMCTS_ARGUMENTS[name]})")
    return v


class ISMCTSAgent(BaseAgent):
    """Single-observer ISMCTS with compiled simulations; ``sims`` or ``ms`` budget, configurable rollout."""

    name = "ismcts"
    #: the shells hand this agent the game state (``act_from_state``) instead of the observation
    needs_state = True

    def __init__(self, game: Any = "classic", seed: int | None = None, sims: int | None = None,
                 ms: float | None = None, rollout: str = DEFAULT_ROLLOUT, c: float = DEFAULT_C,
                 horizon: int = DEFAULT_HORIZON):
        super().__init__(game, seed)
        if sims is not None and ms is not None:
            raise ValueError("ismcts: give a budget of sims or of ms, not both")
        self.ms = None if ms is None else _number("ms", ms, float, 0.0, MAX_MS, lo_open=True)
        self.sims = None if self.ms is not None else _number("sims", DEFAULT_SIMS if sims is None else sims, int,
                                                             1, MAX_SIMS)
        if rollout not in S.ROLLOUTS:
            raise ValueError(f"ismcts: rollout must be one of {', '.join(S.ROLLOUTS)}; got {rollout!r}")
        self.rollout = rollout
        self.c = _number("c", c, float, 0.0, 100.0)
        self.horizon = _number("horizon", horizon, int, 0, 100_000)
        self._policy = S.ROLLOUTS.index(rollout)
        self._word = np.zeros(1, dtype=np.uint64)
        self._seed_word(seed)
        self._tree_nodes = 0
        a = self.num_actions
        self._s = np.zeros(STATE_LEN, dtype=np.int32)
        self._srng = np.zeros(1, dtype=np.uint64)
        self._mask = np.zeros(a, dtype=np.int8)
        self._root_mask = np.zeros(a, dtype=np.int8)
        self._rew = np.zeros(MAX_PLAYERS, dtype=np.float32)
        self._pool = np.zeros(MAX_ITEMS, dtype=np.int32)
        self._score = np.zeros(a, dtype=np.float64)
        self._colours = np.zeros(5, dtype=np.int64)
        self._counters = np.zeros(S.T_LEN, dtype=np.int64)
        self._value = np.zeros(MAX_PLAYERS, dtype=np.float32)
        #: statistics of the last search: per-action root visits and win rates, simulations, decisions, seconds
        self.last_search: dict[str, Any] = {}

    # ------------------------------------------------------------------------------------------ seeding
    def _seed_word(self, seed: int | None) -> None:
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
        E.seed_rng(self._word, int(seed) & (2**63 - 1))

    def reset(self, seed: int | None = None) -> None:
        """Reseed the search's random stream (``None``: fresh entropy)."""
        super().reset(seed)
        self._seed_word(seed)

    def __getstate__(self):
        d = dict(self.__dict__)
        for key in ("_child", "_visits", "_avail", "_wins", "_path"):
            d.pop(key, None)
        d["_tree_nodes"] = 0
        return d

    # ------------------------------------------------------------------------------------------ acting
    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """Not available: a search needs the game state.  Use :meth:`act_from_state` (the shells do)."""
        raise TypeError(
            "ismcts searches from the game state, which an observation does not hold: call "
            "act_from_state(state_row) (the arena, `uno-env play` and Gymnasium opponents do this themselves)")

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Not available (see :meth:`act`): the batched simulator's opponents act on observations only."""
        self.act(None)
        raise AssertionError  # pragma: no cover - act raises

    def _ensure_tree(self, nodes: int) -> None:
        if self._tree_nodes >= nodes:
            return
        a = self.num_actions
        self._child = np.full((nodes, a), -1, dtype=np.int32)
        self._visits = np.zeros(nodes, dtype=np.int32)
        self._avail = np.zeros(nodes, dtype=np.int32)
        self._wins = np.zeros((nodes, MAX_PLAYERS), dtype=np.float32)
        self._path = np.zeros(nodes + 1, dtype=np.int32)
        self._tree_nodes = nodes

    def act_from_state(self, state: np.ndarray, seat: int | None = None) -> int:
        """The search's action for the seat to act in ``state`` (an int32 state row of this game).

        The state is read only through the determinization: what the seat to act cannot see is redrawn in every
        simulation.  ``seat``, when given, must be the seat to act.
        """
        g = self.game
        st = np.asarray(state)
        if st.dtype != np.int32 or st.shape != (STATE_LEN,):
            raise ValueError(f"ismcts: state must be an int32 state row of length {STATE_LEN}; got {st.dtype} "
                             f"{st.shape}")
        bad = check_state(st, g.cfg, g.spec, g.dice)
        if bad:
            raise ValueError(f"ismcts: the state breaks an invariant ({FAILURE_NAMES[bad]})")
        cur = int(st[E.S_CUR])
        if seat is not None and int(seat) != cur:
            raise ValueError(f"ismcts: seat {seat} is not the seat to act ({cur})")
        mask = self._root_mask
        if E.legal_mask(st, g.cfg, g.spec, g.dice, mask) == 0:
            raise NoLegalActionError(f"{self.name}: no legal action (the game is over)")
        legal = np.flatnonzero(mask)
        t0 = time.perf_counter()
        if legal.size == 1:
            self.last_search = {"simulations": 0, "decisions": 0, "seconds": 0.0, "action": int(legal[0])}
            return int(legal[0])
        self._ensure_tree(_TIME_NODES if self.sims is None else self.sims + 1)
        child, visits, avail, wins, counters = self._child, self._visits, self._avail, self._wins, self._counters
        S.tree_reset(child, visits, avail, wins, counters)
        args = (self._policy, self.c, self.horizon, self._word, child, visits, avail, wins, counters, self._s,
                self._srng, self._mask, self._rew, self._pool, self._path, self._score, self._colours, self._value)
        if self.ms is None:
            code = S.search(st, g.cfg, g.spec, g.dice, cur, self.sims, *args)
        else:
            deadline = t0 + self.ms / 1000.0
            code = 0
            while code == 0 and (counters[S.T_SIMS] == 0 or time.perf_counter() < deadline):
                code = S.search(st, g.cfg, g.spec, g.dice, cur, _TIME_BATCH, *args)
        if code != 0:
            raise ValueError("ismcts: the state's public card counts are inconsistent (cannot sample it)")
        n_visits = np.zeros(mask.shape[0], dtype=np.int64)
        value = np.zeros(mask.shape[0], dtype=np.float64)
        action = int(S.root_choice(child, visits, wins, mask, cur, n_visits, value))
        self.last_search = {
            "simulations": int(counters[S.T_SIMS]), "decisions": int(counters[S.T_DECISIONS]),
            "seconds": time.perf_counter() - t0, "action": action,
            "visits": {int(a): int(n_visits[a]) for a in legal}, "win_rate": {int(a): float(value[a]) for a in legal},
        }
        return action

    def __repr__(self) -> str:
        budget = f"ms={self.ms:g}" if self.ms is not None else f"sims={self.sims}"
        return (f"ISMCTSAgent(game={self.game.name!r}, num_players={self.game.num_players}, {budget}, "
                f"rollout={self.rollout!r}, c={self.c:g}, horizon={self.horizon}, seed={self._seed})")
