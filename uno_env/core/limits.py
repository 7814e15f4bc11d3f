"""The sizes every game's state is built for: the most seats, kinds, cards and dice a game may have.

A module of its own, importing nothing: the dice-set reader (``dice_set``, which the options table in
``uno_env.config`` calls) needs :data:`MAX_DICE`, while the state layout (``layout``) is generated from that options
table, so the limits sit below both.
"""
from __future__ import annotations

MAX_PLAYERS = 10
MAX_KINDS = 54
MAX_ITEMS = 128  # cards in a deck or dice in a bag
MAX_DICE = 64
