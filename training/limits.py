"""Bounds of one arena run, read by the arena and by the configs that set its games and workers.

They are far above any real use: they turn a typo into an error instead of a fork bomb (workers are processes) or a
machine out of memory (every game's record is kept until the table is made).
"""
from __future__ import annotations

__all__ = ["MAX_GAMES", "MAX_WORKERS", "ARENA_SEED_MAX"]

MAX_GAMES = 10**8
MAX_WORKERS = 1024
#: the arena's seeds keep 63 bits (``arena_seating.game_seeds``): a larger or negative one would alias another
ARENA_SEED_MAX = 2**63 - 1
