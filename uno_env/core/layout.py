"""The state of one game, declared once: every field's name, shape and meaning.

A game is one int16 row (:data:`STATE_DTYPE`) plus one uint64 PRNG word; a batch is a 2-D array of rows (one row
per game).  The row's layout is :data:`FIELDS`; nothing else in the project spells an offset.  From it this module
generates:

* the offsets the compiled rules read: ``S_<NAME>`` for a scalar field, ``O_<NAME>`` for the start of an array
  field (numba reads module-level ints as compile-time constants, so a named offset costs nothing);
* :class:`StateView` (one row) and :class:`BatchView` (a batch), the named views that shells, agents, tools and
  tests use instead of offsets;
* the markdown table of the fields (:func:`fields_markdown`).

Measured alternative: a numba record dtype per game (``np.dtype([...])`` with one field per entry) reads the
same in compiled code, but a batch of records cannot be sliced as a plain integer matrix for the batched kernels
and the AEC fast path, so the row stays a flat array with generated offsets.

Why int16: with int32 entries a step read about twenty of a game's cache lines (the scalars, the counters, the
acting seats' hands, the pile tops), and at B=8192 the rows no longer stay cached between steps; with int16 it
reads about twelve.  Measured against int32 rows, paired in one process on one thread: B=8192 4-13% more steps
per CPU-second in five of six game and player rows, B=1024 level (``docs/benchmarks.md``, "int16 state rows").
Every entry but five fits in int16 by the rules' own bounds (seats, kinds, counts of at most 128 items, dice
faces).  The five whose bound is an option or none (``turns`` up to ``max_turns``, ``round``, ``flips``,
``round_points`` and the match ``scores`` up to ``target_score``) are *wide*: each value takes two entries, the
low 15 bits then the rest (:data:`WIDE_BITS`), read and written only through :func:`uno_env.core.common.get_wide`
/ ``set_wide`` in compiled code and through the views here in Python.

The compiled options array is declared here too (:data:`CFG_SLOTS`): its slots are generated from the options
table in ``uno_env.config`` (one row per rule option) plus the few values derived from the game.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .limits import MAX_DICE, MAX_ITEMS, MAX_KINDS, MAX_PLAYERS

# ---------------------------------------------------------------------------------------------- limits
#: The type of a state row's entries (see the module's docstring for why it is this narrow).
STATE_DTYPE = np.int16
STATE_MIN, STATE_MAX = int(np.iinfo(STATE_DTYPE).min), int(np.iinfo(STATE_DTYPE).max)
#: A wide field's value ``v`` is stored as ``v & (2**WIDE_BITS - 1)`` then ``v >> WIDE_BITS`` (two entries).
WIDE_BITS = 15
WIDE_MIN, WIDE_MAX = STATE_MIN << WIDE_BITS, (STATE_MAX << WIDE_BITS) | (2**WIDE_BITS - 1)
GAME_CLASSIC, GAME_POCKET, GAME_DICE = 0, 1, 2

# ---------------------------------------------------------------------------------------------- phases
PHASES = (
    ("TURN", "turn", "play or draw (dice: play or reroll)"),
    ("COLOUR", "choose colour", "name the colour of the wild just played"),
    ("DRAWN", "drawn", "play the card/die just drawn, or keep it"),
    ("PENDING", "pending draw", "a draw penalty is aimed at this seat: accept, challenge or stack"),
    ("GIVE", "give", "Wild Dip Into Deck: give one card to the next player"),
    ("SWAP", "swap", "seven_zero: choose whom to swap hands with"),
    ("JUMP", "jump-in", "jump_in: play the identical card out of turn, or pass"),
    ("REROLLED", "rerolled", "dice: after a reroll, play a matching die or draw one"),
    ("OVER", "over", "the episode has ended"),
)
NUM_PHASES = len(PHASES)
PHASE_NAMES = tuple(name for _, name, _ in PHASES)
globals().update({f"PH_{const}": i for i, (const, _, _) in enumerate(PHASES)})

# what happens once the colour of a wild is named
CONT_EFFECT = 0  # the wild's own effect (played card)
CONT_START = 1  # first card of the round was a Wild: the namer then plays the first turn

# die locations (the ``die_loc`` field): a seat number, or one of these
LOC_BAG = -1
LOC_CENTRE = -2

# status codes of a step
OK = 0
ERR_ILLEGAL = 1
ERR_RANGE = 2
ERR_OVER = 3


# ---------------------------------------------------------------------------------------------- the row
@dataclass(frozen=True)
class Field:
    """One field of the state row: ``shape`` () for a scalar, else the array's shape."""

    name: str
    shape: tuple[int, ...]
    meaning: str
    #: True for the one block with a row per seat of the game (first dimension ``num_players``, at most
    #: ``MAX_PLAYERS``); it ends the row, so that a row is only as long as its game's seats need
    per_seat: bool = False
    #: True when a value may exceed the entries' type (:data:`STATE_DTYPE`): each value then takes two entries
    #: (low :data:`WIDE_BITS` bits, then the rest), so values in ``WIDE_MIN..WIDE_MAX`` fit
    wide: bool = False

    @property
    def values(self) -> int:
        """Number of values the field holds in the longest state row (``MAX_PLAYERS`` seats)."""
        return int(np.prod(self.shape)) if self.shape else 1

    @property
    def size(self) -> int:
        """Number of row entries the field takes in the longest state row (two per value when ``wide``)."""
        return self.values * (2 if self.wide else 1)

    def shape_for(self, num_players: int) -> tuple[int, ...]:
        """The field's shape in a game of ``num_players`` seats."""
        return (num_players,) + self.shape[1:] if self.per_seat else self.shape

    def size_for(self, num_players: int) -> int:
        """Number of row entries the field takes in a row of a ``num_players``-seat game."""
        return (int(np.prod(self.shape_for(num_players))) if self.shape else 1) * (2 if self.wide else 1)


#: Every field of a game's state, in row order.  Card games keep hands as counts per kind and the piles as
#: stacks of kinds; UNO Dice tracks each die (place and face) because each die has its own faces, and keeps the
#: per-kind hand counts beside that for the observer and the legal mask.
#:
#: The order is chosen for speed (measured, see ``benchmarks/bench_vector.py``): what every step reads or writes
#: comes first and together (the scalars, the per-seat counters, the discard counts: about eight cache lines);
#: the piles follow (a step touches only their tops), then what only some games or some moments use, and the one
#: block whose size depends on the player count, ``hand``, ends the row.  So a row is as long as its game's seats
#: need (:func:`state_len`) while every offset stays a compile-time constant.  The UNO Dice blocks (``die_loc``,
#: ``die_face``) stay in card games' rows too: cutting them as well would move ``hand`` per game, and rows that
#: a step never touches cost memory, not cache.
#:
#: Adding a field: a scalar goes among the scalars; a per-seat field goes beside ``hand_n``/``called``/``scores``
#: with shape ``(MAX_PLAYERS, ...)`` (fixed size); only ``hand`` (``per_seat=True``) may end the row.  Then give
#: it bounds in ``validate.field_bounds`` and run ``tools/gen_typing.py``.
FIELDS: tuple[Field, ...] = (
    Field("cur", (), "seat to act"),
    Field("phase", (), "phase (PHASE_NAMES)"),
    Field("dir", (), "+1 clockwise, -1 counter-clockwise"),
    Field("top", (), "kind on top of the discard (dice: face of the centre die)"),
    Field("colour", (), "current colour 0..3"),
    Field("pending", (), "cards/dice the victim of a draw card will draw"),
    Field("pending_sym", (), "symbol of the last draw card that added to the penalty, else -1"),
    Field("wd_guilty", (), "1 when the last challengeable wild was played illegally"),
    Field("wd_player", (), "seat that played it, else -1"),
    Field("drawn", (), "kind drawn this turn (phase drawn; card games enter it after every draw), else -1"),
    Field("drawn_die", (), "die drawn this turn (dice), else -1"),
    Field("uno_missed", (), "seat that left itself on one card without calling UNO, else -1"),
    Field("jump_ask", (), "unused, always -1 (kept so that saved states keep their fields)"),
    Field("jump_from", (), "seat whose card opened a jump-in window, else -1"),
    Field("dealer", (), "seat that dealt this round (dice: the seat that rolled the centre die)"),
    Field("round", (), "rounds finished in this episode", wide=True),
    Field("turns", (), "decisions taken this episode", wide=True),
    Field("done", (), "0 running, 1 terminated, 2 truncated"),
    Field("winner", (), "winner of the last finished round, else -1"),
    Field("draw_n", (), "cards in the draw pile (dice: dice in the bag)"),
    Field("disc_n", (), "cards in the discard pile (dice: 1, the centre die)"),
    Field("cont", (), "what follows the colour choice: 0 the wild's effect, 1 the first turn of the round"),
    Field("last_player", (), "seat whose card is on top, else -1"),
    Field("round_points", (), "points scored by the last finished round", wide=True),
    Field("match_winner", (), "winner of the match, else -1"),
    Field("flips", (), "cards turned up to start the round (including wilds put back or redealt)", wide=True),
    Field("played", (), "1 when the acting seat has played a card this turn (a jump-in window follows a play)"),
    # the shown hand (the pocket rule sheets: the challenged player shows the hand to the challenger, nobody else)
    Field("shown_from", (), "seat whose hand was shown to shown_to after a challenge, else -1"),
    Field("shown_to", (), "the challenger who saw it, until that seat's next decision is taken, else -1"),
    # UNO Dice with dice_wd4_bluff: what a guilty Wild Draw Four's take-back restores (the UNO Dice rule sheet)
    Field("wd_die", (), "dice: the Wild Draw Four die a challenge may send back to its player, else -1"),
    Field("wd_prev_die", (), "dice: the centre die that Wild Draw Four replaced, else -1"),
    Field("wd_prev_face", (), "dice: that centre die's face index then, else -1"),
    Field("wd_prev_colour", (), "dice: the current colour then, else -1"),
    # per-seat fields of fixed size (new per-seat fields go here)
    Field("hand_n", (MAX_PLAYERS,), "cards/dice held per seat"),
    Field("called", (MAX_PLAYERS,), "1 where the seat has called UNO and holds one card"),
    Field("scores", (MAX_PLAYERS,), "match scores per seat", wide=True),
    # disc_count .. disc are cleared together at the start of a round (see ``ROUND_CLEARED``): keep them adjacent
    Field("disc_count", (MAX_KINDS,), "count of each kind in the discard pile"),
    Field("draw", (MAX_ITEMS,), "draw pile, top last (dice: the ids of the dice in the bag, unordered)"),
    Field("disc", (MAX_ITEMS,), "discard pile, top last (dice: [centre die id])"),
    Field("die_loc", (MAX_DICE,), "dice: seat, LOC_BAG or LOC_CENTRE per die"),
    Field("die_face", (MAX_DICE,), "dice: face index 0..5 per die"),
    Field("shown_hand", (MAX_KINDS,), "the challenged hand (count per kind) as it was when challenged"),
    # last: the row ends after the hands of the game's seats (cleared at the start of every round too)
    Field("hand", (MAX_PLAYERS, MAX_KINDS), "count of each kind held per seat (one row per seat of the game)",
          per_seat=True),
)
FIELD_BY_NAME: dict[str, Field] = {f.name: f for f in FIELDS}


def _offsets() -> dict[str, int]:
    out, pos = {}, 0
    for f in FIELDS:
        out[f.name] = pos
        pos += f.size
    out["_end"] = pos
    return out


OFFSETS: dict[str, int] = _offsets()
#: The longest state row (``MAX_PLAYERS`` seats): scratch rows that serve any game have this length.
STATE_LEN: int = OFFSETS.pop("_end")
assert [f.per_seat for f in FIELDS].count(True) == 1 and FIELDS[-1].per_seat, "the per-seat block ends the row"
MIN_PLAYERS = 2
_SEAT_BLOCK = FIELDS[-1].size // MAX_PLAYERS  # entries per seat in the last block
_ROW_START = STATE_LEN - FIELDS[-1].size  # entries before it


def state_len(num_players: int) -> int:
    """Length (entries of :data:`STATE_DTYPE`) of the state row of a game of ``num_players`` seats, for every game.

    Only the per-seat ``hand`` block at the end of the row depends on the player count; see :data:`FIELDS`.
    """
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) \
            or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players must be an int in [{MIN_PLAYERS}, {MAX_PLAYERS}], got {num_players!r}")
    return _ROW_START + int(num_players) * _SEAT_BLOCK


#: Every valid row length and the player count it belongs to.
ROW_PLAYERS: dict[int, int] = {state_len(n): n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


def players_of_row_length(length: int, num_players: int | None = None) -> int:
    """The player count whose state rows have ``length`` entries; ``ValueError`` naming the valid lengths."""
    n = ROW_PLAYERS.get(int(length))
    if n is None or (num_players is not None and n != num_players):
        want = (f"{state_len(num_players)} (for {num_players} players)" if num_players is not None else
                f"state_len(num_players) = {_ROW_START} + {_SEAT_BLOCK} x num_players, "
                f"num_players in [{MIN_PLAYERS}, {MAX_PLAYERS}]")
        raise ValueError(f"a state row has {want} entries; got {length} (rows of another player count, or of an "
                         f"older uno-env: int32 rows of 555 + 54 x num_players entries before the rows became "
                         f"int16, {_OLD_STATE_LEN} whatever the game before that; state_dict() carries states "
                         f"across versions)")
    return n


_OLD_STATE_LEN = 1095  # state format 2 (uno-env 0.x before the rows were sized per player count)
#: The names the compiled code reads: S_CUR, S_PHASE, ... for scalars, O_HAND, O_DRAW, ... for array starts.
CONSTANTS: dict[str, int] = {
    ("S_" if not f.shape else "O_") + f.name.upper(): OFFSETS[f.name] for f in FIELDS
}
globals().update(CONSTANTS)
#: The span cleared at the start of every round (discard counts, both piles); the hands, from ``O_HAND`` to the
#: row's end, are cleared too.
ROUND_CLEARED = (OFFSETS["disc_count"], OFFSETS["die_loc"])


# ---------------------------------------------------------------------------------------------- options array
#: Slots of the compiled options array (int64) that are not rule options but follow from the game.
DERIVED_SLOTS = (
    ("game", "0 classic, 1 pocket, 2 dice"),
    ("k", "number of kinds"),
    ("deal", "cards/dice dealt to each hand"),
    ("num_dice", "dice in the set (dice), else 0"),
    ("num_cards", "cards in the deck / dice in the set"),
)


def _option_slots() -> tuple[tuple[str, str], ...]:
    from ..config import OPTIONS  # the options table: each rule option that the rules read names its slot

    return tuple((o.slot, o.doc) for o in OPTIONS.values() if o.slot)


CFG_SLOTS: tuple[tuple[str, str], ...] = DERIVED_SLOTS + _option_slots()
CFG_INDEX: dict[str, int] = {name: i for i, (name, _) in enumerate(CFG_SLOTS)}
CFG_LEN = len(CFG_SLOTS)
globals().update({f"C_{name.upper()}": i for name, i in CFG_INDEX.items()})

if not TYPE_CHECKING:  # type checkers see the declarations below, and every public name of this module
    __all__ = [
        "MAX_PLAYERS", "MAX_KINDS", "MAX_ITEMS", "MAX_DICE", "GAME_CLASSIC", "GAME_POCKET", "GAME_DICE",
        "NUM_PHASES", "PHASE_NAMES", "CONT_EFFECT", "CONT_START", "LOC_BAG", "LOC_CENTRE",
        "OK", "ERR_ILLEGAL", "ERR_RANGE", "ERR_OVER", "STATE_LEN", "MIN_PLAYERS", "ROUND_CLEARED", "CFG_LEN",
        "state_len", "players_of_row_length", "ROW_PLAYERS", "STATE_DTYPE", "STATE_MIN", "STATE_MAX", "WIDE_BITS",
        "WIDE_MIN", "WIDE_MAX",
        *(f"PH_{const}" for const, _, _ in PHASES), *CONSTANTS, *(f"C_{name.upper()}" for name in CFG_INDEX),
    ]

if TYPE_CHECKING:  # the generated names above, spelled out for type checkers
    # generated-types:start layout-constants (tools/gen_typing.py writes this block; do not edit)
    C_CATCH_THRESHOLD: int
    C_CHALLENGE: int
    C_DEAL: int
    C_DICE_BLUFF: int
    C_DRAWN_RLCARD: int
    C_DRAW_UNTIL_PLAYABLE: int
    C_EPISODE_MATCH: int
    C_FIRST_DRAW_TWO_PLAY: int
    C_FIRST_REVERSE_DEALER: int
    C_FIRST_WILD: int
    C_FORCE_PLAY: int
    C_GAME: int
    C_JUMP_IN: int
    C_K: int
    C_MAX_TURNS: int
    C_NP: int
    C_NUM_CARDS: int
    C_NUM_DICE: int
    C_REVERSE_NO_SKIP: int
    C_REWARD_POINTS: int
    C_SEVEN_ZERO: int
    C_STACKING: int
    C_TARGET: int
    C_UNO_AUTO: int
    C_VOLUNTARY_DRAW: int
    C_WD_LEGAL_ANY_PLAYABLE: int
    O_CALLED: int
    O_DIE_FACE: int
    O_DIE_LOC: int
    O_DISC: int
    O_DISC_COUNT: int
    O_DRAW: int
    O_HAND: int
    O_HAND_N: int
    O_SCORES: int
    O_SHOWN_HAND: int
    PH_COLOUR: int
    PH_DRAWN: int
    PH_GIVE: int
    PH_JUMP: int
    PH_OVER: int
    PH_PENDING: int
    PH_REROLLED: int
    PH_SWAP: int
    PH_TURN: int
    S_COLOUR: int
    S_CONT: int
    S_CUR: int
    S_DEALER: int
    S_DIR: int
    S_DISC_N: int
    S_DONE: int
    S_DRAWN: int
    S_DRAWN_DIE: int
    S_DRAW_N: int
    S_FLIPS: int
    S_JUMP_ASK: int
    S_JUMP_FROM: int
    S_LAST_PLAYER: int
    S_MATCH_WINNER: int
    S_PENDING: int
    S_PENDING_SYM: int
    S_PHASE: int
    S_PLAYED: int
    S_ROUND: int
    S_ROUND_POINTS: int
    S_SHOWN_FROM: int
    S_SHOWN_TO: int
    S_TOP: int
    S_TURNS: int
    S_UNO_MISSED: int
    S_WD_DIE: int
    S_WD_GUILTY: int
    S_WD_PLAYER: int
    S_WD_PREV_COLOUR: int
    S_WD_PREV_DIE: int
    S_WD_PREV_FACE: int
    S_WINNER: int
    # generated-types:end layout-constants


# ---------------------------------------------------------------------------------------------- named views
def wide_values(entries: np.ndarray) -> np.ndarray:
    """The int64 values of a wide field's entries (last axis: low part, high part, low part, ...)."""
    e = np.asarray(entries, dtype=np.int64)
    return (e[..., 1::2] << WIDE_BITS) | e[..., 0::2]


def wide_entries(name: str, values: Any, count: int | None = None) -> np.ndarray:
    """The entries (low part, high part per value, last axis) that store ``values`` in the wide field ``name``;
    ``ValueError`` naming the field when a value is not an integer in ``WIDE_MIN..WIDE_MAX`` (or ``count``
    values are expected and the last axis has another length)."""
    v = np.asarray(values)
    if v.dtype == bool or not np.issubdtype(v.dtype, np.integer):
        raise TypeError(f"{name}: expected integers, got {v.dtype} values")
    if count is not None and (v.ndim == 0 or v.shape[-1] != count):
        raise ValueError(f"{name}: expected {count} values per row, got shape {v.shape}")
    v = v.astype(np.int64)
    if v.size and (v.min() < WIDE_MIN or v.max() > WIDE_MAX):
        raise ValueError(f"{name}: values must be in {WIDE_MIN}..{WIDE_MAX}")
    out = np.empty(v.shape[:-1] + (2 * v.shape[-1],) if v.ndim else (2,), dtype=STATE_DTYPE)
    out[..., 0::2] = v.reshape(out[..., 0::2].shape) & (2**WIDE_BITS - 1)
    out[..., 1::2] = v.reshape(out[..., 1::2].shape) >> WIDE_BITS
    return out


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False  # a computed copy: writing into it would change nothing, so it refuses
    return a


def _scalar(off: int):
    def get(self) -> int:
        return int(self.row[off])

    def set_(self, value: int) -> None:
        self.row[off] = value

    return property(get, set_)


def _wide_scalar(name: str, off: int):
    def get(self) -> int:
        return int(wide_values(self.row[off: off + 2])[0])

    def set_(self, value: int) -> None:
        self.row[off: off + 2] = wide_entries(name, [value])

    return property(get, set_)


def _wide_array(name: str, off: int, count: int):
    def get(self) -> np.ndarray:
        return _frozen(wide_values(self.row[off: off + 2 * count]))

    def set_(self, values: Any) -> None:
        self.row[off: off + 2 * count] = wide_entries(name, values, count)

    return property(get, set_)


def _batch_wide_scalar(name: str, off: int):
    def get(self) -> np.ndarray:
        return _frozen(wide_values(self.rows[:, off: off + 2])[:, 0])

    def set_(self, value: Any) -> None:
        v = np.broadcast_to(np.asarray(value), (self.rows.shape[0],))
        self.rows[:, off: off + 2] = wide_entries(name, v[:, None])

    return property(get, set_)


def _batch_wide_array(name: str, off: int, count: int):
    def get(self) -> np.ndarray:
        return _frozen(wide_values(self.rows[:, off: off + 2 * count]))

    def set_(self, values: Any) -> None:
        v = np.broadcast_to(np.asarray(values), (self.rows.shape[0], count))
        self.rows[:, off: off + 2 * count] = wide_entries(name, v, count)

    return property(get, set_)


def _array(off: int, shape: tuple[int, ...], per_seat: bool):
    size = int(np.prod(shape))
    if per_seat:  # ends the row: one block per seat of the game
        def get(self) -> np.ndarray:
            return self.row[off:].reshape((-1,) + shape[1:])
    else:
        def get(self) -> np.ndarray:
            return self.row[off: off + size].reshape(shape)

    return property(get)


def _batch_scalar(off: int):
    def get(self) -> np.ndarray:
        return self.rows[:, off]

    def set_(self, value: Any) -> None:
        self.rows[:, off] = value

    return property(get, set_)


def _batch_array(off: int, shape: tuple[int, ...], per_seat: bool):
    size = int(np.prod(shape))
    if per_seat:
        def get(self) -> np.ndarray:
            return self.rows[:, off:].reshape((self.rows.shape[0], -1) + shape[1:])
    else:
        def get(self) -> np.ndarray:
            return self.rows[:, off: off + size].reshape((self.rows.shape[0],) + shape)

    return property(get)


class StateView:
    """Named access to one state row (a view: writes go to the row).

    Scalars read as ``int`` and can be assigned (``v.cur = 1``); arrays are numpy views of their shape
    (``v.hand[seat, kind]``, ``v.draw[: v.draw_n]``; ``hand`` has one row per seat of the game).  A wide array
    (``scores``) reads as a read-only int64 copy and is assigned whole (``v.scores = [0, 120]``).  The attributes
    are the names of :data:`FIELDS`.  The row's length must be that of a game's rows (:func:`state_len`); with
    ``num_players`` given, of that player count.
    """

    if not TYPE_CHECKING:  # the field properties below are typed as plain attributes for type checkers
        __slots__ = ("row", "num_players")
    # generated-types:start state-view (tools/gen_typing.py writes this block; do not edit)
    cur: int
    phase: int
    dir: int
    top: int
    colour: int
    pending: int
    pending_sym: int
    wd_guilty: int
    wd_player: int
    drawn: int
    drawn_die: int
    uno_missed: int
    jump_ask: int
    jump_from: int
    dealer: int
    round: int
    turns: int
    done: int
    winner: int
    draw_n: int
    disc_n: int
    cont: int
    last_player: int
    round_points: int
    match_winner: int
    flips: int
    played: int
    shown_from: int
    shown_to: int
    wd_die: int
    wd_prev_die: int
    wd_prev_face: int
    wd_prev_colour: int
    hand_n: np.ndarray
    called: np.ndarray
    scores: np.ndarray
    disc_count: np.ndarray
    draw: np.ndarray
    disc: np.ndarray
    die_loc: np.ndarray
    die_face: np.ndarray
    shown_hand: np.ndarray
    hand: np.ndarray
    # generated-types:end state-view

    def __init__(self, row: np.ndarray, num_players: int | None = None):
        if row.ndim != 1:
            raise ValueError(f"a state row is 1-D; got shape {row.shape}")
        self.num_players = players_of_row_length(row.shape[0], num_players)
        self.row = row

    @property
    def phase_name(self) -> str:
        """The name of the current phase (e.g. ``"turn"``, ``"choose colour"``)."""
        return PHASE_NAMES[self.row[OFFSETS["phase"]]]


class BatchView:
    """Named access to a batch of state rows (B, state_len(num_players)): scalars are columns, arrays are
    (B, *shape); views of the rows, except the wide fields (``turns``, ``scores``...), which read as read-only
    int64 copies and are assigned whole (``bv.turns = 0``)."""

    if not TYPE_CHECKING:
        __slots__ = ("rows", "num_players")
    # generated-types:start batch-view (tools/gen_typing.py writes this block; do not edit)
    cur: np.ndarray
    phase: np.ndarray
    dir: np.ndarray
    top: np.ndarray
    colour: np.ndarray
    pending: np.ndarray
    pending_sym: np.ndarray
    wd_guilty: np.ndarray
    wd_player: np.ndarray
    drawn: np.ndarray
    drawn_die: np.ndarray
    uno_missed: np.ndarray
    jump_ask: np.ndarray
    jump_from: np.ndarray
    dealer: np.ndarray
    round: np.ndarray
    turns: np.ndarray
    done: np.ndarray
    winner: np.ndarray
    draw_n: np.ndarray
    disc_n: np.ndarray
    cont: np.ndarray
    last_player: np.ndarray
    round_points: np.ndarray
    match_winner: np.ndarray
    flips: np.ndarray
    played: np.ndarray
    shown_from: np.ndarray
    shown_to: np.ndarray
    wd_die: np.ndarray
    wd_prev_die: np.ndarray
    wd_prev_face: np.ndarray
    wd_prev_colour: np.ndarray
    hand_n: np.ndarray
    called: np.ndarray
    scores: np.ndarray
    disc_count: np.ndarray
    draw: np.ndarray
    disc: np.ndarray
    die_loc: np.ndarray
    die_face: np.ndarray
    shown_hand: np.ndarray
    hand: np.ndarray
    # generated-types:end batch-view

    def __init__(self, rows: np.ndarray, num_players: int | None = None):
        if rows.ndim != 2:
            raise ValueError(f"a batch of states is 2-D (B, state_len(num_players)); got shape {rows.shape}")
        self.num_players = players_of_row_length(rows.shape[1], num_players)
        self.rows = rows


for _f in FIELDS:
    _off = OFFSETS[_f.name]
    if _f.wide:
        assert len(_f.shape) <= 1 and not _f.per_seat, "wide fields are scalars or fixed 1-D blocks"
        if _f.shape:
            setattr(StateView, _f.name, _wide_array(_f.name, _off, _f.shape[0]))
            setattr(BatchView, _f.name, _batch_wide_array(_f.name, _off, _f.shape[0]))
        else:
            setattr(StateView, _f.name, _wide_scalar(_f.name, _off))
            setattr(BatchView, _f.name, _batch_wide_scalar(_f.name, _off))
    elif _f.shape:
        setattr(StateView, _f.name, _array(_off, _f.shape, _f.per_seat))
        setattr(BatchView, _f.name, _batch_array(_off, _f.shape, _f.per_seat))
    else:
        setattr(StateView, _f.name, _scalar(_off))
        setattr(BatchView, _f.name, _batch_scalar(_off))
del _f, _off


def fields_markdown() -> str:
    """The state fields as a Markdown table (name, shape, meaning)."""
    lines = ["| field | shape | meaning |", "|---|---|---|"]
    for f in FIELDS:
        shape = "scalar" if not f.shape else " x ".join(["num_players" if f.per_seat and i == 0 else str(d)
                                                        for i, d in enumerate(f.shape)])
        lines.append(f"| `{f.name}` | {shape} | {f.meaning}{' (wide: two entries per value)' if f.wide else ''} |")
    return "\n".join(lines) + "\n"
