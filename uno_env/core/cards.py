"""Card and die-face kinds of the three games, as data.

A *kind* is one distinct face: "red 7", "wild draw four", "blue skip" (a die face in UNO Dice).  Copies of a
kind are interchangeable for the rules, so hands are counts per kind.  Each game is a table of kinds with
their colour, symbol, points and number of copies in the deck; the rules core reads only that table.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

COLOURS = ("red", "yellow", "green", "blue")
COLOUR_LETTERS = ("R", "Y", "G", "B")
NO_COLOUR = 4  # the colour field of a wild kind

# Symbols: 0-9 are the numbers themselves.
SKIP, REVERSE, DRAW_TWO, DRAW_ONE, WILD, WILD_DRAW_FOUR, WILD_DIP, WILD_DRAW_TWO = range(10, 18)
SYMBOL_NAMES = {
    SKIP: "skip",
    REVERSE: "reverse",
    DRAW_TWO: "draw two",
    DRAW_ONE: "draw one",
    WILD: "wild",
    WILD_DRAW_FOUR: "wild draw four",
    WILD_DIP: "wild dip into deck",
    WILD_DRAW_TWO: "wild draw two",
}
# Column order of a kind table row.
COL_COLOUR, COL_SYMBOL, COL_POINTS, COL_COUNT = range(4)

GAMES = ("classic", "pocket", "dice")
GAME_IDS = {name: i for i, name in enumerate(GAMES)}


def _points(symbol: int) -> int:
    if symbol < 10:
        return symbol
    if symbol >= WILD:
        return 50
    return 20


def _kind_name(colour: int, symbol: int) -> str:
    if colour == NO_COLOUR:
        return SYMBOL_NAMES[symbol]
    return f"{COLOURS[colour]} {symbol if symbol < 10 else SYMBOL_NAMES[symbol]}"


@dataclass(frozen=True)
class KindTable:
    """The kinds of one game: names plus an int32 array (K, 4) of colour, symbol, points, copies."""

    names: tuple[str, ...]
    table: np.ndarray = field(repr=False)

    @property
    def num_kinds(self) -> int:
        """K, the number of card kinds (die faces in dice)."""
        return len(self.names)

    def index(self, name: str) -> int:
        """The kind id of the card named ``name`` (e.g. ``"red 7"``); ValueError for an unknown name."""
        try:
            return self.names.index(name)
        except ValueError:
            raise ValueError(f"unknown card kind {name!r}; known kinds: {', '.join(self.names)}") from None


def _build(rows: list[tuple[int, int, int]]) -> KindTable:
    names = tuple(_kind_name(c, s) for c, s, _ in rows)
    table = np.array([(c, s, _points(s), n) for c, s, n in rows], dtype=np.int32)
    table.setflags(write=False)
    return KindTable(names, table)


def classic_kinds() -> KindTable:
    """108 cards: per colour one 0, two each of 1-9, Skip, Reverse, Draw Two; four Wild, four Wild Draw Four."""
    rows = []
    for colour in range(4):
        rows.append((colour, 0, 1))
        rows += [(colour, number, 2) for number in range(1, 10)]
        rows += [(colour, symbol, 2) for symbol in (SKIP, REVERSE, DRAW_TWO)]
    rows += [(NO_COLOUR, WILD, 4), (NO_COLOUR, WILD_DRAW_FOUR, 4)]
    return _build(rows)


def pocket_kinds(extra_wild: bool = False) -> KindTable:
    """51 cards (52 with ``extra_wild``): per colour 1-9, Draw One, Skip, Reverse; Wild, Dip Into Deck, Draw 2."""
    rows = []
    for colour in range(4):
        rows += [(colour, number, 1) for number in range(1, 10)]
        rows += [(colour, symbol, 1) for symbol in (DRAW_ONE, SKIP, REVERSE)]
    rows += [(NO_COLOUR, WILD, 2 if extra_wild else 1), (NO_COLOUR, WILD_DIP, 1), (NO_COLOUR, WILD_DRAW_TWO, 1)]
    return _build(rows)


def dice_kinds(face_counts: np.ndarray | None = None) -> KindTable:
    """38 die faces in the order of ``dice_set.FACE_CODES``: per colour 1-6, Skip, Reverse, Draw Two; W, W4.

    The copies column holds how many faces of the dice set show the kind (informational only: a die's identity
    matters in UNO Dice, so the core tracks dice one by one).
    """
    rows = []
    for colour in range(4):
        rows += [(colour, number, 0) for number in range(1, 7)]
        rows += [(colour, symbol, 0) for symbol in (SKIP, REVERSE, DRAW_TWO)]
    rows += [(NO_COLOUR, WILD, 0), (NO_COLOUR, WILD_DRAW_FOUR, 0)]
    kinds = _build(rows)
    if face_counts is not None:
        table = kinds.table.copy()
        table[:, COL_COUNT] = face_counts
        table.setflags(write=False)
        kinds = KindTable(kinds.names, table)
    return kinds
