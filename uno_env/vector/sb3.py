"""The batch as a stable-baselines3 ``VecEnv``, for (Maskable)PPO without subprocesses.

Importing this module imports stable-baselines3 (``pip install uno-env[train]``); ``uno_env.vector`` imports it
only when ``make_sb3_vec_env`` is called or ``UnoSB3VecEnv`` is asked for."""
from __future__ import annotations

import time
from typing import Any, cast

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from .. import seeding
from .._exact_copy import ExactCopy
from .._state_checks import check_arrays_like
from ..yaml_io import is_finite_number, short_repr
from ._base import spaces
from .gym import checked_inner_env
from .single import UnoSingleAgentVectorEnv

_VECENV_OWN = {"reset", "step", "step_async", "step_wait", "close", "seed", "render", "get_attr", "set_attr",
               "env_method", "env_is_wrapped", "get_images"}


class UnoSB3VecEnv(ExactCopy, VecEnv):
    """A stable-baselines3 ``VecEnv`` over :class:`UnoSingleAgentVectorEnv`, for MaskablePPO without subprocesses.

    ``dict_obs=True``: observations ``{"observation", "action_mask"}`` (``MultiInputPolicy``); False: the
    observation vector alone (``MlpPolicy``; masks still come from ``action_masks()``).  Ended games report
    ``terminal_observation``, ``TimeLimit.truncated``, ``winner`` and a VecMonitor-style ``episode``
    (``r``, ``l``, ``t``) in their info dict, so SB3 logs episode returns without a Monitor wrapper.
    """

    def __init__(self, game: str = "classic", num_envs: int = 8, *, dict_obs: bool = True, **kwargs):
        if not isinstance(dict_obs, (bool, np.bool_)):
            raise TypeError(f"dict_obs must be True or False; got {dict_obs!r}")
        self.env = UnoSingleAgentVectorEnv(game, num_envs, **kwargs)
        self.game = self.env.game
        self.dict_obs = bool(dict_obs)
        self.render_mode = None
        single_obs, action_space = spaces(self.game, cast(int, self.env.rules.target_score))
        obs_space = single_obs if dict_obs else single_obs["observation"]
        super().__init__(num_envs, obs_space, action_space)
        self._actions: np.ndarray | None = None
        self._ep_return = np.zeros(num_envs, dtype=np.float64)
        self._ep_len = np.zeros(num_envs, dtype=np.int64)
        self._t0 = time.time()

    def _obs(self, obs: np.ndarray, masks: np.ndarray):
        if self.dict_obs:
            return {"observation": obs.copy(), "action_mask": masks.copy()}
        return obs.copy()

    def reset(self):
        """Reset every game (seeded by ``seed()`` if it was called) and return the learners' observations."""
        seeds = self._seeds
        try:
            arr = None if all(s is None for s in seeds) else np.array(
                [seeding.check_seed(s, "seed") if s is not None else seeding.random_seed() for s in seeds],
                dtype=np.uint64)
        except (TypeError, ValueError):
            self._reset_seeds()  # a refused seed() applies to no later reset either
            raise
        obs, masks = self.env.reset(arr)
        self._reset_seeds()
        self._reset_options()
        self._ep_return[:] = 0.0
        self._ep_len[:] = 0
        return self._obs(obs, masks)

    def step_async(self, actions: np.ndarray) -> None:
        """Hold the learners' actions for :meth:`step_wait`."""
        self._actions = actions

    def step_wait(self):
        """Play the held actions: ``(obs, rewards, dones, infos)``, finished games reset (SB3's contract)."""
        obs, masks, rew, term, trunc, info = self.env.step(self._actions)
        self._ep_return += rew
        self._ep_len += 1
        done = term | trunc
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(done)
        if ended.size:
            now = round(time.time() - self._t0, 6)
            final_obs = info["final_observation"]
            zero_mask = np.zeros(self.game.num_actions, dtype=np.int8)
            for b in ended.tolist():
                terminal = ({"observation": final_obs[b].copy(), "action_mask": zero_mask.copy()}
                            if self.dict_obs else final_obs[b].copy())
                infos[b] = {
                    "terminal_observation": terminal,
                    "TimeLimit.truncated": bool(trunc[b] and not term[b]),
                    "winner": int(info["winner"][b]),
                    "episode": {"r": float(self._ep_return[b]), "l": int(self._ep_len[b]), "t": now},
                }
            self._ep_return[ended] = 0.0
            self._ep_len[ended] = 0
        return self._obs(obs, masks), rew.astype(np.float32), done.copy(), infos

    def action_masks(self) -> np.ndarray:
        """The (B, A) legal-action masks of the learners, as booleans (what MaskablePPO asks for)."""
        return self.env.masks.astype(bool)

    def close(self) -> None:
        """Stop the batch's helper threads."""
        self.env.close()

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        """The batch's attribute ``attr_name``, once per index (the games share it)."""
        target = self if attr_name in ("action_masks", "render_mode") else self.env
        value = getattr(target, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        """Set the batch's attribute ``attr_name`` (for every game: they share it)."""
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        """Calls the method once for the whole batch (on this adapter if it has it, else on ``self.env``)."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return list(masks[idx]) if len(idx) != self.num_envs else list(masks)
        target = self if hasattr(self, method_name) and method_name not in _VECENV_OWN else self.env
        result = getattr(target, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices=None) -> list[bool]:
        """False for every game: the batch has no per-game Gymnasium wrappers."""
        return [False for _ in self._indices(indices)]

    def get_images(self):
        """None per game: the batch does not render."""
        return [None for _ in range(self.num_envs)]

    # -- copies (``_exact_copy.ExactCopy``): the batch copies itself; this face adds its episode tallies -------
    def _copy_init(self) -> dict[str, Any]:
        return {**self.env._copy_init(), "dict_obs": self.dict_obs}  # the batch's own arguments (package-private)

    def _copy_state(self) -> dict[str, Any]:
        return {"env": self.env, "tallies": (self._ep_return.copy(), self._ep_len.copy()), "t0": self._t0,
                "actions": self._actions, "seeds": list(self._seeds), "options": list(self._options)}

    def _load_copy_state(self, state: Any) -> None:
        keys = {"env", "tallies", "t0", "actions", "seeds", "options"}
        if not isinstance(state, dict) or set(state) != keys:
            raise ValueError(f"a copy of a UnoSB3VecEnv: expected {sorted(keys)}, got {short_repr(state)}")
        check_arrays_like("a copy of a UnoSB3VecEnv", state["tallies"], (self._ep_return, self._ep_len),
                          ("episode returns", "episode lengths"))
        seeds, options = state["seeds"], state["options"]
        if not isinstance(seeds, list) or len(seeds) != self.num_envs or not isinstance(options, list) \
                or len(options) != self.num_envs or not is_finite_number(state["t0"]):
            raise ValueError(f"a copy of a UnoSB3VecEnv: expected {self.num_envs} seeds and options and a start "
                             f"time, got {short_repr(state)}")
        self.env.close()
        self.env = checked_inner_env(state["env"], self.env)
        self._ep_return[:], self._ep_len[:] = state["tallies"]
        self._t0, self._actions = float(state["t0"]), state["actions"]
        self._seeds, self._options = seeds, options

