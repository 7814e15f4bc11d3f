"""Exact copies of environments: ``pickle``, ``copy.deepcopy`` and ``copy.copy`` keep the game where it is.

``gymnasium.utils.EzPickle`` pickles only the constructor arguments, so a copy of a mid-game environment would be
a fresh one that was never reset; search agents that clone an environment would silently plan on another game.
The shells mix :class:`ExactCopy` in before ``EzPickle`` so that a copy carries the whole state (the state rows,
the PRNG words, the seed generators and the opponents), and is independent of the original.
"""
from __future__ import annotations

import copy
from typing import Any


class ExactCopy:
    """Copy the instance dict; ``_after_copy`` rebuilds what a copy cannot carry (array views, read-only flags)."""

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._after_copy()

    def __copy__(self):
        # a shallow copy would share the state rows, so stepping one env would move the other: always copy deeply
        return copy.deepcopy(self)

    def _after_copy(self) -> None:
        """Rebuild what the copied dict cannot carry; the shells add their own (the game restores its read-only
        tables itself, ``Game.__setstate__``)."""
