"""UNO pocket (PettingZoo AEC), version 0: `uno_env.pocket_v0.env(num_players=..., rules=..., render_mode=...)`."""
from __future__ import annotations

from typing import Any

from . import aec


def env(num_players: int | None = None, rules: Any = None, render_mode: str | None = None) -> aec.raw_env:
    """UNO Pocket Pizza Pizza with PettingZoo's standard checks: ``uno_env.env("pocket", ...)``."""
    return aec.env("pocket", num_players=num_players, rules=rules, render_mode=render_mode)


def raw_env(num_players: int | None = None, rules: Any = None, render_mode: str | None = None) -> aec.raw_env:
    """UNO Pocket Pizza Pizza without the illegal-action handling of ``env()``: ``uno_env.raw_env("pocket", ...)``."""
    return aec.raw_env("pocket", num_players=num_players, rules=rules, render_mode=render_mode)
