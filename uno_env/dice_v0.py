"""UNO dice (PettingZoo AEC), version 0: `uno_env.dice_v0.env(num_players=..., rules=..., render_mode=...)`."""
from __future__ import annotations

from typing import Any

from . import aec


def env(num_players: int | None = None, rules: Any = None, render_mode: str | None = None) -> aec.raw_env:
    """UNO Dice with PettingZoo's standard checks: ``uno_env.env("dice", ...)``."""
    return aec.env("dice", num_players=num_players, rules=rules, render_mode=render_mode)


def raw_env(num_players: int | None = None, rules: Any = None, render_mode: str | None = None) -> aec.raw_env:
    """UNO Dice without the illegal-action handling of ``env()``: ``uno_env.raw_env("dice", ...)``."""
    return aec.raw_env("dice", num_players=num_players, rules=rules, render_mode=render_mode)
