"""The one float64 parameter array every compiled player reads: the players' weights and, in UNO Dice, the dice
set's tables.

The batched kernel passes the same array to whichever player sits in a seat, and the agents build it once per
object (:func:`baseline_weight_array`).  Its layout:

    [0:16]   the card heuristic's weights (:data:`HEURISTIC_WEIGHTS` order, read as ``w[W_*]``)
    UNO Dice only, the dice block (:func:`dice_block`), from ``P_K`` on:
    [P_K] K   [P_D] D   [P_WEIGHTS: +8] the dice heuristic's weights (:data:`DICE_HEURISTIC_WEIGHTS` order, ``D_*``)
    then q (K x 4), top_p (K x 4), die_keep_value (D), die_kinds (D x 6: the kind each face of each die shows)

The UNO Dice players return -1 when the array does not hold that block for their game (:func:`block_fits`), so a
card game's array (or another dice set's) never makes them read past its end.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core._cache import track_dependencies
from ..core._jit import njit
from ..core.cards import COL_COLOUR, COL_SYMBOL, NO_COLOUR
from ._cache import player_sources

track_dependencies(__file__, player_sources())

#: the card-game heuristic's weights (``HeuristicAgent(weights=...)`` overrides them by name)
HEURISTIC_WEIGHTS: dict[str, float] = {
    "colour_count": 0.5,  # per card of the new colour left in hand after the play
    "other_match": 0.3,  # per card left that matches the new top by number/symbol only
    "points": 0.02,  # per point of the card shed
    "wild_save": 8.0,  # penalty for a wild while a coloured card is playable
    "wd_bonus": 6.0,  # a legal Wild Draw Four / Wild Draw 2: the next player draws (or draws 6 if it challenges)
    "extra_turn": 3.0,  # 2 players: a Skip/Reverse/Draw card with a card to follow it
    "aim": 6.0,  # the card hits a player close to going out
    "aim_size": 2,  # "close to going out": at most this many cards
    "feed_penalty": 6.0,  # the card hands the turn to a player close to going out
    "draw_card_bonus": 1.5,  # per card a draw card makes its victim draw
    "bluff_prior": 1.0,  # probability an opponent plays a Wild Draw card even when it is not legal
    "challenge_threshold": 0.25,  # challenge when P(guilty) exceeds this
    "colour_deny": 3.0,  # colour choice: times P(the player facing the colour can follow it)
    "stuck": 1.0,  # 2 players: an extra-turn card with no card to follow it
    "deny": 20.0,  # times P(the player facing the new top can follow it)
    "deny_close": 1.0,  # ... increased by this factor when that player is close to going out
}
(W_COLOUR_COUNT, W_OTHER_MATCH, W_POINTS, W_WILD_SAVE, W_WD_BONUS, W_EXTRA_TURN, W_AIM, W_AIM_SIZE, W_FEED,
 W_DRAW_CARD, W_BLUFF_PRIOR, W_CHALLENGE, W_COLOUR_DENY, W_STUCK, W_DENY, W_DENY_CLOSE) = range(16)
assert len(HEURISTIC_WEIGHTS) == 16

#: the dice heuristic's weights (``DiceHeuristicAgent(weights=...)`` overrides them by name); the agent's module
#: docstring says what each one rewards
DICE_HEURISTIC_WEIGHTS: dict[str, float] = {
    "deny": 1.0,  # times P(the player facing the new centre die cannot follow it)
    "draw": 0.35,  # per die the play makes its victim draw
    "extra_turn": 1.0,  # two players: times P(we can follow our own Skip/Reverse/Draw Two/Wild Draw Four)
    "keep_wild": 0.6,  # per plain Wild left in hand after the play
    "colour_kept": 0.08,  # per die left in hand that follows the colour on top after the play
    "skip": 0.3,  # three or more players: a Skip / Draw card takes a turn from the next player
    "lead": 0.0,  # what hurts a player counts (1 + lead * (3 - dice held)) times, for 1 or 2 dice held
    "flex": 1.0,  # with 1 or 2 dice left after the play: times P(they can follow a random centre die)
}
D_DENY, D_DRAW, D_EXTRA_TURN, D_KEEP_WILD, D_COLOUR_KEPT, D_SKIP, D_LEAD, D_FLEX = range(8)
assert len(DICE_HEURISTIC_WEIGHTS) == 8

#: where the dice block starts in the parameter array (after the card heuristic's 16 weights)
P_K, P_D, P_WEIGHTS, P_TABLES = 16, 17, 18, 26


def _merged(what: str, defaults: dict[str, float], weights: dict[str, Any] | None) -> list[float]:
    """``defaults`` overridden by ``weights`` by name, in the defaults' order; a name or value the player does not
    know is refused here, before it reaches compiled code."""
    unknown = set(weights or {}) - set(defaults)
    if unknown:
        raise ValueError(f"unknown {what} weights {sorted(unknown)}; known: {', '.join(defaults)}")
    merged = dict(defaults, **(weights or {}))
    for name, value in merged.items():
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise ValueError(f"{what} weight {name!r} must be a number, got {value!r}")
    return [float(merged[name]) for name in defaults]


def heuristic_weight_array(weights: dict[str, float] | None = None) -> np.ndarray:
    """The card heuristic's weights in the order the compiled player reads them (defaults where ``weights`` has no
    value); an unknown name is a ``ValueError`` naming the known ones."""
    return np.array(_merged("heuristic", HEURISTIC_WEIGHTS, weights), dtype=np.float64)


def dice_tables(spec: np.ndarray, dice: np.ndarray, num_dice: int) -> dict[str, np.ndarray]:
    """The dice heuristic's per-game tables, computed with numpy once per game (the compiled player reads them from
    the parameter array).

    ``face_p`` (K,): P(a rolled die shows each kind), every die of the set equally likely;
    ``matches`` (K, 4, K) bool: which kinds follow centre kind t when the current colour is c;
    ``q`` (K, 4): P(a rolled die follows centre t in colour c); ``top_p`` (K, 4): P(a future centre die is kind t
    in colour c) (a wild's colour named at random); ``die_keep_value`` (D,): per die, the mean over its six faces
    of P(that face follows a random future centre die).
    """
    spec = np.asarray(spec)
    k = spec.shape[0]
    colour = spec[:, COL_COLOUR].astype(np.int64)
    symbol = spec[:, COL_SYMBOL].astype(np.int64)
    wild = colour == NO_COLOUR
    faces = np.asarray(dice).ravel()
    face_p = np.bincount(faces, minlength=k)[:k] / faces.size
    matches = np.zeros((k, 4, k), dtype=bool)
    for t in range(k):
        for c in range(4):
            matches[t, c] = wild | (colour == c) | (symbol == symbol[t])
    q = (matches * face_p).sum(axis=2)
    top_p = np.zeros((k, 4))
    for t in range(k):
        if wild[t]:
            top_p[t, :] = face_p[t] / 4.0
        else:
            top_p[t, colour[t]] = face_p[t]
    follow = (matches * top_p[:, :, None]).sum(axis=(0, 1))
    die_keep_value = follow[np.asarray(dice)[:num_dice]].mean(axis=1)
    return {"face_p": face_p, "matches": matches, "q": q, "top_p": top_p, "die_keep_value": die_keep_value}


def dice_block(spec: np.ndarray, dice: np.ndarray, num_dice: int,
               weights: dict[str, float] | None = None) -> np.ndarray:
    """The dice part of the parameter array (see the module docstring); ``weights`` overrides
    :data:`DICE_HEURISTIC_WEIGHTS` by name."""
    merged = _merged("dice heuristic", DICE_HEURISTIC_WEIGHTS, weights)
    k = np.asarray(spec).shape[0]
    t = dice_tables(spec, dice, num_dice)
    kinds = np.asarray(dice, dtype=np.float64)[:num_dice].ravel()
    return np.concatenate([[float(k), float(num_dice)], merged, t["q"].ravel(), t["top_p"].ravel(),
                           t["die_keep_value"], kinds]).astype(np.float64)


def baseline_weight_array(game, weights: dict[str, float] | None = None,
                          dice_weights: dict[str, float] | None = None) -> np.ndarray:
    """The parameter array every compiled player of ``game`` (a ``core.game.Game``) reads: the card heuristic's
    weights (``weights`` overrides them by name), and in UNO Dice the dice heuristic's weights (``dice_weights``)
    and the dice set's tables after them (:func:`dice_block`)."""
    w = heuristic_weight_array(weights)
    if not game.num_dice:
        return w
    return np.concatenate([w, dice_block(game.spec, game.dice, game.num_dice, dice_weights)])


# ---------------------------------------------------------------------------------------------- the dice block
@njit(cache=True, inline="always")
def q_at(k):
    """Where ``q`` (K x 4) starts."""
    return P_TABLES


@njit(cache=True, inline="always")
def top_p_at(k):
    """Where ``top_p`` (K x 4) starts."""
    return P_TABLES + 4 * k


@njit(cache=True, inline="always")
def keep_at(k):
    """Where ``die_keep_value`` (D) starts."""
    return P_TABLES + 8 * k


@njit(cache=True, inline="always")
def kinds_at(k, d):
    """Where ``die_kinds`` (D x 6) starts."""
    return P_TABLES + 8 * k + d


@njit(cache=True)
def block_fits(w, spec, d):
    """True when ``w`` holds the dice block of a game with these kinds and ``d`` dice."""
    k = spec.shape[0]
    if d <= 0 or w.shape[0] != kinds_at(k, d) + 6 * d:
        return False
    return w[P_K] == k and w[P_D] == d
