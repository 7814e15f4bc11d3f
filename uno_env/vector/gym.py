"""The batch as a ``gymnasium.vector.VectorEnv`` (what ``gymnasium.make_vec("uno_env/Classic-v0", num_envs=N,
vectorization_mode="vector_entry_point")`` returns): one learner per game, same-step autoreset."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .._exact_copy import ExactCopy
from .._state_checks import np_random_part, set_np_random_part
from ..yaml_io import short_repr
from ._base import spaces
from .single import UnoSingleAgentVectorEnv


class UnoGymVectorEnv(ExactCopy, VectorEnv):
    """Gymnasium vector env over :class:`UnoSingleAgentVectorEnv` (same-step autoreset).

    Observations are ``{"observation": (B, D) float32, "action_mask": (B, A) int8}``, or with
    ``flat_obs=True`` the (B, D) float32 array alone; ``action_masks()`` returns the (B, A) bool masks for
    masked policies.  When games end, ``infos`` holds ``final_obs`` (the
    learners' last observations), ``final_info`` (``winner``, ``episode_turns``) and the ``_final_obs`` /
    ``_final_info`` masks, as Gymnasium's same-step autoreset mode specifies.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, game: str = "classic", num_envs: int = 1, num_players: int | None = None,
                 rules: Any = None, opponents: Any = "random", learner_seat: Any = 0, seed: int | None = None,
                 render_mode: str | None = None, max_episode_steps: int | None = None,
                 num_threads: int | None = None, flat_obs: bool = False):
        if not isinstance(flat_obs, (bool, np.bool_)):
            raise TypeError(f"flat_obs must be True or False; got {flat_obs!r}")
        self.flat_obs = bool(flat_obs)
        if render_mode is not None:
            raise ValueError("the vector env does not render; use uno_env.env(render_mode='ansi') to watch a game")
        if max_episode_steps is not None:
            raise ValueError("max_episode_steps is not supported by the vector env; pass rules={'max_turns': N}")
        self.env = UnoSingleAgentVectorEnv(game, num_envs, num_players, rules, opponents, learner_seat, seed,
                                           num_threads)
        self.num_envs = num_envs
        self.game = self.env.game
        single_obs, self.single_action_space = spaces(self.game, cast(int, self.env.rules.target_score))
        self.single_observation_space = single_obs["observation"] if self.flat_obs else single_obs
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.spaces.MultiDiscrete(np.full(num_envs, self.game.num_actions))
        self.render_mode = None

    def _obs(self) -> dict[str, np.ndarray] | np.ndarray:
        if self.flat_obs:
            return self.env.observations.copy()
        return {"observation": self.env.observations.copy(), "action_mask": self.env.masks.copy()}

    def reset(self, *, seed: int | Sequence[int] | None = None, options: dict | None = None):
        """``seed``: one int (game ``b`` gets ``seed + b``), one int per game, or None (next episodes)."""
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
            seed = int(seed)
            self.env.reset(seed)  # checked there first: a refused seed leaves the spaces' streams alone
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)
            self.action_space.seed(seed)
        else:  # a list (as Gymnasium's vector envs take) seeds the games only, as SyncVectorEnv does
            self.env.reset(seed)
        return self._obs(), self._mask_info({})

    def _mask_info(self, infos: dict[str, Any]) -> dict[str, Any]:
        if self.flat_obs:  # the mask is not in a flat observation, so it rides in infos
            infos["action_mask"] = self.env.masks.copy()
            infos["_action_mask"] = np.ones(self.num_envs, dtype=bool)
        return infos

    def step(self, actions):
        """Play the learners' actions (B,); returns ``(obs, rewards, terminated, truncated, infos)``."""
        _, _, rew, term, trunc, info = self.env.step(actions)
        infos: dict[str, Any] = {}
        done = term | trunc
        if done.any():
            infos["final_obs"] = info["final_observation"].copy() if self.flat_obs else {
                "observation": info["final_observation"].copy(), "action_mask": np.zeros_like(self.env.masks)}
            infos["_final_obs"] = done.copy()
            infos["final_info"] = {"winner": info["winner"].copy(), "episode_turns": info["episode_turns"].copy(),
                                   "_winner": done.copy(), "_episode_turns": done.copy()}
            infos["_final_info"] = done.copy()
        return self._obs(), rew.astype(np.float64), term.copy(), trunc.copy(), self._mask_info(infos)

    def action_masks(self) -> np.ndarray:
        """The (B, A) legal-action masks of the learners, as booleans."""
        return self.env.masks.astype(bool)

    @property
    def action_names(self) -> list[str]:
        """Action names, indexed by action id."""
        return self.game.action_names

    def close_extras(self, **kwargs) -> None:
        """Stop the batch's helper threads."""
        if hasattr(self, "env"):  # __init__ may have refused its arguments before building it
            self.env.close()

    # -- copies (``_exact_copy.ExactCopy``): the batch copies itself; this face adds its spaces' streams --------
    def _copy_init(self) -> dict[str, Any]:
        return {**self.env._copy_init(), "flat_obs": self.flat_obs}  # the batch's own arguments (package-private)

    def _copy_state(self) -> dict[str, Any]:
        return {"env": self.env, "action_space": self.action_space, "spec": self.spec, **np_random_part(self)}

    def _load_copy_state(self, state: Any) -> None:
        keys = {"env", "action_space", "spec", "np_random", "np_random_seed"}
        if not isinstance(state, dict) or set(state) != keys:
            raise ValueError(f"a copy of a UnoGymVectorEnv: expected {sorted(keys)}, got {short_repr(state)}")
        self.env.close()
        self.env = checked_inner_env(state["env"], self.env)
        space = state["action_space"]
        if not isinstance(space, gymnasium.spaces.MultiDiscrete) or space.shape != (self.num_envs,) \
                or (space.nvec != self.game.num_actions).any():
            raise ValueError(f"a copy of a UnoGymVectorEnv: action_space must be MultiDiscrete of {self.num_envs} "
                             f"x {self.game.num_actions}, got {short_repr(space)}")
        set_np_random_part(self, state, "a copy of a UnoGymVectorEnv")
        self.action_space, self.spec = space, state["spec"]


def checked_inner_env(env: Any, like: UnoSingleAgentVectorEnv) -> UnoSingleAgentVectorEnv:
    """The single-agent batch a copy of a Gymnasium or SB3 face carries (itself checked when it was loaded), if it
    is one of ``like``'s game, rules and size."""
    if not isinstance(env, UnoSingleAgentVectorEnv) or env.rules != like.rules or env.num_envs != like.num_envs:
        raise ValueError(f"a copy of a batch's Gymnasium or SB3 face: expected its single-agent batch of "
                         f"{like.num_envs} games of {like.game.name!r} under the same rules, got {short_repr(env)}")
    return env


def make_gym_vector_env(game: str = "classic", num_envs: int = 1, **kwargs: Any) -> UnoGymVectorEnv:
    """A ``gymnasium.vector.VectorEnv`` of ``num_envs`` single-agent games (the registered vector entry point).

    Keyword arguments: ``num_players``, ``rules``, ``opponents``, ``learner_seat``, ``seed``, ``num_threads``
    (see :class:`UnoSingleAgentVectorEnv`), ``flat_obs`` (the observation is the float32 vector alone; masks
    through ``action_masks()``).
    """
    return UnoGymVectorEnv(game, num_envs, **kwargs)
