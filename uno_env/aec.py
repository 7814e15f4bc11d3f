"""The PettingZoo AEC environment shared by the three games (one game, B = 1, on the compiled core).

``raw_env`` raises on a bad action; ``env()`` gives the behaviour of PettingZoo's standard wrapper chain
(``TerminateIllegalWrapper(-1)`` -> ``AssertOutOfBoundsWrapper`` -> ``OrderEnforcingWrapper``) by doing the same
checks inside the environment, because three stacked wrappers' attribute forwarding costs more than the game.
"""
from __future__ import annotations

import copy
import numbers
from collections.abc import Mapping
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from ._exact_copy import ExactCopy
from ._state_checks import check_aec_part
from .config import make_rules
from .core import engine as E
from .core.cards import COL_COUNT, COL_POINTS
from .core.game import Game, GameMetadata
from .core.layout import MAX_ITEMS, MAX_PLAYERS, StateView
from .core.observe import observe_one, step_and_observe
from .core.step_result import STEP_RESULTS
from .render import render_ansi
from .seeding import check_seed, episode_seed, random_seed
from .state_vector import StateEncoder
from .yaml_io import short_repr

_step_and_observe = step_and_observe
_observe_one = observe_one

RENDER_MODES = ("ansi", "human", "rgb_array")


class IllegalActionError(ValueError):
    """The action is not legal for the acting seat now (its action-mask entry is 0)."""


class ActionOutOfRangeError(ValueError, AssertionError):
    """The action is not an integer in ``range(num_actions)``.

    Also an ``AssertionError``, which is what PettingZoo's ``AssertOutOfBoundsWrapper`` raises.
    """


class OrderError(RuntimeError, AssertionError):
    """Called in the wrong order (e.g. step before reset, a live action for a finished agent)."""


class raw_env(ExactCopy, GameMetadata, AECEnv, EzPickle):
    """UNO as a PettingZoo AEC environment. See the docs for the rules, observation and action tables."""

    metadata = {"name": "uno_v0", "render_modes": list(RENDER_MODES), "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        game: str = "classic",
        num_players: int | None = None,
        rules: Any = None,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        flat_obs: bool = False,
    ):
        EzPickle.__init__(self, game, num_players, rules, render_mode, illegal_action, flat_obs)
        super().__init__()
        if game not in ("classic", "pocket", "dice"):
            raise ValueError(f"unknown game {game!r}; choose one of 'classic', 'pocket', 'dice'")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None, 'ansi', 'human' or 'rgb_array'; got {render_mode!r}")
        if illegal_action not in ("raise", "terminate"):
            raise ValueError(f"illegal_action must be 'raise' or 'terminate'; got {illegal_action!r}")
        self._flat_obs = check_flat_obs(flat_obs)
        self.rules = make_rules(game, num_players, rules)
        self.game = Game(self.rules)
        self.metadata = dict(self.metadata, name=f"uno_{game}_v0")
        self.render_mode = render_mode
        self._terminate_on_illegal = illegal_action == "terminate"
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        a = self.game.num_actions
        spec = self.game.spec
        high = max(float(MAX_ITEMS), 1.0 + float((spec[:, COL_POINTS] * np.maximum(spec[:, COL_COUNT], 6)).sum())
                   / cast(int, self.rules.target_score))
        vector = gymnasium.spaces.Box(-1.0, high, (self.game.obs_dim,), np.float32)
        self.observation_spaces: dict[str, gymnasium.spaces.Space] = {
            agent: vector if self._flat_obs else gymnasium.spaces.Dict(
                {"observation": vector, "action_mask": gymnasium.spaces.Box(0, 1, (a,), np.int8)})
            for agent in self.possible_agents
        }
        self.action_spaces: dict[str, gymnasium.spaces.Space] = {
            agent: gymnasium.spaces.Discrete(a) for agent in self.possible_agents}
        self._state_encoder = StateEncoder(self.game)
        self.state_space = gymnasium.spaces.Box(-1.0, high, (self._state_encoder.size,), np.float32)
        # hot-path references, so step() and observe() skip attribute chains
        self._cfg, self._spec, self._dice = self.game.cfg, self.game.spec, self.game.dice
        self._obs_offsets, self._obs_dim = self.game.obs_offsets, self.game.obs_dim
        self._state, self._rng = self.game.new_states(1)
        self._st = self._state[0]
        self._r = self._rng[0]
        self._mask = np.zeros(a, dtype=np.int8)
        # what readers in this package and beyond may hold on to without copying (``live_view``, ``live_mask``)
        self._reader_view = StateView(_read_only(self._st))
        self._reader_mask = _read_only(self._mask)
        self._rew = np.zeros(MAX_PLAYERS, dtype=np.float32)
        self._zero_mask = np.zeros(a, dtype=np.int8)
        self._seed: int | None = None  # the last reset(seed=...)'s seed; episode index since then below
        self._episode = 0
        self._has_reset = False
        self._illegal_ended = False
        self._live = False  # reset and not finished: step() takes the fast path
        # set when game_state handed out the writable row: it may have been edited, so the next step(), observe()
        # or state() checks it (and syncs the mask and the acting agent) before compiled code reads it
        self._rows_unchecked = False
        self._cached_obs = np.zeros(self._obs_dim, dtype=np.float32)  # the seat to act's view, written by step()
        self._cached_seat = -1
        self._rewards_set = False
        self._num_actions = a

    # -- copies (``_exact_copy.ExactCopy``): the constructor again, then the state dict ----------------------
    def _copy_init(self) -> dict[str, Any]:
        return {"game": self.game.name, "rules": self.rules.to_dict(), "render_mode": self.render_mode,
                "illegal_action": self.illegal_action, "flat_obs": self._flat_obs}

    def _copy_state(self) -> dict[str, Any] | None:
        if not self._has_reset:
            return None
        if self._rows_unchecked:  # an edit not synced yet: a copy carries only a state the check accepts
            self._check_edits("copy")
        return self.state_dict()

    def _load_copy_state(self, state: Any) -> None:
        if state is not None:
            if not isinstance(state, Mapping) or "format" not in state:
                raise ValueError(f"a copy of an AEC env: expected its state dict, got {short_repr(state)}")
            self.load_state_dict(state)

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """The observation space of ``agent``: a Dict of ``observation`` (float32, D) and ``action_mask`` (int8, A);
        with ``flat_obs=True`` the ``Box`` of the vector alone."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """The action space of ``agent``: ``Discrete(A)``, the same for every seat, option and player count."""
        return self.action_spaces[agent]

    def state_dict(self) -> dict[str, Any]:
        """The whole environment as plain, versioned, JSON-ready data, hidden information included (for saving,
        copying and debugging; not for agents).

        The game's state (``Game.state_dict``: every field of the state layout by name, the PRNG word, the rules)
        plus ``"env"``: this shell's own state (agents, ``agent_selection``, rewards, cumulative rewards,
        terminations, truncations, infos, the seed and episode index that the next ``reset()`` continues from).
        :meth:`load_state_dict` of it continues exactly as this environment would.
        """
        self._require_reset("state_dict")
        if self._rows_unchecked:
            self._check_edits("state_dict")
        d = self.game.state_dict(self._st, self._r)
        d["env"] = self._shell_state()
        return d

    def _shell_state(self) -> dict[str, Any]:
        return {
            "kind": "aec",
            "agents": list(self.agents),
            "agent_selection": self.agent_selection,
            "skip_agent_selection": getattr(self, "_skip_agent_selection", None),
            "rewards": {a: float(r) for a, r in self.rewards.items()},
            "cumulative_rewards": {a: float(r) for a, r in self._cumulative_rewards.items()},
            "terminations": {a: bool(x) for a, x in self.terminations.items()},
            "truncations": {a: bool(x) for a, x in self.truncations.items()},
            # flat_obs: the masks in the infos follow from the game (and a state dict stays JSON-ready)
            "infos": {a: copy.deepcopy({k: v for k, v in info.items() if not (self._flat_obs and k == "action_mask")})
                      for a, info in self.infos.items()},
            "seed": self._seed,
            "episode": self._episode,
            "illegal_ended": self._illegal_ended,
        }

    @property
    def game_state(self) -> StateView:
        """The live state as a named view (``.cur``, ``.hand[seat, kind]``, ``.draw[: .draw_n]``, ...; the fields of
        ``uno_env.core.layout.FIELDS``), hidden information included: for tools and tests, not for agents.
        Writes go to the game; call :meth:`sync_state` after editing it (the next ``step()``, ``observe()`` or
        ``state()`` checks the row too, and refuses one the rules cannot reach).  To read only, use
        :attr:`game_view`."""
        self._require_reset("game_state")
        self._rows_unchecked = True
        return StateView(self._st)

    @property
    def game_view(self) -> StateView:
        """A copy of the live state as a named view (as :attr:`game_state`, but writes change nothing): for tools
        that only look."""
        self._require_reset("game_view")
        return StateView(self._st.copy())

    @property
    def live_view(self) -> StateView:
        """The live state as a read-only named view, without a copy: it follows the game as it moves (writes
        raise).  For wrappers that read the state at every step (the Gymnasium env); hidden information included,
        not for agents.  To edit, use :attr:`game_state`."""
        return self._reader_view

    @property
    def live_mask(self) -> np.ndarray:
        """The legal-action mask of the seat to act (int8, A), read-only and without a copy: the environment
        rewrites it in place at every step, so it always shows the actions legal now while the game runs.  For
        wrappers that act for the seat to act; :meth:`action_mask` returns a copy."""
        return self._reader_mask

    def check_action(self, action: Any) -> int:
        """``action`` as an int in ``[0, A)``: any integer (numpy integers, IntEnum members, 0-d integer arrays)
        but a bool; anything else raises :class:`ActionOutOfRangeError`, never a guess (a float or a bool is almost
        always a bug in the caller).  Legality is not checked here."""
        if type(action) is not int:
            action = self._as_action(action)
        if not 0 <= action < self._num_actions:
            raise ActionOutOfRangeError(f"action {action} is out of range [0, {self._num_actions})")
        return action

    def illegal_action_message(self, action: int) -> str:
        """Why ``action`` (in range, from :meth:`check_action`) is illegal for the seat to act now, with the phase
        and the actions that are legal: the message of :class:`IllegalActionError`."""
        return self._illegal_message(self.agent_selection, action)

    @property
    def prng_state(self) -> np.ndarray:
        """The game's PRNG word (uint64, shape (1,)); writable, like :attr:`game_state`."""
        return self._r

    @property
    def cumulative_rewards(self) -> dict[str, float]:
        """Each agent's reward accumulated since it last acted, which :meth:`last` returns as its reward (a copy of
        what PettingZoo keeps in ``_cumulative_rewards``)."""
        return dict(self._cumulative_rewards)

    @property
    def illegal_action(self) -> str:
        """What an illegal action does: ``"raise"`` (an ``IllegalActionError``) or ``"terminate"`` (the game ends,
        the actor gets -1); the ``illegal_action`` argument of the constructor."""
        return "terminate" if self._terminate_on_illegal else "raise"

    def sync_state(self) -> None:
        """Recompute the legal mask and the acting agent after :attr:`game_state` was edited in place.

        The edited row is checked first (field ranges, conservation, phase consistency: what
        :meth:`load_state_dict` checks): a state the rules cannot reach raises ``ValueError`` naming the field,
        and the environment refuses to step or observe until the row is fixed and synced (or reset, or loaded).
        """
        self._require_reset("sync_state")
        self._check_edits("sync_state")

    def _check_edits(self, what: str) -> None:
        problem = self.game.state_problem(self._st)
        if problem:
            self._rows_unchecked = True
            raise ValueError(f"{what}(): the edited state {problem}; fix it through game_state and call "
                             f"sync_state() (or load a state dict, or reset())")
        self._rows_unchecked = False
        running = StateView(self._st).done == 0 and not self._illegal_ended
        if running != self._live:  # the edit started or ended the game: the shell starts afresh on it
            self._illegal_ended = False
            self._apply_shell_state(self._check_shell_state(None, self._st.copy()))
        elif running:
            self._sync_after_load()

    def state(self) -> np.ndarray:
        """The full state as a float32 vector (hidden cards included), for centralised critics.

        Its rows are :attr:`state_layout`; it lies in :attr:`state_space`.  Not for the agents' own inputs.
        """
        self._require_reset("state")
        if self._rows_unchecked:
            self._check_edits("state")
        return self._state_encoder.encode(self._st)

    @property
    def state_layout(self) -> list[tuple[int, int, str, str]]:
        """Rows of (offset, length, name, meaning) of the :meth:`state` vector."""
        return self._state_encoder.layout

    def load_state_dict(self, d: Mapping[str, Any]) -> None:
        """Set the environment from a :meth:`state_dict` (exact), or edit the game with a partial dict.

        A versioned dict (from :meth:`state_dict`, key ``"format"``) restores everything it holds and may be
        loaded before any ``reset()``; without its ``"env"`` part the shell starts fresh on the loaded game
        (zero rewards, flags from the game's ``done``).  A dict without ``"format"`` edits the named parts of
        the game (scenario tests, puzzles; see ``Game.load_state_dict``) and needs a reset environment.  Anything
        the rules cannot reach (or that does not fit this environment's game, players and rules) raises
        ``ValueError``/``TypeError`` naming the field, and the environment is left as it was.
        """
        if not isinstance(d, Mapping):
            raise TypeError(f"load_state_dict takes a mapping (from state_dict()); got {type(d).__name__}")
        if "format" not in d:
            self._require_reset("load_state_dict")
            if "env" in d:
                raise ValueError("env: the shell's state is restored only with a versioned state dict "
                                 "(one from state_dict(), with 'format')")
            was_over = StateView(self._st).done != 0
            self.game.load_state_dict(self._st, d)  # the whole edited row is checked: an edit via game_state too
            self._rows_unchecked = False
            if (StateView(self._st).done != 0) != was_over:
                # the edit started or ended the game: the shell (agents, flags, rewards, infos) starts afresh on it
                self._apply_shell_state(self._check_shell_state(None, self._st.copy()))
            else:
                self._sync_after_load()
            return
        row, words = self.game.check_exact(d)
        shell = self._check_shell_state(d.get("env"), row)
        self._st[:] = row
        self._r[:] = words
        self._rows_unchecked = False
        self._apply_shell_state(shell)

    def _check_shell_state(self, env: Any, row: np.ndarray) -> dict[str, Any]:
        """The shell part of a versioned state dict, checked against the game row it goes with (``env`` None:
        what a shell freshly put on that game holds)."""
        view = StateView(row)
        if env is not None:
            return check_aec_part(env, view, self.possible_agents)
        done = view.done
        agents = list(self.possible_agents)
        return {"agents": agents, "agent_selection": agents[view.cur], "skip_agent_selection": None,
                "rewards": dict.fromkeys(agents, 0.0), "cumulative_rewards": dict.fromkeys(agents, 0.0),
                "terminations": {a: done == 1 for a in agents}, "truncations": {a: done == 2 for a in agents},
                "infos": {a: {} for a in agents} if not done else None, "seed": self._seed,
                "episode": self._episode, "illegal_ended": False}

    def _apply_shell_state(self, shell: dict[str, Any]) -> None:
        self.agents = list(shell["agents"])
        self.rewards = {a: float(r) for a, r in shell["rewards"].items()}
        self._cumulative_rewards = {a: float(r) for a, r in shell["cumulative_rewards"].items()}
        self.terminations = dict(shell["terminations"])
        self.truncations = dict(shell["truncations"])
        self._seed, self._episode = shell["seed"], shell["episode"]
        self._illegal_ended = shell["illegal_ended"]
        self._skip_agent_selection = shell["skip_agent_selection"]
        self._has_reset = True
        self._rewards_set = any(self.rewards.values())
        self._cached_seat = -1
        self._live = StateView(self._st).done == 0 and not self._illegal_ended
        if self._live:
            E.legal_mask(self._st, self.game.cfg, self.game.spec, self.game.dice, self._mask)
        else:
            self._mask[:] = 0
        self.agent_selection = shell["agent_selection"]
        infos = shell["infos"]
        if infos is None:  # a finished game loaded without its shell: the end-of-episode infos
            infos = {a: self.episode_info() for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = copy.deepcopy(dict(infos))
        if self._flat_obs:
            self._publish_masks()

    # -- AEC API ---------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game. ``seed`` (an int) makes the whole game reproducible; ``None`` continues the env's
        random stream.

        ``options`` is accepted and not used: PettingZoo's API test passes options an env may ignore.
        """
        if seed is not None:
            self._seed, self._episode = check_seed(seed), 0
        elif self._seed is None:
            self._seed, self._episode = random_seed(), 0
        else:
            self._episode += 1
        game_seed = episode_seed(self._seed, self._episode)  # see uno_env.seeding
        E.reset_one(self._st, self._r, self.game.cfg, self.game.spec, self.game.dice, game_seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._has_reset = True
        self._illegal_ended = False
        self._rows_unchecked = False
        self._cached_seat = -1
        self._live = True
        self._rewards_set = False
        E.legal_mask(self._st, self.game.cfg, self.game.spec, self.game.dice, self._mask)
        self.agent_selection = self.possible_agents[StateView(self._st).cur]
        if self._flat_obs:
            self._publish_masks()

    def _sync_after_load(self) -> None:
        self._cached_seat = -1
        E.legal_mask(self._st, self.game.cfg, self.game.spec, self.game.dice, self._mask)
        self.agent_selection = self.possible_agents[StateView(self._st).cur]
        self._live = StateView(self._st).done == 0 and not self._illegal_ended
        if self._flat_obs:
            self._publish_masks()

    def _publish_masks(self) -> None:
        """``flat_obs``: the observation has no mask, so each agent's info carries it (PettingZoo's other place
        for a mask): the legal actions for the seat to act, zeros for the others and once the game is over.  Fresh
        dicts, so an info returned earlier keeps the mask of its time."""
        acting = self.agent_selection if self._live else None
        for a in self.agents:
            mask = self._mask.copy() if a == acting else self._zero_mask.copy()
            self.infos[a] = {**self.infos[a], "action_mask": mask}

    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        """What ``agent`` may see now: ``{"observation": float32 (D,), "action_mask": int8 (A,)}``.

        The mask is all zeros unless ``agent`` is the seat to act. Both arrays are fresh copies.  With
        ``flat_obs=True`` the observation is the float32 (D,) vector alone and the mask is ``infos[agent]
        ["action_mask"]`` (also :meth:`action_mask`).
        """
        seen = self._seen(agent)
        return seen["observation"] if self._flat_obs else seen

    def _seen(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            raise OrderError("reset() needs to be called before observe()")
        if self._rows_unchecked:
            self._check_edits("observe")
        try:
            seat = self._seat[agent]
        except (KeyError, TypeError):
            raise KeyError(f"unknown agent {short_repr(agent)}; the agents are "
                           f"{', '.join(self.possible_agents)}") from None
        if seat == self._cached_seat:  # step() already observed for the seat to act
            return {"observation": self._cached_obs.copy(),
                    "action_mask": self._mask.copy() if self._live else self._zero_mask.copy()}
        obs = np.empty(self._obs_dim, dtype=np.float32)
        if _observe_one(self._st, self._cfg, self._spec, self._obs_offsets, seat, obs) and self._live:
            return {"observation": obs, "action_mask": self._mask.copy()}
        return {"observation": obs, "action_mask": self._zero_mask.copy()}

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The legal-action mask of ``agent`` (default: the acting agent)."""
        self._require_reset("action_mask")
        agent = self.agent_selection if agent is None else agent
        return self._seen(agent)["action_mask"]

    def last(self, observe: bool = True):
        """``(observation, cumulative reward, termination, truncation, info)`` of the seat to act (PettingZoo's
        ``last``).
        """
        if not self._has_reset:
            raise OrderError("reset() needs to be called before last()")
        if not self.agents:
            raise OrderError("the game is over and every agent has been removed; call reset()")
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def agent_iter(self, max_iter: int = 2**63):
        """PettingZoo's iterator over the agent to act, after a ``reset()`` (before one there is no agent)."""
        self._require_reset("agent_iter")
        return super().agent_iter(max_iter)

    def step(self, action: Any) -> None:
        """Apply ``action`` (an int in ``[0, A)``) for the seat in ``agent_selection``; ``None`` for a finished seat.

        An out-of-range action raises :class:`ActionOutOfRangeError`. An illegal action raises
        :class:`IllegalActionError` in ``raw_env`` (state unchanged) and ends the game with -1 for the offender in
        ``env()``.
        """
        if self._rows_unchecked:
            self._check_edits("step")
        if not self._live:  # not reset yet, or the game is over: only dead-agent steps remain
            self._step_not_live(action)
            return
        if type(action) is not int:
            action = self._as_action(action)
        if not 0 <= action < self._num_actions:
            raise ActionOutOfRangeError(f"action {action} is out of range [0, {self._num_actions})")
        agent = self.agent_selection
        if not self._mask[action]:
            if self._terminate_on_illegal:
                self._end_by_illegal_action(agent)
                return
            raise IllegalActionError(self._illegal_message(agent, action))
        cur_rewards = self._cumulative_rewards
        if cur_rewards[agent]:
            cur_rewards[agent] = 0.0
        code = _step_and_observe(self._st, self._r, self._cfg, self._spec, self._dice, self._obs_offsets, action,
                                 self._mask, self._rew, self._cached_obs)
        status, rewarded, done, seat = STEP_RESULTS[code]
        if status:  # the mask said legal: the core and the mask disagree, which is a bug, not bad input
            raise RuntimeError(f"core rejected action {action} ({self.game.action_names[action]}) with code {code}")
        if rewarded:
            for i, a in enumerate(self.possible_agents):
                r = float(self._rew[i])
                self.rewards[a] = r
                cur_rewards[a] += r
            self._rewards_set = True
        elif self._rewards_set:
            for a in self.agents:
                self.rewards[a] = 0.0
            self._rewards_set = False
        self._cached_seat = -1 if done else seat
        if done:
            self._live = False
            flags = self.terminations if done == 1 else self.truncations
            end_info = self.episode_info()
            for a in self.agents:
                flags[a] = True
                self.infos[a] = dict(end_info)
            self.agent_selection = self.agents[0]
            self._deads_step_first()
        else:
            self.agent_selection = self.possible_agents[seat]
        if self._flat_obs:
            self._publish_masks()
        if self.render_mode == "human":
            self.render()

    def episode_info(self) -> dict[str, Any]:
        """What the ``infos`` of every agent hold once the episode is over (``{}`` while it runs).

        ``winner``: the winning seat, -1 when truncated or ended by an illegal action; ``round_winner`` and
        ``round_points``: the last finished round's winner (-1 if none) and the points it scored; ``turns``:
        decisions taken; in match mode also ``scores`` (match scores by seat).
        """
        self._require_reset("episode_info")
        # read the few fields directly: step() calls this at every episode end, and a full state_dict()
        # (~100 us) would slow the AEC loop by 10-20%
        st = StateView(self._st)
        done = st.done
        if not done and not self._illegal_ended:
            return {}
        info: dict[str, Any] = {
            "winner": st.match_winner if done == 1 else -1,
            "round_winner": st.winner,
            "round_points": st.round_points,
            "turns": st.turns,
        }
        if self.rules.episode == "match":
            info["scores"] = [int(x) for x in st.scores[: self.game.num_players]]
        return info

    def _step_not_live(self, action: Any) -> None:
        if not self._has_reset:
            raise OrderError("reset() needs to be called before step()")
        if not self.agents:
            raise OrderError("the game is over and every agent has been removed; call reset()")
        agent = self.agent_selection
        if action is not None:
            raise OrderError(
                f"{agent} has finished (terminated or truncated); the only valid action is None, got {action!r}"
            )
        self._was_dead_step(None)

    def _as_action(self, action: Any) -> int:
        """Accept any integer (numpy integers, IntEnum members, 0-d integer arrays) but bool; anything else is a
        clear error, never a guess (a float or a bool is almost always a bug in the caller)."""
        if (isinstance(action, numbers.Integral) and not isinstance(action, (bool, np.bool_))) or (
            isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer)
        ):
            return int(action)
        raise ActionOutOfRangeError(
            f"action must be an integer in [0, {self._num_actions}), got {action!r} of type {type(action).__name__}"
        )

    def _illegal_message(self, agent: str, action: int) -> str:
        legal = [self.game.action_names[i] for i in np.flatnonzero(self._mask)]
        shown = ", ".join(legal[:12]) + (" ..." if len(legal) > 12 else "")
        phase = StateView(self._st).phase_name
        return (f"illegal action {action} ({self.game.action_names[action]!r}) for {agent} in phase {phase!r}; "
                f"legal now: {shown}")

    def _end_by_illegal_action(self, agent: str) -> None:
        # exactly what pettingzoo's TerminateIllegalWrapper(illegal_reward=-1) does
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.truncations, 0)
        self.rewards[agent] = -1.0
        self._accumulate_rewards()
        self._deads_step_first()
        self._illegal_ended = True
        end_info = dict(self.episode_info(), illegal_action=agent)
        self.infos = {a: dict(end_info) for a in self.agents}
        self._cached_seat = -1
        self._live = False
        self._mask[:] = 0
        if self._flat_obs:
            self._publish_masks()

    def _require_reset(self, what: str) -> None:
        if not self._has_reset:
            raise OrderError(f"reset() needs to be called before {what}()")

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the public state as text; ``human``: print it and return None; ``rgb_array``: an image of the table
        (uint8, H x W x 3).
        """
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' or "
                                  "'rgb_array'")
            return None
        self._require_reset("render")
        if self.render_mode == "rgb_array":
            from .render_image import render_rgb  # Pillow is imported only for images

            return render_rgb(self.game, self.game.state_dict(self._st))
        text = render_ansi(self.game, self._st)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (no window, no process); here for the PettingZoo API."""
        pass


def _read_only(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.setflags(write=False)
    return view


def check_seats_can_act(rules: Any, seats: set[int], any_seat: bool = False) -> None:
    """Refuse learner seats that no deal ever reaches before ``max_turns`` ends the game (``ValueError`` naming
    ``learner_seat``): an environment waiting for such a seat would reset and replay its games forever.  Every seat
    of ``seats`` must act in some deal, or with ``any_seat`` (a seat drawn per episode) at least one of them.

    With ``max_turns`` at least the player count every seat acts within the first round of decisions, so nothing
    is played; below it, random legal play of up to 1,000 deals looks for each seat."""
    n = cast(int, rules.num_players)
    if cast(int, rules.max_turns) >= n:
        return
    env = raw_env(rules.game, rules=rules)
    rng = np.random.default_rng(0)
    acted: set[int] = set()
    for deal in range(1000):
        env.reset(seed=deal)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            acted.add(env.live_view.cur)
            env.step(int(rng.choice(np.flatnonzero(env.live_mask))))
        if (acted & seats) if any_seat else seats <= acted:
            return
    never = sorted(seats - acted)
    raise ValueError(f"learner_seat: seat(s) {never} never act in 1,000 deals before max_turns={rules.max_turns} "
                     f"ends the game, so the learner would wait forever; raise max_turns or choose another "
                     f"learner_seat")


def env(game: str = "classic", num_players: int | None = None, rules: Any = None, render_mode: str | None = None,
        flat_obs: bool = False):
    """The environment with PettingZoo's standard checks (illegal move: -1 and the game ends, with a warning)."""
    return raw_env(game, num_players=num_players, rules=rules, render_mode=render_mode, illegal_action="terminate",
                   flat_obs=flat_obs)


def check_flat_obs(flat_obs: Any) -> bool:
    """The ``flat_obs`` option of every environment: True or False, nothing else (``TypeError``)."""
    if not isinstance(flat_obs, (bool, np.bool_)):
        raise TypeError(f"flat_obs must be True or False; got {short_repr(flat_obs)}")
    return bool(flat_obs)
