"""The global state vector of one game (PettingZoo's ``state()``, for centralised critics).

Unlike an observation, the state holds everything: every hand, the composition of the piles and the public
fields.  It is built from the core's public observer and ``Game.state_dict``, never from the state row's layout.
Seat-indexed blocks are in seat order (seat 0 first), not relative to a viewer.  The draw pile's order is not in
it (only what it holds): no player can know the order, and a critic should not learn to rely on it.
"""
from __future__ import annotations

import numpy as np

from .core.cards import COLOURS
from .core.engine import PHASE_NAMES
from .core.observe import observe_one


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
            (nd * 6, "die_face", "one-hot face index 0..5 each die shows (row-major: die, then face)"),
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
        (n, "current_seat", "one-hot seat to act (all 0 once the game is over)"),
        (n, "called_uno", "1 where that seat called UNO and still holds one card"),
        (1, "pending", "cards the pending draw card makes its victim draw"),
        (k, "drawn", "one-hot kind the seat to act drew this turn (drawn phase)"),
        (n, "scores", "match scores / target score"),
    ]
    out, offset = [], 0
    for length, name, meaning in rows:
        out.append((offset, length, name, meaning))
        offset += length
    return out


class StateEncoder:
    """Builds the vector of :func:`state_layout` from a game's state row.

    Most blocks come from the compiled observer, called once per seat (a seat's own hand is in its own
    observation, the public fields are in everyone's, and seat 0's view lists seats in absolute order); the draw
    pile is what the deck holds beyond the hands and the discard pile.  About 20x cheaper than encoding a
    ``state_dict``, which matters for a critic called every step.
    """

    def __init__(self, game):
        self.game = game
        self.layout = state_layout(game)
        self.size = self.layout[-1][0] + self.layout[-1][1]
        self._at = {name: slice(off, off + ln) for off, ln, name, _ in self.layout}
        self._obs_at = {name: slice(off, off + ln) for off, ln, name, _ in game.observation_layout}
        self._views = np.zeros((game.num_players, game.obs_dim), dtype=np.float32)
        self._deck: np.ndarray | None = None

    def _deck_counts(self, st: np.ndarray) -> np.ndarray:
        # cards are conserved, so any state of the game shows the whole deck
        if self._deck is None:
            d = self.game.state_dict(st)
            deck = np.zeros(self.game.num_kinds, dtype=np.float32)
            for name in [c for hand in d["hands"] for c in hand] + d["draw_pile"] + d["discard_pile"]:
                deck[self.game.kinds.index(name)] += 1
            self._deck = deck
        return self._deck

    def encode(self, st: np.ndarray) -> np.ndarray:
        """The state vector of the game state row ``st``."""
        g, at, obs_at, views = self.game, self._at, self._obs_at, self._views
        for seat in range(g.num_players):
            observe_one(st, g.cfg, g.spec, g.obs_offsets, seat, views[seat])
        first = views[0]  # seat 0's view: seat-indexed blocks in absolute seat order
        v = np.zeros(self.size, dtype=np.float32)
        hands = views[:, obs_at["hand"]]
        v[at["hands"]] = hands.ravel()
        if g.name == "dice":
            v[at["bag"]] = first[obs_at["bag"]]
            n = g.num_players
            place = first[obs_at["die_place"]].reshape(-1, n + 2)  # seat 0's view: seats, bag, centre
            v[at["centre_die"]] = place[:, n + 1]
            v[at["die_seat"]] = place[:, :n].ravel()
            v[at["die_face"]] = first[obs_at["die_face"]]
        else:
            discard = first[obs_at["discarded"]]
            v[at["discard_pile"]] = discard
            v[at["draw_pile"]] = self._deck_counts(st) - hands.sum(axis=0) - discard
        for name in ("top", "colour", "phase", "direction", "called_uno", "pending", "scores"):
            v[at[name]] = first[obs_at[name]]
        v[at["current_seat"]] = first[obs_at["acting"]]
        v[at["drawn"]] = views[:, obs_at["drawn"]].sum(axis=0)  # only the seat to act can have drawn
        return v
