"""How a seed becomes the deals of a game's episodes (the AEC, Gymnasium and batched envs all use this).

A game reset with ``reset(seed=s)`` (``0 <= s < 2**64``) and then ``reset()``, ``reset()``, ... plays episodes
``e = 0, 1, 2, ...``; episode ``e`` is dealt by the core from the *core seed*

    episode_seed(s, e) = splitmix64(s + (e + 1) * 0x9E3779B97F4A7C15 mod 2**64) >> 1

that is, the ``e``-th output of a splitmix64 stream seeded with ``s``, halved to fit a non-negative int64.  It
costs a few integer operations in plain Python (far less than building a numpy ``Generator``), any episode's seed
can be computed directly, without stepping through the ones before it, and neighbouring seeds (``s``, ``s + 1``,
as Gymnasium's vector envs hand out) give unrelated deals.
"""
from __future__ import annotations

import os

import numpy as np

__all__ = ["episode_seed", "episode_seeds", "check_seed", "random_seed", "SEED_LIMIT"]

SEED_LIMIT = 2**64
_M64 = 2**64 - 1
_GAMMA = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def episode_seed(seed: int, episode: int) -> int:
    """The core seed of episode ``episode`` (0 = the first) of a game reset with ``seed``."""
    return _mix((seed + (episode + 1) * _GAMMA) & _M64) >> 1


def episode_seeds(seeds: np.ndarray, first: np.ndarray | int, count: int) -> np.ndarray:
    """(len(seeds), count) int64 core seeds of episodes ``first .. first + count - 1`` of each game (vectorised)."""
    s = np.asarray(seeds).astype(np.uint64).reshape(-1, 1)
    e = np.asarray(first, dtype=np.uint64).reshape(-1, 1) + np.arange(1, count + 1, dtype=np.uint64)
    z: np.ndarray = s + e * np.uint64(_GAMMA)  # uint64 array arithmetic wraps modulo 2**64, as splitmix64 needs
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(1)).astype(np.int64)


def check_seed(seed: object, name: str = "seed") -> int:
    """``seed`` as an int, or a TypeError/ValueError naming ``name`` and what is allowed."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{name} must be an int or None, got {type(seed).__name__}")
    value = int(seed)
    if not 0 <= value < SEED_LIMIT:
        raise ValueError(f"{name} must be in [0, 2**64), got {value}")
    return value


def random_seed() -> int:
    """A fresh seed from the operating system's entropy (for a first reset without a seed)."""
    return int.from_bytes(os.urandom(8), "little")
