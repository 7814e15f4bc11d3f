"""What differs between the games, in one table: the rule families read a game's facts here instead of asking
which game is running.

:data:`GAME_FACTS` holds one row per game (classic, pocket, dice); the compiled rules read the same rows as the
int64 table :data:`FACTS` (one row per game id ``cfg[C_GAME]``, one column ``F_*`` per fact), through the small
readers below.  A game's facts are fixed by its rule sheet; what a user may choose is a rules option and lives in
the options array ``cfg`` (``uno_env.config``).  Nothing is recompiled per game: the game id is a runtime value.

The draw amounts of the cards (per symbol, every game alike) and the other fixed penalties are here too.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .cards import DRAW_ONE, DRAW_TWO, GAMES, SYMBOL_NAMES, WILD_DRAW_FOUR, WILD_DRAW_TWO
from .layout import C_CHALLENGE, C_DICE_BLUFF, C_GAME, GAME_CLASSIC, GAME_DICE, GAME_POCKET

track_dependencies(__file__, rule_sources())


@dataclass(frozen=True)
class GameFacts:
    """The fixed facts of one game (its rule sheet), as opposed to its options."""

    #: cards (or dice) dealt to each hand: classic 7, pocket 5, UNO Dice 5 (the games' rule sheets)
    deal: int
    #: played with dice (the UNO Dice rule sheet): drawn from a bag and rolled into the hand, one centre die
    #: instead of a discard pile, a play names the die, every hand public; else with cards (hidden hands, a draw
    #: pile, a discard pile)
    dice: bool
    #: the option ``first_wild`` decides what a wild turned up as the first card does (classic); without it such a
    #: wild goes back into the pile, which is reshuffled (the pocket rule sheet)
    first_wild_option: bool
    #: the winner of a round starts the next (and seat 0 the first): UNO Dice; else the dealer is the last seat and
    #: the deal moves left each round (the seat left of the dealer plays first)
    winner_starts: bool
    #: a Wild Draw Four is legal only while no other item is playable, whatever the ``wd4_legality`` option (UNO
    #: Dice has no such option: its rule sheet)
    wd_any_playable: bool
    #: the options slot of the option that lets an illegal Wild Draw Four / Wild Draw 2 be played as a bluff
    #: (``wd4_challenge``; UNO Dice: ``dice_wd4_bluff``)
    bluff_slot: int


GAME_FACTS: dict[str, GameFacts] = {
    "classic": GameFacts(deal=7, dice=False, first_wild_option=True, winner_starts=False, wd_any_playable=False,
                         bluff_slot=C_CHALLENGE),
    "pocket": GameFacts(deal=5, dice=False, first_wild_option=False, winner_starts=False, wd_any_playable=False,
                        bluff_slot=C_CHALLENGE),
    "dice": GameFacts(deal=5, dice=True, first_wild_option=False, winner_starts=True, wd_any_playable=True,
                      bluff_slot=C_DICE_BLUFF),
}
assert tuple(GAME_FACTS) == GAMES and (GAME_CLASSIC, GAME_POCKET, GAME_DICE) == (0, 1, 2), "rows in game-id order"

#: The facts the compiled rules read (the deal size reaches them as the options slot ``C_DEAL``), as the columns
#: ``F_*`` of :data:`FACTS`.
COMPILED_FACTS = ("dice", "first_wild_option", "winner_starts", "wd_any_playable", "bluff_slot")
F_DICE, F_FIRST_WILD_OPTION, F_WINNER_STARTS, F_WD_ANY_PLAYABLE, F_BLUFF_SLOT = range(len(COMPILED_FACTS))
#: :data:`GAME_FACTS` as the compiled rules read it: row = game id, column = ``F_*``.
FACTS = np.array([[int(getattr(f, name)) for name in COMPILED_FACTS] for f in GAME_FACTS.values()], dtype=np.int64)
FACTS.setflags(write=False)

# ---------------------------------------------------------------------------------------------- draw amounts
#: Cards (dice) the victim of a draw card draws, by symbol (0 for any other symbol): Draw Two 2, Draw One 1 (pocket),
#: Wild Draw Four 4, Wild Draw 2 2 (pocket) (the games' rule sheets).
DRAW_AMOUNTS = np.zeros(max(SYMBOL_NAMES) + 1, dtype=np.int64)
DRAW_AMOUNTS[[DRAW_TWO, DRAW_ONE, WILD_DRAW_FOUR, WILD_DRAW_TWO]] = (2, 1, 4, 2)
DRAW_AMOUNTS.setflags(write=False)
#: Cards a player who did not call UNO draws when caught (project rules, all games).
UNO_PENALTY = 2
#: Cards a challenger draws beyond the penalty when the challenged Wild Draw Four was legal (the pocket rule sheets).
CHALLENGE_LOST_EXTRA = 2
#: Cards drawn at most by one draw under the option ``draw_until_playable`` (a variant in the classic rule sheet).
DRAW_UNTIL_PLAYABLE_MAX = 10


@njit(cache=True, inline="always")
def draw_amount(sym):
    """Cards a draw card of symbol ``sym`` makes its victim draw; 0 for any other symbol (compiled)."""
    return DRAW_AMOUNTS[sym]


@njit(cache=True, inline="always")
def game_has(cfg, fact):
    """Whether the running game (``cfg[C_GAME]``) has the yes/no fact ``fact`` (a column ``F_*``; compiled)."""
    return FACTS[cfg[C_GAME], fact] != 0


@njit(cache=True, inline="always")
def plays_dice(cfg):
    """Whether the game is played with dice (:attr:`GameFacts.dice`; compiled): the fact most rules ask."""
    return game_has(cfg, F_DICE)


@njit(cache=True, inline="always")
def bluff_option(cfg):
    """The value of the option that allows a Wild Draw Four / Wild Draw 2 bluff (:attr:`GameFacts.bluff_slot`)."""
    return cfg[FACTS[cfg[C_GAME], F_BLUFF_SLOT]]
