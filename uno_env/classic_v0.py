"""UNO classic (PettingZoo AEC and Parallel), version 0: `uno_env.classic_v0.env(...)`, `parallel_env(...)`."""
from __future__ import annotations

from typing import Any

from . import aec, parallel


def env(num_players: int | None = None, rules: Any = None, render_mode: str | None = None,
        flat_obs: bool = False) -> aec.raw_env:
    """Classic UNO with PettingZoo's standard checks: ``uno_env.env("classic", ...)``."""
    return aec.env("classic", num_players=num_players, rules=rules, render_mode=render_mode, flat_obs=flat_obs)


def raw_env(num_players: int | None = None, rules: Any = None, render_mode: str | None = None,
            flat_obs: bool = False) -> aec.raw_env:
    """Classic UNO without the illegal-action handling of ``env()``: ``uno_env.raw_env("classic", ...)``."""
    return aec.raw_env("classic", num_players=num_players, rules=rules, render_mode=render_mode, flat_obs=flat_obs)


def parallel_env(num_players: int | None = None, rules: Any = None, **options: Any) -> parallel.UnoParallelEnv:
    """Classic UNO as a PettingZoo Parallel environment: ``uno_env.parallel_env("classic", ...)``."""
    return parallel.parallel_env("classic", num_players=num_players, rules=rules, **options)
