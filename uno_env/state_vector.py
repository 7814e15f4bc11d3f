"""The global state vector of one game (PettingZoo's ``state()``, for centralised critics).

Unlike an observation, the state holds everything: every hand, the composition of the piles and the public
fields.  It is built from :meth:`Game.state_dict`, so it follows the core's state without reading its layout.
Seat-indexed blocks are in seat order (seat 0 first), not relative to a viewer.  The draw pile's order is not in
it (only what it holds): no player can know the order, and a critic should not learn to rely on it.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from .core.cards import COLOURS
from .core.engine import PHASE_NAMES


def state_layout(game) -> list[tuple[int, int, str, str]]:
    """Rows of (offset, length, name, meaning) of the state vector of ``game`` (a :class:`Game`)."""
    n, k = game.num_players, game.num_kinds
    rows: list[tuple[int, str, str]] = [(n * k, "hands", "count of each kind in each seat's hand, seat 0 first")]
    if game.name == "dice":
        nd = game.dice.shape[0]
        rows += [
            (nd, "bag", "1 where that die is in the bag"),
            (nd, "centre_die", "1 for the die in the centre"),
            (nd * n, "die_seat", "1 where die i is in seat s's hand (row-major: die, then seat)"),
        ]
    else:
        rows += [
            (k, "draw_pile", "count of each kind in the draw pile (its order is left out)"),
            (k, "discard_pile", "count of each kind in the discard pile"),
        ]
    rows += [
        (k, "top", "one-hot kind on top of the discard pile (dice: the centre die's face)"),
        (len(COLOURS), "colour", "one-hot current colour (red, yellow, green, blue)"),
        (len(PHASE_NAMES), "phase", "one-hot phase: " + ", ".join(PHASE_NAMES)),
        (1, "direction", "+1 clockwise, -1 counter-clockwise"),
        (n, "current_seat", "one-hot seat to act"),
        (n, "called_uno", "1 where that seat called UNO and still holds one card"),
        (1, "pending", "cards the pending draw card makes its victim draw"),
        (k, "drawn", "one-hot kind the seat to act drew this turn and may still play"),
        (n, "scores", "match scores / target score"),
        (1, "turns", "decisions taken this episode / max_turns (0 without a limit)"),
    ]
    out, offset = [], 0
    for length, name, meaning in rows:
        out.append((offset, length, name, meaning))
        offset += length
    return out


class StateEncoder:
    """Turns ``Game.state_dict`` output into the float32 vector described by :func:`state_layout`."""

    def __init__(self, game):
        self.game = game
        self.layout = state_layout(game)
        self.size = self.layout[-1][0] + self.layout[-1][1]
        self._offset = {name: off for off, _, name, _ in self.layout}
        self._kind = {name: i for i, name in enumerate(game.kinds.names)}

    def encode(self, d: Mapping[str, Any]) -> np.ndarray:
        """The state vector of ``d`` (a ``Game.state_dict`` of this game)."""
        g, o, kind = self.game, self._offset, self._kind
        n, k = g.num_players, g.num_kinds
        v = np.zeros(self.size, dtype=np.float32)
        for seat, hand in enumerate(d["hands"]):
            for name in hand:
                v[o["hands"] + seat * k + kind[name]] += 1
        if g.name == "dice":
            for i, die in enumerate(d["dice"]):
                loc = die["location"]
                if loc == "bag":
                    v[o["bag"] + i] = 1
                elif loc == "centre":
                    v[o["centre_die"] + i] = 1
                else:
                    v[o["die_seat"] + i * n + int(loc)] = 1
        else:
            for name in d["draw_pile"]:
                v[o["draw_pile"] + kind[name]] += 1
            for name in d["discard_pile"]:
                v[o["discard_pile"] + kind[name]] += 1
        v[o["top"] + kind[d["top"]]] = 1
        v[o["colour"] + COLOURS.index(d["current_colour"])] = 1
        v[o["phase"] + PHASE_NAMES.index(d["phase"])] = 1
        v[o["direction"]] = d["direction"]
        v[o["current_seat"] + d["current_seat"]] = 1
        v[o["called_uno"]: o["called_uno"] + n] = d["called_uno"]
        v[o["pending"]] = d["pending_draw"]
        if d.get("drawn") is not None:
            v[o["drawn"] + kind[d["drawn"]]] = 1
        v[o["scores"]: o["scores"] + n] = np.asarray(d["scores"], dtype=np.float32) / g.rules.target_score
        if g.rules.max_turns:
            v[o["turns"]] = d["turns"] / g.rules.max_turns
        return v
