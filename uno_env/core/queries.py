"""What an agent may ask the rules, from what its seat sees: no agent derives a rule again.

:class:`RulesQuery` answers from the public parts of an observation (own hand, top card, current colour) by
running the compiled rules themselves on a scratch state, so an agent's idea of "is this Wild Draw Four legal
now" is always the engine's.  The phase ids (``PH_*``) and names are re-exported for agents that branch on the
observation's one-hot phase block.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import actions as A
from . import matching
from .layout import (  # noqa: F401 - re-exported for agents
    NUM_PHASES,
    PH_COLOUR,
    PH_DRAWN,
    PH_GIVE,
    PH_JUMP,
    PH_OVER,
    PH_PENDING,
    PH_REROLLED,
    PH_SWAP,
    PH_TURN,
    PHASE_NAMES,
    STATE_DTYPE,
    STATE_LEN,
    StateView,
)


class RulesQuery:
    """Rule questions about one configured game (a :class:`~uno_env.core.game.Game`)."""

    def __init__(self, game: Any):
        self.game = game
        self._row = np.zeros(STATE_LEN, dtype=STATE_DTYPE)
        self._view = StateView(self._row)
        self._offsets = A.offsets(game.num_kinds)

    def restricted_wild_legal(self, hand: np.ndarray, top: int, colour: int) -> bool:
        """Whether a Wild Draw Four / Wild Draw 2 is a legal (non-bluff) play for a seat holding ``hand``
        (counts per kind) with ``top`` on the discard pile and ``colour`` the current colour."""
        k = self.game.num_kinds
        v = self._view
        v.hand[0, :k] = np.asarray(hand[:k], dtype=STATE_DTYPE)
        v.top = int(top)
        v.colour = int(colour)
        return bool(matching.restricted_wild_legal(self._row, self.game.cfg, self.game.spec, 0))

    def play_of(self, action: int) -> tuple[int, bool] | None:
        """``(kind, calls_uno)`` when ``action`` plays a card/die, else None."""
        k = self.game.num_kinds
        if 0 <= action < self._offsets["colour"]:
            return action % k, action >= self._offsets["play_uno"]
        return None

    def section(self, action: int) -> tuple[str, int]:
        """(section name, index within the section) of ``action`` in the action table."""
        return A.section_of(action, self.game.num_kinds)
