"""``ismcts``: search on the compiled core from what the acting seat knows.

Every simulation runs in compiled code (``uno_env.players.search``) on a state sampled from the acting seat's
information (``uno_env.players.determinize``); see those modules for the algorithms and for exactly what a sample
keeps and redraws.  Two searches (``mode``):

* ``flat`` (the default in classic and pocket, and in UNO Dice at 2 players): one-step policy improvement with
  common random numbers. On each of up to 100 samples (300 in classic at 4 or more players) every legal action is
  played and the round finished by the rollout policy (``heuristic``: the ``heuristic`` agent itself, playing every
  seat from its own observation of the sample; ``greedy`` in UNO Dice), all actions with the same sample and random
  stream; the agent plays a base policy's choice unless another action beats it by a paired z-test (``z``) over the
  shared samples; after every 10 samples (from 20 on) it stops sampling an action whose paired gain is below 0 by
  ``prune`` standard errors or that matched that choice on every sample, and stops altogether when only that choice
  is left.  The base policy (``prior``) is the table's shipped ``ppo`` policy at 2 players under the rules it was
  trained for (:data:`PRIOR_PPO_TABLES`, :func:`default_prior`), else the rollout policy; ``prior=<file>.npz``
  searches from a saved policy of your own (or an earlier shipped one).  The other seats are
  modelled as the ``heuristic`` agent, so against that agent it is partly tuned to its opponent.
* ``tree`` (the default in UNO Dice at 3-4 players): single-observer ISMCTS (one tree of action sequences shared by
  every sample, UCB1 with availability counts at every seat's nodes, the round finished by the rollout policy);
  ``opp=model`` plays the other seats in the tree by the rollout policy instead, ``bias`` adds a progressive
  bias toward the rollout policy's choice at the searcher's nodes.

Why these defaults (pilots against ``heuristic``, 300 games each, seed 1, 2-player classic unless said): SO-ISMCTS
with greedy rollouts (the earlier default) 39.0% [33.7, 44.6]; with heuristic rollouts 45.0% [39.5, 50.7]; with the
opponents modelled as the heuristic in the tree 45.0% [39.5, 50.7], plus a progressive bias 46.3% [40.8, 52.0]; flat
with 50 samples, best mean 47.3% [41.8, 53.0]; flat with the paired test (``z=2``) 57.3% [51.7, 62.8] (4-player
classic 51.7% [46.0, 57.3], 2-player pocket 54.7% [49.0, 60.2]); in 4-player classic 100 samples won 54.3% [48.7,
59.9], and 100 samples with pruning (``prune=1``: it stops sampling an action clearly worse than the heuristic's
choice, which made 100 samples cost about 1.2 times 50 unpruned ones) 57.0% [51.3, 62.5], hence the default. The
tree's root statistics are noisy enough to pick worse moves than the heuristic's; the paired test only leaves the
heuristic's choice on evidence. In UNO Dice, where every hand is public and only future rolls are sampled, the tree
with greedy rollouts won 64.0% [58.4, 69.2] against flat's 51.3% [45.7, 56.9] (2 players; 4 players 55.0% [48.1,
61.7] against 54.5% [47.6, 61.3] in 200 games).

At 4 players 100 samples are level with the heuristic in classic (2,000 games: 50.1% [48.0, 52.3]) and narrowly ahead
in pocket (50.9% [48.7, 53.1] over 2,000 games, 52.5% [51.5, 53.4] over 10,000): a seat's own win among four is a rare,
noisy outcome of a long rollout, so 100 samples seldom show a better action.
``0f57e19:benchmarks/search_oracle.py`` scores a
variant's decisions on the states of 40 heuristic games against a 2,000-sample estimate of every action's gain (4
players; the searching seat's own win per game, summed, under the search's model): rounds played out (the default) 0.10
in classic and 0.02 in pocket; ``horizon=20`` 0.37 and 0.33 at about a fifth of the CPU time; ``horizon=10`` 0.28;
``z=1.5`` 0.15; 300 samples 0.38, with ``horizon=20`` 0.44; the 2,000-sample estimate itself finds 1.05 and 0.97
(``0f57e19:benchmarks/results/arena/ismcts_pilots/oracle_*``). That gain did not show in the arena:
``ismcts:horizon=20``
against the heuristic at 4 players won 49.1% [47.9, 50.4] in classic (6,000 games) and 51.8% [49.6, 54.0] in pocket
(2,000 games), neither interval above 50% nor clear of the default's, so the default still plays the round out. Possible
reasons, not tested: the gain is measured under the search's own model (every other seat the heuristic, hidden cards
dealt uniformly), while the real seats' hands are not uniform given what they played; and a seat's gain is partly taken
from the other searching seat.

Three times the samples (``ismcts:sims=300``: the oracle's 0.38 against 0.10; about three times the time a decision)
won 51.3% [49.1, 53.5] in 4-player classic and 51.1% [48.9, 53.3] in pocket (2,000 games each, seed 0), a point above
100 samples; in classic over 8,000 games (seeds 0-3) 51.9% [50.8, 53.0], above 50%
(``0f57e19:benchmarks/results/arena/ismcts_2v2_sims300/``), and one such seat among three heuristics 25.6% [24.7, 26.6]
(below), 0.7 points above 100 samples on the same deals but not clear of 25%. So in classic at 4 or more players,
where a seat's own win is the rarest and its gains the most diluted, the default is 300 samples
(:data:`DEFAULT_SIMS_CLASSIC_MANY`, :func:`default_sims`): stronger at both tables, about 18 ms of CPU a decision.

One searcher among three heuristics (so that no second searcher takes a share of its gains; an even share is 25%)
separates the two games: pocket 27.2% [26.3, 28.1] (10,000 games, seeds 0-4), classic 24.9% [24.0, 25.9] (8,000,
seeds 0-3; ``0f57e19:benchmarks/results/arena/ismcts_1v3/``); with ``sims=300`` on the same classic deals
25.6% [24.7, 26.6].
In 4-player classic the search finds little the heuristic misses, at any table.

Spending more samples only on close calls (a pilot, not merged: when the first 100 samples leave a challenger
between 1 and ``z`` standard errors above the heuristic's choice, sample on to N and test once more there) scored
no better under ``search_oracle.py`` than ``sims=300`` at the same CPU time (0.34, 0.19 and 0.44 for N = 300, 600,
1,000 against 0.38; ``ismcts_pilots/oracle_classic_4p_extend.txt``). Those scores rest on about
ten departures in 40 games and move by a factor of two between neighbouring settings: the oracle ranks only large
differences.

Inference from draws was tried and gave nothing: a branch recorded, per seat, what it drew on (top card, colour,
hand size) and dealt samples in which a seat that drew held nothing playable then (``draws=model``: the heuristic
and greedy draw only when they must; the rules allow a voluntary draw, so it is not a rule). Against the heuristic
(seed 0, rounds played out): 4-player classic 49.5% [47.3, 51.6] (2,000 games; with ``horizon=20`` 49.9%, ``z=1``
48.0%, 1,000 games), 4-player pocket 51.7% [48.6, 54.8], 2-player classic 52.4% [49.3, 55.5] (1,000 games), none
above the search without it. Three more state fields would have lengthened every game's row, so it was not
merged (the pilots: ``0f57e19:benchmarks/results/arena/ismcts_pilots/``).

Improving on the shipped policy (``prior=ppo``, 2,000 games a row, seed 0, 2 players): against ``ppo`` itself it
wins 53.3% [51.1, 55.5] in classic, 53.6% [51.5, 55.8] in pocket and 59.1% [56.9, 61.2] in UNO Dice, where improving
on the heuristic was level with it (classic 50.7% [48.5, 52.9]; 1,000 ladder games in pocket 52.7%, in UNO Dice with
the tree 49.6%); against the heuristic 54.0%, 56.4% and 72.2% (improving on the heuristic: 53.7%, 55.4%, the tree
64.2%, that one with the rollouts' die choice before its fix in :func:`uno_env.players.rollout.greedy_state_action`).
Those figures were against the PPO policies shipped then; the policies shipped now are this search distilled
(``classic2_distill``, ``pocket2_distill``, ``dice2_distill``), and the search from them wins 52.4% [50.3, 54.6]
(classic; 50.8% [50.3, 51.3] over 10,000 duplicate games), 50.9% [48.7, 53.1] (pocket; 51.5% [51.0, 52.0] over
10,000 duplicate games) and 55.3% [53.1, 57.5] (UNO Dice; 53.7% [52.9, 54.5] over 10,000 duplicate games) against
them, and 54.6%, 56.2% and 74.5% against the heuristic.
The policy's choice is one forward pass of a small network on the seat's observation, 0.1-0.15 ms.

A search needs the game state, not only the observation vector: like OpenSpiel's bots, the agent is handed the
whole state (:meth:`ISMCTSAgent.act_from_state`) and reads it only through the determinization, which copies
the seat's own information and redraws the rest (tests: two states that differ only in what the seat cannot
see give the same decisions), and through the seat's own observation (the base policy's choice at the root).
The arena, ``uno-env play`` and the Gymnasium opponents call it that way (they check the agent's
``needs_state`` flag); :meth:`act` on an observation alone raises, since an observation does not hold enough to
rebuild a state.

Budget: ``sims`` samples (flat) or simulations (tree) per decision (the default; reproducible: the same seed and
states give the same choices) or ``ms`` milliseconds per decision (the search stops between batches; the result
then depends on the machine's speed).  A decision with one legal action is taken without searching.
"""
from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from uno_env.core import engine as E
from uno_env.core.layout import MAX_ITEMS, MAX_PLAYERS, STATE_DTYPE, STATE_LEN
from uno_env.core.observe import observe_one
from uno_env.players import rollout as R
from uno_env.players import search as S
from uno_env.players.parameters import heuristic_weight_array
from uno_env.yaml_io import short_repr

from .base import BaseAgent, NoLegalActionError

__all__ = ["ISMCTSAgent", "DEFAULT_SIMS", "DEFAULT_SIMS_CLASSIC_MANY", "default_sims",
           "DEFAULT_ROLLOUT", "DEFAULT_C", "DEFAULT_HORIZON", "DEFAULT_Z",
           "ISMCTS_ARGUMENTS", "MODES", "OPPONENT_MODELS", "default_mode"]

#: the default budget per search mode (samples for ``flat``, simulations for ``tree``) and the default rollout
#: policy (chosen by pilots against the heuristic: see the docs' arena table)
DEFAULT_SIMS = {"flat": 100, "tree": 200}
#: flat samples in classic at 4 or more players: 100 were level with the heuristic there (see above)
DEFAULT_SIMS_CLASSIC_MANY = 300
DEFAULT_ROLLOUT = "heuristic"
#: UCB1 exploration constant (wins are 0/1 per simulation)
DEFAULT_C = 0.7
#: rollout decisions before a simulation is scored from the hand sizes (0: play the round out)
DEFAULT_HORIZON = 0
#: the search: ``flat`` (flat Monte Carlo with common random numbers, the default in the card games) or ``tree``
#: (SO-ISMCTS, the default in UNO Dice, where every hand is public and only the future rolls are sampled)
MODES = ("flat", "tree")


def default_mode(game: Any, prior: str | None = None) -> str:
    """The default search of a game: ``flat`` in the card games and wherever it improves on a shipped policy
    (``prior`` ``ppo``, or not given where :func:`default_prior` picks it), else ``tree`` (UNO Dice at 3-4 players,
    or with ``prior=rollout``, where the tree is the stronger search)."""
    if game.cfg[E.C_GAME] != E.GAME_DICE or (prior is not None and prior != "rollout"):  # ppo or a policy file
        return "flat"
    return "flat" if prior is None and _ppo_prior_available(game) else "tree"


def _ppo_prior_available(game: Any) -> bool:
    """Whether ``game``'s table is one of :data:`PRIOR_PPO_TABLES` and its rules are the ones its shipped policy was
    trained under (another rule set, even one with the same observation, is a game the policy never saw; a limit
    such as ``max_turns``, which cuts a game short without changing its play, is not another rule set)."""
    if (game.name, game.num_players) not in PRIOR_PPO_TABLES:
        return False
    from .ppo import rules_differences, shipped_policy_rules

    return not rules_differences(shipped_policy_rules(game.name, game.num_players), game.rules)


def default_prior(game: Any, mode: str) -> str:
    """The default ``prior`` of a search ``mode`` in ``game``: ``ppo`` in flat mode where the table's shipped policy
    beats the heuristic and was trained under these rules, else ``rollout``."""
    return "ppo" if mode == "flat" and _ppo_prior_available(game) else "rollout"


def default_sims(game: Any, mode: str) -> int:
    """The default budget of a search ``mode`` in ``game`` (a :class:`~uno_env.core.game.Game`)."""
    if mode == "flat" and game.cfg[E.C_GAME] == E.GAME_CLASSIC and game.num_players >= 4:
        return DEFAULT_SIMS_CLASSIC_MANY
    return DEFAULT_SIMS[mode]


#: the other seats' moves in the tree: ``search`` (their own UCB) or ``model`` (the rollout policy's)
OPPONENT_MODELS = ("search", "model")
DEFAULT_OPP = "search"
#: progressive bias toward the rollout policy's choice at the searcher's nodes (0: none)
DEFAULT_BIAS = 0.0
#: flat mode: the paired z-score by which an action must beat the base policy's choice (``prior``) to replace it
DEFAULT_Z = 2.0
#: flat mode: after every batch of samples, stop sampling an action whose paired gain over the base policy's
#: choice is below 0 by this many standard errors, or that matched it on every sample (0: never)
DEFAULT_PRUNE = 1.0
_PRUNE_BATCH = 10
#: flat mode: whose choice the search keeps unless another action is shown better (``rollout``: the rollout
#: policy's; ``ppo``: the shipped trained policy of the table, run on the seat's observation)
PRIORS = ("rollout", "ppo")
#: the tables where the search improves on the shipped policy by default (2 players in every game: the docs'
#: arena shows it beats both that policy and the heuristic).  The 4-player card games' policies are distilled from
#: this search with the heuristic as its base, and searching from them (``prior=ppo``) is level with them
#: (50.3-50.5% over 10,000 games, ``0f57e19:benchmarks/results/arena/ismcts_vs_ppo/prior_ppo_4p/``), so there the
#: search's
#: default stays the one they were taught by: improving on the heuristic.  In 4-player UNO Dice the flat search from
#: the policy beats it, but head to head it is level with the tree (49.7% over 4,000 games,
#: ``0f57e19:benchmarks/results/arena/dice4_distill/``), so the tree stays the default there
PRIOR_PPO_TABLES = frozenset({("classic", 2), ("pocket", 2), ("dice", 2)})
MAX_SIMS = 1_000_000
MAX_MS = 600_000.0
#: batch of simulations between two clock reads under a time budget
_TIME_BATCH = 16
#: tree size under a time budget (the tree stops growing there; simulations go on as rollouts from its leaves)
_TIME_NODES = 50_000
#: the ``kind`` of :meth:`ISMCTSAgent.get_rng_state`: a state from another agent's stream is refused
_RNG_STATE_KIND = "ismcts splitmix64"

#: the arguments ``ismcts:sims=400,rollout=greedy`` may set, with what each accepts
ISMCTS_ARGUMENTS: dict[str, str] = {
    "sims": f"samples (flat) or simulations (tree) per decision, an integer 1..{MAX_SIMS} (default "
            f"{DEFAULT_SIMS['flat']} flat ({DEFAULT_SIMS_CLASSIC_MANY} in classic at 4 or more players), "
            f"{DEFAULT_SIMS['tree']} tree)",
    "ms": f"milliseconds per decision instead of a number of simulations, 0 < ms <= {MAX_MS:g} (not reproducible)",
    "rollout": f"rollout policy: one of {', '.join(R.ROLLOUTS)} (default {DEFAULT_ROLLOUT})",
    "c": f"UCB1 exploration constant, 0 <= c <= 100 (default {DEFAULT_C})",
    "horizon": f"rollout decisions before the position is scored from the hand sizes, an integer 0..100000; "
               f"0 plays the round out (default {DEFAULT_HORIZON})",
    "mode": f"search: one of {', '.join(MODES)} (default flat, but tree in UNO Dice at 3-4 players or with "
            f"prior=rollout)",
    "opp": f"the other seats' moves in the tree: one of {', '.join(OPPONENT_MODELS)} (default {DEFAULT_OPP})",
    "bias": f"progressive bias toward the rollout policy's choice, 0 <= bias <= 100 (default {DEFAULT_BIAS:g})",
    "z": f"flat mode: paired z-score by which an action must beat the base policy's choice, 0 <= z <= 10 "
         f"(default {DEFAULT_Z:g})",
    "prior": f"flat mode: whose choice the search keeps unless another action is shown better: one of "
             f"{', '.join(PRIORS)}, or the path of a saved policy file (.npz) for this game and player count "
             f"(default ppo at 2 players under the rules its shipped policy was trained for, else rollout)",
    "prune": f"flat mode: stop sampling an action once its paired gain is below 0 by this many standard errors or it "
             f"matched the base policy's choice on every sample, 0 <= prune <= 10, 0 never (default "
             f"{DEFAULT_PRUNE:g})",
}


def _number(name: str, value: Any, kind: type, lo: float, hi: float, lo_open: bool = False):
    allowed = ISMCTS_ARGUMENTS[name]
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"ismcts: {name} must be a finite number ({allowed}); got {short_repr(value)}")
    # int(inf) and int(nan) raise, and float() of a huge int overflows: test finiteness and range on the value
    # itself (Python compares ints and floats exactly) before converting it
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ValueError(f"ismcts: {name} must be a finite number ({allowed}); got {short_repr(value)}")
        if kind is int and not float(value).is_integer():
            raise ValueError(f"ismcts: {name} must be an integer ({allowed}); got {short_repr(value)}")
    num: Any = value
    if not (lo < num if lo_open else lo <= num) or not num <= hi:
        # repr() refuses ints of more than 4300 digits
        big = isinstance(num, int) and num.bit_length() > 64
        shown = f"<an integer of {num.bit_length()} bits>" if big else short_repr(num)
        raise ValueError(f"ismcts: {name}={shown} is out of range ({allowed})")
    return kind(num)


class ISMCTSAgent(BaseAgent):
    """Single-observer ISMCTS with compiled simulations; ``sims`` or ``ms`` budget, configurable rollout."""

    name = "ismcts"
    #: the shells hand this agent the game state (``act_from_state``) instead of the observation
    needs_state = True

    def __init__(self, game: Any = "classic", seed: int | None = None, sims: int | None = None,
                 ms: float | None = None, rollout: str = DEFAULT_ROLLOUT, c: float = DEFAULT_C,
                 horizon: int = DEFAULT_HORIZON, mode: str | None = None, opp: str = DEFAULT_OPP,
                 bias: float = DEFAULT_BIAS, z: float = DEFAULT_Z, prune: float = DEFAULT_PRUNE,
                 prior: str | None = None):
        super().__init__(game, seed)
        if sims is not None and ms is not None:
            raise ValueError("ismcts: give a budget of sims or of ms, not both")
        self.ms = None if ms is None else _number("ms", ms, float, 0.0, MAX_MS, lo_open=True)
        if mode is None:
            mode = default_mode(self.game, prior)
        if rollout not in R.ROLLOUTS:
            raise ValueError(f"ismcts: rollout must be one of {', '.join(R.ROLLOUTS)}; got {rollout!r}")
        self.rollout = rollout
        self.c = _number("c", c, float, 0.0, 100.0)
        self.horizon = _number("horizon", horizon, int, 0, 100_000)
        for name, value, allowed in (("mode", mode, MODES), ("opp", opp, OPPONENT_MODELS)):
            if value not in allowed:
                raise ValueError(f"ismcts: {name} must be one of {', '.join(allowed)}; got {value!r}")
        policy_file = prior is not None and prior not in PRIORS
        if policy_file and not (isinstance(prior, str) and prior.endswith(".npz")):
            raise ValueError(f"ismcts: prior must be one of {', '.join(PRIORS)} or a policy file path ending in "
                             f".npz; got {short_repr(prior)}")
        self.mode = mode
        if prior is None:
            prior = default_prior(self.game, mode)
        elif prior != "rollout" and mode != "flat":
            raise ValueError(f"ismcts: prior={prior} needs mode=flat (the tree search keeps no policy's choice)")
        budget = default_sims(self.game, mode) if sims is None else sims
        self.sims = None if self.ms is not None else _number("sims", budget, int, 1, MAX_SIMS)
        self.opp = opp
        self.prior = prior
        self._prior_agent: Any = None
        if prior == "ppo":
            from .ppo import make_ppo_agent

            # loaded now so that a table without a shipped policy fails here, not at the first decision
            self._prior_agent = make_ppo_agent(self.game, deterministic=True)
        elif policy_file:
            from .policy import NumpyPolicyAgent

            if not os.path.isfile(prior):
                raise ValueError(f"ismcts: prior={prior}: no such policy file")
            # the loader refuses a file of another game, player count or observation size, by name
            self._prior_agent = NumpyPolicyAgent.load(prior, self.game, name="prior", deterministic=True)
        self.bias = _number("bias", bias, float, 0.0, 100.0)
        self.z = _number("z", z, float, 0.0, 10.0)
        self.prune = _number("prune", prune, float, 0.0, 10.0)
        self._policy = R.ROLLOUTS.index(rollout)
        self._word = np.zeros(1, dtype=np.uint64)
        self._seed_word(seed)
        self._tree_nodes = 0
        a = self.num_actions
        self._s = np.zeros(self.game.state_len, dtype=STATE_DTYPE)
        self._srng = np.zeros(1, dtype=np.uint64)
        self._mask = np.zeros(a, dtype=np.int8)
        self._root_mask = np.zeros(a, dtype=np.int8)
        self._rew = np.zeros(MAX_PLAYERS, dtype=np.float32)
        self._pool = np.zeros(MAX_ITEMS, dtype=np.int32)
        self._obs = np.zeros(self.game.obs_dim, dtype=np.float32)
        self._offs = self.game.obs_offsets
        self._w = heuristic_weight_array()
        self._hs = np.zeros(STATE_LEN, dtype=STATE_DTYPE)
        self._s2 = np.zeros(self.game.state_len, dtype=STATE_DTYPE)
        self._srng2 = np.zeros(1, dtype=np.uint64)
        self._prng = np.zeros(1, dtype=np.uint64)
        self._totals = np.zeros(a, dtype=np.float64)
        self._sq = np.zeros(a, dtype=np.float64)
        self._cand = np.zeros(a, dtype=np.int8)
        self._vals = np.zeros(a, dtype=np.float64)
        self._counts = np.zeros(a, dtype=np.int64)
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

    def get_rng_state(self) -> dict[str, Any]:
        """The search's random stream as JSON-ready data, for :meth:`set_rng_state`.

        The random-state protocol an environment uses to save and restore an agent exactly (the Gymnasium env's
        ``state_dict`` calls it for every opponent that has both methods): ``get_rng_state()`` returns plain data,
        ``set_rng_state(state)`` takes it back, and raises ``ValueError`` leaving the agent unchanged if the state
        is not one ``get_rng_state`` can return.  The search draws only from its splitmix64 word (the numpy
        ``rng`` of :class:`BaseAgent` is unused here), so the word is the whole state.
        """
        return {"kind": _RNG_STATE_KIND, "word": int(self._word[0])}

    def set_rng_state(self, state: Any) -> None:
        """Set the search's random stream from :meth:`get_rng_state` data (``ValueError`` if malformed)."""
        want = f"{{'kind': {_RNG_STATE_KIND!r}, 'word': an integer 0..2**64-1}} (from get_rng_state())"
        if not isinstance(state, Mapping) or set(state) != {"kind", "word"} or state["kind"] != _RNG_STATE_KIND:
            raise ValueError(f"ismcts: the random state must be {want}; got {short_repr(state)}")
        word = state["word"]
        if type(word) is not int or not 0 <= word < 2**64:  # bool is an int subclass, refused by the exact type
            raise ValueError(f"ismcts: the random state's 'word' must be an integer 0..2**64-1; got {short_repr(word)}")
        self._word[0] = np.uint64(word)

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
        """The search's action for the seat to act in ``state`` (a state row of this game, ``STATE_DTYPE``).

        The state is read only through the determinization: what the seat to act cannot see is redrawn in every
        simulation.  ``seat``, when given, must be the seat to act.
        """
        g = self.game
        st = np.asarray(state)
        if st.dtype != STATE_DTYPE or st.shape != (g.state_len,):
            raise ValueError(f"ismcts: state must be an int16 state row of length {g.state_len}; got {st.dtype} "
                             f"{st.shape}")
        # every field in range before compiled code indexes by it (shown_from, top...), then the invariants
        problem = g.state_problem(st)
        if problem:
            raise ValueError(f"ismcts: the state is not one the rules can reach: {problem}")
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
        if self.mode == "flat":
            action, info = self._flat(st, cur, mask, t0)
        else:
            action, info = self._tree(st, cur, mask, t0)
        info["seconds"] = time.perf_counter() - t0
        info["action"] = action
        self.last_search = info
        return action

    def _deadline(self, t0: float) -> float:
        """When a time budget that started at ``t0`` runs out (``perf_counter`` seconds)."""
        return t0 + (self.ms or 0.0) / 1000.0

    def _budget_loop(self, run, counters, t0: float) -> None:
        if self.sims is not None:
            code = run(self.sims)
        else:
            deadline = self._deadline(t0)
            code = 0
            while code == 0 and (counters[S.T_SIMS] == 0 or time.perf_counter() < deadline):
                code = run(self._time_batch)
        if code != 0:
            raise ValueError("ismcts: the state's public card counts are inconsistent (cannot sample it)")

    @property
    def _time_batch(self) -> int:
        return _TIME_BATCH if self.mode == "tree" else max(1, _TIME_BATCH // 4)

    def _tree(self, st: np.ndarray, cur: int, mask: np.ndarray, t0: float) -> tuple[int, dict[str, Any]]:
        g = self.game
        self._ensure_tree(_TIME_NODES if self.sims is None else self.sims + 1)
        child, visits, avail, wins, counters = self._child, self._visits, self._avail, self._wins, self._counters
        S.tree_reset(child, visits, avail, wins, counters)
        args = (self._policy, self.c, self.horizon, OPPONENT_MODELS.index(self.opp), self.bias, self._word, child,
                visits, avail, wins, counters, self._s, self._srng, self._mask, self._rew, self._pool, self._path,
                self._obs, self._offs, self._w, self._hs, self._colours, self._value)
        self._budget_loop(lambda sims: S.search(st, g.cfg, g.spec, g.dice, cur, sims, *args), counters, t0)
        n_visits = np.zeros(mask.shape[0], dtype=np.int64)
        value = np.zeros(mask.shape[0], dtype=np.float64)
        action = int(S.root_choice(child, visits, wins, mask, cur, n_visits, value))
        legal = np.flatnonzero(mask)
        return action, {
            "simulations": int(counters[S.T_SIMS]), "decisions": int(counters[S.T_DECISIONS]),
            "visits": {int(a): int(n_visits[a]) for a in legal}, "win_rate": {int(a): float(value[a]) for a in legal},
        }

    def _flat(self, st: np.ndarray, cur: int, mask: np.ndarray, t0: float) -> tuple[int, dict[str, Any]]:
        g = self.game
        counters, totals, counts, sq = self._counters, self._totals, self._counts, self._sq
        counters[:] = 0
        totals[:] = 0.0
        sq[:] = 0.0
        counts[:] = 0
        # the choice to improve on (the rollout policy's or the shipped policy's), from what the seat sees: both read
        # its observation only
        if self._prior_agent is None:
            base = int(R.policy_action(st, g.cfg, g.spec, g.dice, mask, mask.shape[0], self._policy, self._word,
                                       self._obs, self._offs, self._w, self._hs, self._colours))
        else:
            observe_one(st, g.cfg, g.spec, self._offs, cur, self._obs)
            base = int(self._prior_agent.act_batch(self._obs[None, :], mask[None, :])[0])
        cand = self._cand
        cand[:] = mask
        args = (self._policy, self.horizon, self._word, cand, base, totals, sq, self._vals, counts, counters,
                self._s, self._srng, self._s2, self._srng2, self._prng, self._mask, self._rew, self._pool, self._obs,
                self._offs, self._w, self._hs, self._colours, self._value)
        sims = self.sims
        deadline = self._deadline(t0)
        while True:
            done = int(counters[S.T_SIMS])
            if sims is not None:
                if done >= sims:
                    break
                batch = min(_PRUNE_BATCH, sims - done)
            else:
                if done > 0 and time.perf_counter() >= deadline:
                    break
                batch = max(1, _TIME_BATCH // 4)
            if S.flat_search(st, g.cfg, g.spec, g.dice, cur, batch, *args) != 0:
                raise ValueError("ismcts: the state's public card counts are inconsistent (cannot sample it)")
            if self.prune > 0 and counters[S.T_SIMS] >= 2 * _PRUNE_BATCH and self._prune(cand, base) == 1:
                break  # only the rollout policy's choice is left: nothing can replace it
        legal = np.flatnonzero(mask)
        means = np.where(counts > 0, totals / np.maximum(counts, 1), -1.0)
        left = np.flatnonzero(cand)
        action = int(left[np.argmax(means[left])])  # ties: the lowest action id
        if action != base and self.z > 0:
            # keep the policy's choice unless a paired test on the shared samples says the other is better, so
            # that noise cannot replace it (fewer than two samples cannot say so)
            gain, se, n = self._paired(action, base)
            if n < 2 or gain <= self.z * se:
                action = base
        return action, {
            "base": base, "kept": [int(a) for a in left],
            "simulations": int(counters[S.T_SIMS]), "decisions": int(counters[S.T_DECISIONS]),
            "visits": {int(a): int(counts[a]) for a in legal}, "win_rate": {int(a): float(means[a]) for a in legal},
        }

    def _paired(self, a: int, base: int) -> tuple[float, float, int]:
        """Mean paired gain of action ``a`` over ``base`` on their shared samples, its standard error, samples."""
        n = int(self._counts[a])
        gain = (self._totals[a] - self._totals[base]) / max(n, 1)
        var = max(self._sq[a] - n * gain * gain, 0.0) / max(n - 1, 1)
        return float(gain), float(np.sqrt(var / max(n, 1))), n

    def _prune(self, cand: np.ndarray, base: int) -> int:
        """Stop sampling actions that are clearly worse than ``base`` (gain + prune * se < 0) or that gave exactly
        its result on every sample so far; returns the actions left."""
        for a in np.flatnonzero(cand):
            if a == base:
                continue
            gain, se, _ = self._paired(int(a), base)
            if gain + self.prune * se < 0 or self._sq[a] == 0.0:
                cand[a] = 0
        return int(cand.sum())

    def __repr__(self) -> str:
        budget = f"ms={self.ms:g}" if self.ms is not None else f"sims={self.sims}"
        return (f"ISMCTSAgent(game={self.game.name!r}, num_players={self.game.num_players}, {budget}, "
                f"mode={self.mode!r}, rollout={self.rollout!r}, opp={self.opp!r}, bias={self.bias:g}, z={self.z:g}, "
                f"prune={self.prune:g}, prior={self.prior!r}, "
                f"c={self.c:g}, "
                f"horizon={self.horizon}, seed={self._seed})")
