"""UNO dice (PettingZoo AEC and Parallel), version 0: `uno_env.dice_v0.env(...)`, `parallel_env(...)`."""
from __future__ import annotations

from typing import Any

from . import aec, parallel


def env(num_players: int | None = None, rules: Any = None, render_mode: str | None = None,
        flat_obs: bool = False) -> aec.raw_env:
    """UNO Dice with PettingZoo's standard checks: ``uno_env.env("dice", ...)``."""
    return aec.env("dice", num_players=num_players, rules=rules, render_mode=render_mode, flat_obs=flat_obs)


def raw_env(num_players: int | None = None, rules: Any = None, render_mode: str | None = None,
            flat_obs: bool = False) -> aec.raw_env:
    """UNO Dice without the illegal-action handling of ``env()``: ``uno_env.raw_env("dice", ...)``."""
    return aec.raw_env("dice", num_players=num_players, rules=rules, render_mode=render_mode, flat_obs=flat_obs)


def parallel_env(num_players: int | None = None, rules: Any = None, **options: Any) -> parallel.UnoParallelEnv:
    """UNO Dice as a PettingZoo Parallel environment: ``uno_env.parallel_env("dice", ...)``."""
    return parallel.parallel_env("dice", num_players=num_players, rules=rules, **options)
