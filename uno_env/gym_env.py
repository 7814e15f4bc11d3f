"""Gymnasium single-agent environments: one learner against scripted opponents.

``gymnasium.make("uno_env/Classic-v0", opponents="heuristic")`` (also ``Pocket-v0``, ``Dice-v0``; the ids are
registered when ``uno_env`` is imported, and ``gymnasium.make("uno_env:uno_env/Classic-v0")`` imports it).

* Keyword arguments: ``num_players``, ``rules`` (as for ``uno_env.env``), ``opponents`` (a baseline name, an
  agent object, or a list with one name/agent per other seat, in seat order skipping the learner),
  ``learner_seat`` (a seat number, or ``"random"``: drawn at each reset), ``render_mode`` (``"ansi"``,
  ``"human"`` or ``"rgb_array"``: a picture of the table with the learner's hand), ``illegal_action`` (below),
  ``flat_obs`` (below).
* The observation is the learner's ``{"observation": float32 (D,), "action_mask": int8 (A,)}``, as in the AEC
  environment; with ``flat_obs=True`` it is the float32 (D,) vector alone (a ``Box``, for CleanRL-style code).
  The action space is ``Discrete(A)``.  The mask is also ``info["action_mask"]`` and
  :meth:`UnoGymEnv.action_masks` (what sb3-contrib's MaskablePPO calls; no ActionMasker wrapper needed).
* When the episode ends, ``info`` also holds ``winner`` (-1 when truncated), ``round_winner``, ``round_points``,
  ``turns`` and, in match mode, ``scores`` (see :meth:`uno_env.raw_env.episode_info`).
* ``step(action)`` plays the learner's action, then every other seat until it is the learner's turn again (or
  the game ends).  The reward is the learner's, summed over those moves.  ``terminated``/``truncated`` are the
  AEC environment's (``max_turns`` truncates).  An illegal learner action is never replaced by another one:
  with ``illegal_action="terminate"`` (default, as ``uno_env.env()`` and PettingZoo's TerminateIllegalWrapper)
  the episode ends with reward -1 for the learner, a warning and ``info["illegal_action"] = True``; with
  ``"raise"`` it raises :class:`uno_env.IllegalActionError` and leaves the game as it was (for debugging).
  Gymnasium's ``check_env`` steps an action sampled before a reset, which is illegal in the new deal, so the
  default must not raise for it to pass.
* ``env.action_space`` is a :class:`MaskedDiscrete`: ``sample()`` draws a legal action of the current state.
* ``reset(seed=s)`` seeds everything from ``s``: the deal, the opponents' random streams and the learner's seat.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.envs.registration import EnvSpec
from gymnasium.utils import EzPickle

from ._exact_copy import ExactCopy
from ._state_checks import check_gym_part, np_random_part, rng_state, set_np_random_part, set_rng_state
from .aec import ActionOutOfRangeError, IllegalActionError, OrderError, check_seats_can_act, raw_env
from .core.game import GameMetadata
from .core.layout import StateView
from .opponents import agent_action, load_opponent
from .render import render_ansi
from .yaml_io import short_repr

__all__ = ["UnoGymEnv", "MaskedDiscrete"]

_SEED_MAX = 2**63 - 1


class MaskedDiscrete(gymnasium.spaces.Discrete):
    """``Discrete(A)`` whose ``sample()`` without a mask draws uniformly from the legal actions of now.

    It reads the environment's current mask (an array the environment updates in place), so
    ``env.step(env.action_space.sample())`` is always a legal move; an explicit ``mask=`` or ``probability=`` is
    honoured as in ``Discrete``.  It equals a plain ``Discrete(A)``; a pickled copy (e.g. saved with a model)
    forgets the mask and samples like ``Discrete``.
    """

    def __init__(self, n: int, legal_mask: np.ndarray | None = None, seed: Any = None):
        super().__init__(n, seed=seed)
        self._legal_mask = legal_mask

    def sample(self, mask: Any = None, probability: Any = None):
        """A random action; without an explicit ``mask`` or ``probability``, a random *legal* one."""
        if mask is None and probability is None and self._legal_mask is not None and self._legal_mask.any():
            mask = (self._legal_mask != 0).astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self):
        d = dict(super().__getstate__() if hasattr(super(), "__getstate__") else self.__dict__)
        d["_legal_mask"] = None
        return d

    def __repr__(self) -> str:
        return f"MaskedDiscrete({self.n})"


class UnoGymEnv(ExactCopy, GameMetadata, gymnasium.Env, EzPickle):
    """UNO for one learner against scripted opponents (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        game: str = "classic",
        num_players: int | None = None,
        rules: Any = None,
        opponents: Any = "random",
        learner_seat: int | str = 0,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        flat_obs: bool = False,
    ):
        EzPickle.__init__(self, game, num_players, rules, opponents, learner_seat, render_mode, illegal_action,
                          flat_obs)
        if render_mode not in (None, "ansi", "human", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'ansi', 'human' or 'rgb_array'; got {render_mode!r}")
        if not isinstance(flat_obs, (bool, np.bool_)):
            raise TypeError(f"flat_obs must be True or False; got {flat_obs!r}")
        self.flat_obs = bool(flat_obs)
        if illegal_action not in ("raise", "terminate"):
            raise ValueError(f"illegal_action must be 'raise' or 'terminate'; got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.aec = raw_env(game, num_players=num_players, rules=rules, render_mode=None, illegal_action="raise")
        self.game = self.aec.game
        self.rules = self.aec.rules
        self.render_mode = render_mode
        n = self.game.num_players
        self.num_players = n
        if isinstance(learner_seat, str):
            if learner_seat != "random":
                raise ValueError(f"learner_seat must be a seat number in 0..{n - 1} or 'random'; got {learner_seat!r}")
        elif isinstance(learner_seat, (bool, np.bool_)) or not isinstance(learner_seat, (int, np.integer)):
            raise TypeError(f"learner_seat must be an int or 'random'; got {type(learner_seat).__name__}")
        elif not 0 <= learner_seat < n:
            raise ValueError(f"learner_seat {learner_seat} is out of range for {n} players (0..{n - 1})")
        self._seat_choice: int | str = "random" if learner_seat == "random" else int(learner_seat)
        self.learner_seat = 0 if learner_seat == "random" else int(learner_seat)
        # a seat no deal reaches is refused now, not by every reset()
        check_seats_can_act(self.rules, set(range(n)) if learner_seat == "random" else {self.learner_seat},
                            any_seat=learner_seat == "random")
        self.opponents = self._make_opponents(opponents, n)
        self.observation_space = self.aec.observation_spaces[self.aec.possible_agents[0]]
        if self.flat_obs:
            self.observation_space = self.observation_space["observation"]
        self._mask = self.aec.live_mask  # the AEC env keeps it equal to the acting seat's legal mask
        self.action_space = MaskedDiscrete(self.game.num_actions, self._mask)
        self._has_reset = False
        self._done = False
        self._carried = 0.0  # see reset()

    # -- copies (``_exact_copy.ExactCopy``): the constructor again with the same opponents, then the state dict
    def _copy_init(self) -> dict[str, Any]:
        return {"game": self.game.name, "rules": self.rules.to_dict(), "opponents": list(self.opponents),
                "learner_seat": self._seat_choice, "render_mode": self.render_mode,
                "illegal_action": self.illegal_action, "flat_obs": self.flat_obs}

    def _copy_state(self) -> dict[str, Any]:
        return {"saved": self.state_dict() if self._has_reset else None, "spec": self.spec,
                "action_space": self.action_space, **np_random_part(self)}

    def _load_copy_state(self, state: Any) -> None:
        keys = {"saved", "spec", "action_space", "np_random", "np_random_seed"}
        if not isinstance(state, dict) or set(state) != keys:
            raise ValueError(f"a copy of a Gymnasium env: expected {sorted(keys)}, got {short_repr(state)}")
        space, spec = state["action_space"], state["spec"]
        if not isinstance(space, MaskedDiscrete) or space.n != self.game.num_actions or space.start != 0:
            raise ValueError(f"a copy of a Gymnasium env: action_space must be MaskedDiscrete("
                             f"{self.game.num_actions}), got {short_repr(space)}")
        if spec is not None and not isinstance(spec, EnvSpec):
            raise ValueError(f"a copy of a Gymnasium env: spec must be a gymnasium EnvSpec, got {short_repr(spec)}")
        saved = state["saved"]
        if saved is not None:
            if not isinstance(saved, Mapping) or "format" not in saved or not isinstance(saved.get("env"), Mapping):
                raise ValueError(f"a copy of a Gymnasium env: expected its state dict, got {short_repr(saved)}")
            self.load_state_dict(saved)
        set_np_random_part(self, state, "a copy of a Gymnasium env")
        space._legal_mask = self._mask  # a pickled MaskedDiscrete forgets the mask it samples from
        self.action_space, self.spec = space, spec

    # ------------------------------------------------------------------------------------------ set-up
    def _make_opponents(self, opponents: Any, n: int) -> list[Any]:
        """One agent per seat other than the learner's (list of length n - 1, in seat order)."""
        if isinstance(opponents, (str, bytes)) or callable(getattr(opponents, "act", None)):
            specs = [opponents] * (n - 1)
        elif isinstance(opponents, Sequence) or isinstance(opponents, tuple):
            specs = list(opponents)
            if len(specs) != n - 1:
                raise ValueError(
                    f"opponents: give one agent for each of the {n - 1} other seats, or a single one; got {len(specs)}"
                )
        else:
            raise TypeError(
                "opponents must be a baseline name, an agent object (with act()) or a list of them; "
                f"got {type(opponents).__name__}"
            )
        out: list[Any] = []
        made: dict[str, Any] = {}
        for spec in specs:
            if isinstance(spec, str):
                if spec not in made:  # one object per name: agents are stateless apart from their seed
                    made[spec] = load_opponent(spec, self.game)
                agent = made[spec]
            elif callable(getattr(spec, "act", None)):
                agent = spec
                g = getattr(agent, "game", None)
                if g is not None and hasattr(g, "num_actions") and (
                        g.num_actions != self.game.num_actions or g.obs_dim != self.game.obs_dim):
                    raise ValueError(
                        f"opponent {agent!r} was built for game {g.name!r} with {g.num_players} players; this "
                        f"environment is {self.game.name!r} with {n}"
                    )
            else:
                raise TypeError(f"each opponent must be a baseline name or an object with act(); got {spec!r}")
            out.append(agent)
        return out

    def set_opponents(self, opponents: Any) -> None:
        """Replace the other seats' players (same forms as the ``opponents`` argument); takes effect at once."""
        self.opponents = self._make_opponents(opponents, self.num_players)

    def _opponent_at(self, seat: int):
        ls = self.learner_seat
        return self.opponents[seat if seat < ls else seat - 1]

    # ------------------------------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode: pick the learner's seat (if random), reset the opponents, deal, and play the
        other seats until the learner is to act. Returns ``(observation, info)``; ``info["action_mask"]`` is the
        legal-action mask.
        """
        super().reset(seed=seed)
        rng = self.np_random
        if self._seat_choice == "random":
            self.learner_seat = int(rng.integers(self.num_players))
        seen = set()
        for agent in self.opponents:
            if id(agent) in seen:
                continue
            seen.add(id(agent))
            reset = getattr(agent, "reset", None)
            if callable(reset):
                reset(seed=int(rng.integers(_SEED_MAX)))
        for attempt in range(1000):
            if attempt and self._seat_choice == "random":  # a seat that no deal reaches may be the reason
                self.learner_seat = int(rng.integers(self.num_players))
            self.aec.reset(seed=int(rng.integers(_SEED_MAX)))
            self._done = False
            self._has_reset = True
            # a deal that ends before the learner acts is replaced, unscored; a round scored before it (match
            # mode) is this episode's, paid with the learner's first action
            self._carried = self._play_others()
            if not self._done:
                break
        else:
            raise RuntimeError("every game ended before the learner's first turn; check max_turns")
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: Any):
        """Play the learner's ``action``, then the other seats until the learner acts again or the game ends.

        Returns ``(observation, reward, terminated, truncated, info)``; the reward is everything the learner received
        since its last action.  An exception from an opponent propagates and leaves the environment needing
        ``reset()`` (``step`` raises :class:`OrderError`, ``action_masks()`` is all False until then).
        """
        if not self._has_reset:
            raise OrderError("reset() needs to be called before step() (also after an opponent raised)")
        if self._done:
            raise OrderError("the episode is over (terminated or truncated); call reset()")
        if isinstance(action, np.ndarray) and action.shape == (1,):
            action = action.reshape(())  # SB3 may hand over a one-element array
        action = self.aec.check_action(action)  # the AEC env's type and range checks and messages
        if not self._mask[action]:
            message = self.aec.illegal_action_message(action)
            if self.illegal_action == "raise":
                raise IllegalActionError(message)
            # like PettingZoo's TerminateIllegalWrapper: -1 for the learner, the episode ends, the game is untouched
            gymnasium.logger.warn(f"{message}; the episode ends with reward -1 (illegal_action='terminate')")
            self._done = True
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), -1.0, True, False, info
        learner = self.aec.possible_agents[self.learner_seat]
        self.aec.step(action)
        reward = self.aec.rewards[learner] + self._carried
        self._carried = 0.0
        self._done = self._game_over()
        if not self._done:
            reward += self._play_others()
        terminated = self._done and self.aec.live_view.done == 1
        truncated = self._done and self.aec.live_view.done == 2
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (bool, length A); all False once the episode is over."""
        if not self._has_reset or self._done:
            return np.zeros(self.game.num_actions, dtype=bool)
        return self._mask.astype(bool)

    # Gymnasium declares render() with a type variable the Env class never binds; ours returns text or an image
    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """``ansi``: the public state and the learner's hand as text; ``human``: print it and return None;
        ``rgb_array``: an image of the table (uint8, H x W x 3).
        """
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' or "
                                  "'rgb_array'")
            return None
        if not self._has_reset:
            raise OrderError("reset() needs to be called before render()")
        if self.render_mode == "rgb_array":
            from .render_image import render_rgb

            return render_rgb(self.game, self.aec.state_dict(), show_seat=self.learner_seat)
        st = self.aec.live_view
        hand = st.hand[self.learner_seat, : self.game.num_kinds]
        names = self.game.kinds.names
        text = render_ansi(self.game, st.row) + (
            f"\nlearner (player_{self.learner_seat}) hand: "
            + ", ".join(names[k] + (f" x{c}" if c > 1 else "") for k, c in enumerate(hand) if c)
        )
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Close the underlying AEC environment."""
        self.aec.close()

    # ------------------------------------------------------------------------------------------ state
    def state_dict(self) -> dict[str, Any]:
        """The whole environment as plain, versioned, JSON-ready data, hidden information included.

        The AEC state dict of the game (see ``uno_env.aec.raw_env.state_dict``) whose ``"env"`` part here also
        holds the learner's seat, whether the episode is over, the state of ``np_random`` (it seeds the next
        episodes) and of each opponent's random stream: ``agent.get_rng_state()`` for an agent with the
        random-state protocol (``get_rng_state()`` returning JSON-ready data, ``set_rng_state(state)`` taking it
        back and raising ``ValueError`` on a bad state without changing the agent; ``ismcts`` has it), else the
        state of its numpy ``rng`` Generator, else ``None``.  :meth:`load_state_dict` of it continues exactly as
        this environment would.
        """
        if not self._has_reset:
            raise OrderError("reset() needs to be called before state_dict()")
        d = self.aec.state_dict()
        d["env"] = {
            "kind": "gymnasium", "aec": d["env"], "learner_seat": self.learner_seat, "done": self._done,
            "np_random": None if self._np_random is None else self._np_random.bit_generator.state,
            "opponents": [rng_state(agent) for agent in self.opponents],
            "carried_reward": self._carried,
        }
        return d

    def load_state_dict(self, d: Mapping[str, Any]) -> None:
        """Set the environment from a :meth:`state_dict` (exact), or edit the game with a partial dict (no
        ``"format"``; see ``Game.load_state_dict``).  A bad state raises ``ValueError``/``TypeError`` naming the
        field and changes nothing."""
        if not isinstance(d, Mapping):
            raise TypeError(f"load_state_dict takes a mapping (from state_dict()); got {type(d).__name__}")
        if "format" not in d or d.get("env") is None:
            self._load_game_only(d)
            return
        part = check_gym_part(d["env"], self.num_players, self._seat_choice, self.opponents)
        seat = part["learner_seat"]
        view = StateView(self.game.check_exact(d)[0])
        if not part["done"] and (view.done != 0 or view.cur != seat):
            raise ValueError(f"env.done: the episode runs, so the game must wait for the learner (seat {seat}); the "
                             f"state has seat {view.cur} to act and done={view.done}")
        self.aec.load_state_dict({**d, "env": d["env"]["aec"]})
        self.learner_seat, self._done, self._has_reset = seat, part["done"], True
        self._carried = part["carried"]
        if part["np_random"] is not None:
            self._np_random = part["np_random"]
        for agent, state in zip(self.opponents, part["opponents"]):
            set_rng_state(agent, state)

    def _load_game_only(self, d: Mapping[str, Any]) -> None:
        """A state dict without the shell's part, or a partial edit: the game is loaded, the shell starts afresh on
        it (the game must wait for the learner unless it is over)."""
        if "format" in d:
            row, _ = self.game.check_exact(d)
        else:
            if not self._has_reset:
                raise OrderError("reset() needs to be called before load_state_dict() of a partial state")
            row = self.aec.game_view.row
            self.game.load_state_dict(row, d)
        view = StateView(row)
        if view.done == 0 and view.cur != self.learner_seat:
            raise ValueError(f"current_seat: a running game must wait for the learner (seat {self.learner_seat}); "
                             f"the state has seat {view.cur} to act")
        self.aec.load_state_dict(d)
        self._has_reset = True
        self._done = self._game_over()
        self._carried = 0.0  # the game alone: the shell starts afresh on it

    # ------------------------------------------------------------------------------------------ internals
    def _game_over(self) -> bool:
        return self.aec.live_view.done != 0

    def _play_others(self) -> float:
        """Let the other seats act until the learner's turn or the end; return the learner's reward meanwhile."""
        aec = self.aec
        view = aec.live_view
        learner = aec.possible_agents[self.learner_seat]
        reward = 0.0
        try:
            while view.done == 0 and view.cur != self.learner_seat:
                seat = view.cur
                seen = aec.observe(aec.agent_selection)  # the acting seat's observation and mask (copies)
                agent = self._opponent_at(seat)
                # a search agent reads the state row (a copy: it only determinizes it)
                row = aec.game_view.row if getattr(agent, "needs_state", False) else None
                action = agent_action(agent, row, seen["observation"], seen["action_mask"])
                try:
                    aec.step(int(action))
                except (IllegalActionError, ActionOutOfRangeError, TypeError, ValueError) as exc:
                    raise RuntimeError(f"opponent {agent!r} at seat {seat} chose an illegal action: {exc}") from exc
                reward += aec.rewards[learner]
        except BaseException:
            # the game now waits for an opponent: the shared mask is that seat's, so neither action_masks() nor a
            # further step may use it; only reset() (which sets both flags back) continues
            self._has_reset = False
            self._done = True
            raise
        self._done = bool(view.done)
        return reward

    def _observation(self) -> dict[str, np.ndarray] | np.ndarray:
        seen = self.aec.observe(self.aec.possible_agents[self.learner_seat])
        if self.flat_obs:
            return seen["observation"]
        if self._done:  # ended by the learner's illegal action: the game itself still runs
            seen["action_mask"][:] = 0
        return seen

    def _info(self) -> dict[str, Any]:
        st = self.aec.live_view
        info: dict[str, Any] = {
            "action_mask": self._mask.copy() if not self._done else np.zeros(self.game.num_actions, dtype=np.int8),
            "learner_seat": self.learner_seat,
            "turns": st.turns,
        }
        if self._done and st.done:
            info.update(self.aec.episode_info())
        return info

