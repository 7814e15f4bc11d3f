"""The functions of the versioned modules ``uno_env.classic_v0``, ``pocket_v0`` and ``dice_v0`` (PettingZoo's
``<name>_v<version>`` module convention): one game's ``env``, ``raw_env`` and ``parallel_env``, built once here."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import aec, parallel


def versioned(game: str, title: str) -> tuple[Callable[..., aec.raw_env], Callable[..., aec.raw_env],
                                                Callable[..., parallel.UnoParallelEnv]]:
    """``(env, raw_env, parallel_env)`` of ``game``, named and documented as the module ``uno_env.<game>_v0``'s."""

    def env(num_players: int | None = None, rules: Any = None, render_mode: str | None = None,
            flat_obs: bool = False) -> aec.raw_env:
        return aec.env(game, num_players=num_players, rules=rules, render_mode=render_mode, flat_obs=flat_obs)

    def raw_env(num_players: int | None = None, rules: Any = None, render_mode: str | None = None,
                flat_obs: bool = False) -> aec.raw_env:
        return aec.raw_env(game, num_players=num_players, rules=rules, render_mode=render_mode, flat_obs=flat_obs)

    def parallel_env(num_players: int | None = None, rules: Any = None, **options: Any) -> parallel.UnoParallelEnv:
        return parallel.parallel_env(game, num_players=num_players, rules=rules, **options)

    call = f'("{game}", ...)``.'
    env.__doc__ = f"{title} with PettingZoo's standard checks: ``uno_env.env{call}"
    raw_env.__doc__ = f"{title} without the illegal-action handling of ``env()``: ``uno_env.raw_env{call}"
    parallel_env.__doc__ = f"{title} as a PettingZoo Parallel environment: ``uno_env.parallel_env{call}"
    for function in (env, raw_env, parallel_env):
        function.__module__, function.__qualname__ = f"uno_env.{game}_v0", function.__name__
    return env, raw_env, parallel_env
