"""The environments ``uno-env train`` learns on: Gymnasium envs whose other seats come from the opponent pool.

``env.n_envs`` copies of :class:`uno_env.gym_env.UnoGymEnv`, each wrapped (:class:`PoolWrapper`) so that before
every episode the other seats' players are drawn from the opponent pool (:mod:`training.pool`), run as an SB3
``DummyVecEnv`` / ``SubprocVecEnv``; or the batched simulator's VecEnv (``env.vec_env: batched``: one fixed
baseline, no self-play).  The trainer pushes the pool's snapshot list into every environment with
:func:`broadcast_pool`, so this works across processes.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from uno_env.agents.registry import load_agent
from uno_env.config import make_rules
from uno_env.core.game import Game
from uno_env.gym_env import UnoGymEnv
from uno_env.vector import make_sb3_vec_env

from .config import TrainConfig, config_from_dict, config_to_dict
from .pool import SNAPSHOT_PREFIX, OpponentPool
from .selfplay import make_opponent

__all__ = ["PoolWrapper", "make_vec_env", "broadcast_pool"]


class _OpponentSampler:
    """Draws the other seats' players from the opponent pool (one per seat, every episode).

    Opponent agents are built once per spec and cached (snapshots are numpy, a few hundred kB).
    """

    def __init__(self, pool: OpponentPool, game, num_opponents: int, seed: int, deterministic: bool):
        self.pool = pool
        self.game = game
        self.num_opponents = num_opponents
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.pool.rng = np.random.default_rng(self.rng.integers(2**63))
        self._cache: dict[str, Any] = {}
        self.current: list[str] = []

    def agent(self, spec: str):
        agent = self._cache.get(spec)
        if agent is None:
            agent = make_opponent(spec, self.game, seed=int(self.rng.integers(2**31)),
                                  deterministic=self.deterministic)
            self._cache[spec] = agent
        return agent

    def set_pool(self, snapshots: list[dict], selfplay_active: bool) -> None:
        self.pool.snapshots = [dict(s) for s in snapshots]
        self.pool.selfplay_active = bool(selfplay_active)
        keep = {SNAPSHOT_PREFIX + s["path"] for s in snapshots}
        for spec in [s for s in self._cache if s.startswith(SNAPSHOT_PREFIX) and s not in keep]:
            del self._cache[spec]

    def draw(self) -> list:
        """New opponents for the next episode: agent objects, one per other seat."""
        self.current = self.pool.sample(self.num_opponents)
        return [self.agent(s) for s in self.current]


class PoolWrapper(gym.Wrapper):
    """Sets the other seats' players, drawn from the opponent pool, before every episode."""

    def __init__(self, env, sampler: _OpponentSampler):
        super().__init__(env)
        self.sampler = sampler
        self._fresh = True  # the opponents given to the env's constructor serve the first episode

    def reset(self, *, seed=None, options=None):
        """Draw new opponents from the pool (after the first episode), then reset the wrapped env."""
        if self._fresh:
            self._fresh = False
        else:
            self.env.unwrapped.set_opponents(self.sampler.draw())
        obs, info = self.env.reset(seed=seed, options=options)
        info = dict(info)
        info["opponents"] = list(self.sampler.current)
        return obs, info

    def set_pool(self, snapshots, selfplay_active):
        """Replace the self-play snapshots the opponents are drawn from."""
        self.sampler.set_pool(snapshots, selfplay_active)

    def action_masks(self):
        """The learner's legal actions (what MaskablePPO calls)."""
        return self.env.unwrapped.action_masks()


def _make_wrapped_env(cfg_dict: dict, rank: int, seed: int, pool_state: dict):
    """Env ``rank`` (built in whichever process runs it): the Gymnasium env + opponent pool + Monitor."""
    # Stable-Baselines3 (with torch: the train extra) is imported where its wrappers are built, here and in
    # make_vec_env: the batched simulator and the pool need neither
    from stable_baselines3.common.monitor import Monitor

    cfg = config_from_dict(cfg_dict, validate=False)
    e, o = cfg.env, cfg.opponents
    pool = OpponentPool(o.baselines, o.selfplay_prob, o.latest_prob, o.pool_size, seed=seed)
    pool.snapshots = [dict(s) for s in pool_state.get("snapshots", [])]
    pool.selfplay_active = bool(pool_state.get("selfplay_active", False))
    rules = make_rules(e.game, e.num_players, e.rules)
    game = Game(rules)
    sampler = _OpponentSampler(pool, game, e.num_players - 1, seed + 7919, o.deterministic)
    base = UnoGymEnv(game=e.game, num_players=e.num_players, rules=rules, opponents=sampler.draw(),
                     learner_seat=e.learner_seat)
    return Monitor(PoolWrapper(base, sampler))


class _EnvFn:
    """A picklable env factory (SubprocVecEnv ships it to the worker)."""

    def __init__(self, cfg_dict, rank, seed, pool_state):
        self.args = (cfg_dict, rank, seed, pool_state)

    def __call__(self) -> gym.Env:
        return _make_wrapped_env(*self.args)


def make_vec_env(cfg: TrainConfig, pool: OpponentPool, seed: int):
    """``cfg.env.n_envs`` environments as one SB3 VecEnv (the kind chosen by ``env.vec_env``)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    kind = cfg.env.vec_env
    if kind == "batched":
        venv = _batched_vec_env(cfg, seed)
    else:
        cfg_dict = config_to_dict(cfg)
        pool_state = {"snapshots": pool.snapshots, "selfplay_active": pool.selfplay_active}
        fns: list[Callable[[], gym.Env]] = [_EnvFn(cfg_dict, i, seed + 1000 * i, pool_state)
                                            for i in range(cfg.env.n_envs)]
        if kind == "subproc":
            venv = SubprocVecEnv(fns, start_method="fork" if sys.platform.startswith("linux") else None)
        else:
            venv = DummyVecEnv(fns)
    venv.seed(seed)
    return venv


def _batched_vec_env(cfg: TrainConfig, seed: int):
    """The batched simulator's SB3 VecEnv (``uno_env.vector``): one baseline in every other seat, no self-play.

    It runs every game in one compiled call and the opponents through ``act_batch``, but its opponents are fixed
    per environment, so it cannot draw a new opponent each episode (the config check enforces one baseline and
    ``opponents.selfplay_start: 1.0`` with it).
    """
    e = cfg.env
    rules = make_rules(e.game, e.num_players, e.rules)
    (name,) = [n for n, w in cfg.opponents.baselines.items() if w > 0]
    opponent = "random" if name == "random" else load_agent(name, Game(rules), seed=seed)
    seat = "rotate" if e.learner_seat == "random" else e.learner_seat
    return make_sb3_vec_env(e.game, e.n_envs, num_players=e.num_players, rules=rules, opponents=opponent,
                            learner_seat=seat, seed=seed)


def broadcast_pool(venv, pool: OpponentPool) -> None:
    """Push the pool's snapshot list to every environment (in whichever process it runs)."""
    venv.env_method("set_pool", [dict(s) for s in pool.snapshots], pool.selfplay_active)
