"""The batched simulator: B games of one configured UNO game stepped together in one call of the compiled core.

Four faces over the same kernels (``uno_env.players.batch_play``, ``uno_env.core.batch``):

* :class:`UnoVectorEnv` -- multi-agent (self-play, search).  Every game reports the seat to act, that seat's
  observation and legal mask; ``step(actions)`` applies one action per game (the acting seat's), and returns
  every seat's reward.  ``reset(seeds)`` -> ``(obs (B, D) float32, masks (B, A) int8, seats (B,) int64)``;
  ``step(actions)`` -> ``(obs, masks, seats, rewards (B, n) float32, terminated (B,), truncated (B,), infos)``.
* :class:`UnoSingleAgentVectorEnv` -- one learner seat per game; the other seats are played in-batch, either by
  uniformly random legal play inside the compiled kernel (``opponents="random"``, the default), or by batched
  policies (any object with ``act_batch(observations (B, D) float32, masks (B, A) int8) -> (B,) int64``), called
  once per opponent seat and round of moves over the games that still wait for an opponent: no per-game Python.
* :func:`make_gym_vector_env` -> :class:`UnoGymVectorEnv`, a ``gymnasium.vector.VectorEnv`` (what
  ``gymnasium.make_vec("uno_env/Classic-v0", num_envs=N, vectorization_mode="vector_entry_point")`` returns).
* :func:`make_sb3_vec_env` -> ``UnoSB3VecEnv``, a stable-baselines3 ``VecEnv`` with ``action_masks()`` for
  sb3-contrib's MaskablePPO (no subprocesses).  stable-baselines3 is imported only when this is called.

Seeds.  Game ``b`` reset with seed ``s`` plays the same episodes as ``uno_env.env(...)`` reset with
``reset(seed=s)``, then ``reset()``, ``reset()``, ...: episode ``e`` of the game is dealt from the core seed
``uno_env.seeding.episode_seed(s, e)`` (a splitmix64 mix of ``s`` and ``e``; :func:`episode_seeds`).  Finished games
reset automatically in the same call, from their next episode seed, so a game's trajectory (given its actions)
is the same in a batch of any size as alone.  ``reset(seeds=int)`` gives game ``b`` the seed ``seed + b`` (as
Gymnasium's vector envs do); ``reset()`` without seeds, after a first reset, starts every game's next episode.
The random opponents of :class:`UnoSingleAgentVectorEnv` draw from a per-game stream seeded by the episode's core
seed, so their play is reproducible per game too.

Threads.  ``num_threads=`` (every face; default: the environment variable ``UNO_ENV_NUM_THREADS``, else the
number of CPUs the process may use) splits a call's games into chunks run by that many threads, the caller's
included; ``num_threads=1`` runs everything in the calling thread.  The threads are plain Python threads running
GIL-free compiled code: no OpenMP, no numba threading layer, and no other library's thread count is touched.  A
thread the OS does not schedule (a busy machine) takes fewer chunks and the caller takes the rest, so a call is not
much slower than on one thread.  Results never depend on the thread count.

Memory.  Once a batch's state, observation and mask rows outgrow the caches, the kernel asks for the next games'
memory while it steps one (software prefetch); below that size the processor's own prefetchers do as well and the
extra instructions only cost time, so the attribute ``prefetch`` is set from the batch's size (over
``PREFETCH_MIN_BYTES``).  Set it to measure either way: results never depend on it.

Buffers.  Observations, masks, seats, rewards and flags are preallocated and rewritten in place by every call:
copy what you keep (the Gymnasium and SB3 faces return copies).  ``infos`` describes the episodes that ended in
this call (columns valid where ``terminated | truncated``): ``winner`` (-1 when truncated), ``episode_turns``,
``episode_rounds``, ``episode`` (its index for that game), ``seed`` (its core seed), ``final_observation``
and ``final_seat`` (whose view it is: the last actor's in the multi-agent face, the learner's in the
single-agent face).

Modules: :mod:`uno_env.vector.multi` (:class:`UnoVectorEnv`), :mod:`uno_env.vector.single`
(:class:`UnoSingleAgentVectorEnv`), :mod:`uno_env.vector.policy` (:class:`RandomLegalPolicy`),
:mod:`uno_env.vector.gym` (the Gymnasium face) and :mod:`uno_env.vector.sb3` (the stable-baselines3 face, imported
on first use); every name is importable from ``uno_env.vector`` itself.
"""
from __future__ import annotations

from typing import Any

from ._base import PREFETCH_MIN_BYTES, SEEDS_PER_REFILL, episode_seeds, game_seed
from .gym import UnoGymVectorEnv, make_gym_vector_env
from .multi import UnoVectorEnv
from .policy import RandomLegalPolicy
from .single import UnoSingleAgentVectorEnv

__all__ = [
    "UnoVectorEnv", "UnoSingleAgentVectorEnv", "UnoGymVectorEnv", "UnoSB3VecEnv",  # noqa: F822 - UnoSB3VecEnv below
    "RandomLegalPolicy", "make_gym_vector_env", "PREFETCH_MIN_BYTES", "SEEDS_PER_REFILL",
    "make_sb3_vec_env", "game_seed", "episode_seeds",
]


def make_sb3_vec_env(game: str = "classic", num_envs: int = 8, **kwargs: Any) -> Any:
    """A stable-baselines3 ``VecEnv`` of ``num_envs`` single-agent games, for (Maskable)PPO without subprocesses
    (:class:`uno_env.vector.sb3.UnoSB3VecEnv`).

    Keyword arguments: ``dict_obs`` (default True), ``num_players``, ``rules``, ``opponents``, ``learner_seat``,
    ``seed``, ``num_threads``.  Needs stable-baselines3 (``pip install uno-env[train]``), imported only now.
    """
    from .sb3 import UnoSB3VecEnv

    return UnoSB3VecEnv(game, num_envs, **kwargs)


def __getattr__(name: str) -> Any:
    # the SB3 face is imported on first use, so importing uno_env never imports stable_baselines3
    if name == "UnoSB3VecEnv":
        from .sb3 import UnoSB3VecEnv

        return UnoSB3VecEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
