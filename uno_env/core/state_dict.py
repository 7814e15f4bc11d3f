"""One game's state as plain data and back: the versioned state dict, its readable view, and partial edits.

``Game.state_dict`` / ``Game.load_state_dict`` (and through them every shell's) are these functions.  Reading a
dict checks its form here (keys, types, shapes, the game it belongs to) and builds a state row; every row built
goes through the one state check (``validate.state_problem``) before it is returned, so nothing written from a
dict reaches compiled code unchecked.
"""
from __future__ import annotations

from collections.abc import Mapping
from itertools import chain
from typing import Any, Protocol

import numpy as np

from ..yaml_io import short_repr
from . import layout as L
from .cards import COLOURS
from .validate import GameTables, state_problem

#: ``format`` and ``version`` of a state dict; version 1 was the readable dict without them
STATE_FORMAT = "uno-env-state"
#: 3: rows sized to the player count, so ``fields.hand`` has one row per seat (version 2 had ten rows whatever
#: the game: read and converted exactly, see :func:`exact_row`)
STATE_VERSION = 3
#: the readable keys of a state dict (:func:`view_dict`), which a partial edit may give
VIEW_KEYS = (
    "game", "hands", "current_colour", "direction", "current_seat", "phase", "scores", "called_uno", "pending_draw",
    "top", "dealer", "round", "turns", "done", "round_winner", "round_points", "match_winner", "drawn",
    "pending_symbol", "wd_guilty", "wd_player", "uno_missed", "shown", "bag", "centre_die", "dice", "draw_pile",
    "discard_pile",
)
#: readable scalars a partial edit may set, and the column each is written to
_EDIT_SCALARS = {
    "direction": L.S_DIR, "current_seat": L.S_CUR, "pending_draw": L.S_PENDING, "dealer": L.S_DEALER,
    "wd_guilty": L.S_WD_GUILTY, "wd_player": L.S_WD_PLAYER, "uno_missed": L.S_UNO_MISSED,
    "round_winner": L.S_WINNER, "pending_symbol": L.S_PENDING_SYM, "match_winner": L.S_MATCH_WINNER,
}
_EDIT_WIDE = (("round", L.S_ROUND), ("turns", L.S_TURNS), ("round_points", L.S_ROUND_POINTS))
_DONE_NAMES = ("", "terminated", "truncated")


class GameData(GameTables, Protocol):
    """What this module reads of a game besides its tables (``game.Game`` has it)."""

    num_dice: int
    rules_dict: dict[str, Any]


# ---------------------------------------------------------------------------------------------- writing
def to_dict(game: GameData, st: np.ndarray, rng: np.ndarray | None = None) -> dict[str, Any]:
    """``Game.state_dict``: the versioned, JSON-ready state of the row ``st`` (and the PRNG word ``rng``)."""
    d: dict[str, Any] = {
        "format": STATE_FORMAT, "version": STATE_VERSION, "num_players": game.num_players,
        "rules": dict(game.rules_dict),
    }
    if rng is not None:
        d["rng"] = [int(x) for x in np.asarray(rng, dtype=np.uint64).reshape(-1)]
    d["fields"] = {f.name: _field_value(st[L.OFFSETS[f.name]: L.OFFSETS[f.name] + f.size_for(game.num_players)],
                                        f.shape_for(game.num_players), f.wide) for f in L.FIELDS}
    d.update(view_dict(game, st))
    return d


def view_dict(game: GameData, st: np.ndarray) -> dict[str, Any]:
    """``Game.view_dict``: hands, piles and scalars of the row ``st`` by name (hidden parts included)."""
    n, k = game.num_players, game.num_kinds
    names = game.kinds.names
    v = L.StateView(st, n)  # the wide fields (scores, round, turns, round_points) read as plain ints
    d: dict[str, Any] = {
        "game": game.name,
        "hands": [_kind_list(names, v.hand[s, :k]) for s in range(n)],
        "current_colour": COLOURS[v.colour],
        "direction": v.dir,
        "current_seat": v.cur,
        "phase": L.PHASE_NAMES[v.phase],
        "scores": [int(x) for x in v.scores[:n]],
        "called_uno": [bool(x) for x in v.called[:n]],
        "pending_draw": v.pending,
        "top": names[v.top],
        "dealer": v.dealer,
        "round": v.round,
        "turns": v.turns,
        "done": _DONE_NAMES[v.done],
        "round_winner": v.winner,
        "round_points": v.round_points,
        "match_winner": v.match_winner,
        "drawn": None if v.drawn < 0 else names[v.drawn],
        "pending_symbol": v.pending_sym,
        "wd_guilty": v.wd_guilty,
        "wd_player": v.wd_player,
        "uno_missed": v.uno_missed,
        "shown": None if v.shown_to < 0 else {
            "from": v.shown_from, "to": v.shown_to, "hand": _kind_list(names, v.shown_hand[:k]),
        },
    }
    if game.name == "dice":
        d["bag"] = sorted(int(x) for x in v.draw[: v.draw_n])
        d["centre_die"] = int(v.disc[0])
        d["dice"] = [
            {"location": _loc_name(int(v.die_loc[i])), "face": int(v.die_face[i]),
             "shows": names[game.dice[i, v.die_face[i]]]}
            for i in range(game.num_dice)
        ]
        d["draw_pile"] = []
        d["discard_pile"] = [d["top"]]
    else:
        d["draw_pile"] = [names[x] for x in v.draw[: v.draw_n]]
        d["discard_pile"] = [names[x] for x in v.disc[: v.disc_n]]
    return d


# ---------------------------------------------------------------------------------------------- an exact state
def exact_row(game: GameData, d: Mapping[str, Any], with_rng: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """``Game.check_exact``: the state row and PRNG words of the versioned state dict ``d``, or
    ``ValueError``/``TypeError`` naming the key or field that is wrong."""
    version = _check_header(game, d, with_rng)
    words = _rng_words(d["rng"]) if with_rng else None
    fields = d["fields"]
    if version == 2:
        fields = _fields_of_version_2(game, fields)
    row = _row_from_fields(game, fields)
    problem = state_problem(game, row)
    if problem:
        raise ValueError(f"the state does not hold together: {problem}")
    view = view_dict(game, row)
    for key in VIEW_KEYS:
        if key in d and d[key] != view[key]:
            raise ValueError(f"{key}: {short_repr(d[key])} disagrees with the state's fields "
                             f"({short_repr(view[key])}); in a versioned state the 'fields' are the state: "
                             f"edit them, or give a partial dict without 'format'")
    return row, words


def _check_header(game: GameData, d: Mapping[str, Any], with_rng: bool) -> int:
    """Everything but the fields: format and version (returned), the keys, the game, players and rules."""
    if d.get("format") != STATE_FORMAT:
        raise ValueError(f"format: expected {STATE_FORMAT!r}, got {short_repr(d.get('format'))}")
    version = d.get("version")
    if type(version) is not int or version not in (2, STATE_VERSION):
        raise ValueError(f"version: this uno-env reads state_dict version {STATE_VERSION} (and converts "
                         f"version 2), got {short_repr(version)}; take the state again with state_dict()")
    allowed = {"format", "version", "num_players", "rules", "rng", "fields", "env", *VIEW_KEYS}
    unknown = sorted(map(str, set(d) - allowed))
    if unknown:
        raise ValueError(f"unknown state keys: {unknown}; a versioned state has {sorted(allowed)}")
    missing = [key for key in ("game", "num_players", "rules", "fields") + (("rng",) if with_rng else ())
               if key not in d]
    if missing:
        raise ValueError(f"{missing[0]}: missing from the state dict (state_dict() writes it)")
    _check_game_name(game, d)
    n = d["num_players"]
    if type(n) is not int or n != game.num_players:
        raise ValueError(f"num_players: the state has {short_repr(n)}, this environment has {game.num_players}")
    if d["rules"] != game.rules_dict:
        mine = game.rules_dict
        theirs = d["rules"] if isinstance(d["rules"], Mapping) else {}
        diff = sorted(str(k) for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
        raise ValueError(f"rules: the state was saved under other rules ({', '.join(diff[:5]) or 'not a mapping'}"
                         f" differ); build the environment with the state's rules")
    return version


def _check_game_name(game: GameData, d: Mapping[str, Any]) -> None:
    if "game" in d and d["game"] != game.name:
        raise ValueError(f"game: the state is of game {short_repr(d['game'])}, this environment plays "
                         f"{game.name!r}")


def _rng_words(r: Any) -> np.ndarray:
    if not isinstance(r, list) or len(r) != 1 or type(r[0]) is not int or not 0 <= r[0] < 2**64:
        raise ValueError(f"rng: expected a list of one int in [0, 2**64) (the PRNG word), got {short_repr(r)}")
    return np.array(r, dtype=np.uint64)


def _fields_of_version_2(game: GameData, fields: Any) -> Any:
    """Version-2 fields in version 3: the same fields, but ``hand`` held ten seats whatever the game; the seats
    past ``num_players`` must hold nothing (then the conversion is exact), else ``ValueError``."""
    if not isinstance(fields, Mapping) or not isinstance(fields.get("hand"), list):
        return fields  # _row_from_fields names what is wrong
    hand = fields["hand"]
    n = game.num_players
    if len(hand) != L.MAX_PLAYERS or any(x != [0] * L.MAX_KINDS for x in hand[n:]):
        raise ValueError(f"fields.hand: a version-2 state holds {L.MAX_PLAYERS} rows of {L.MAX_KINDS}, the "
                         f"rows past num_players={n} all zeros; got {short_repr(hand)}")
    return {**fields, "hand": hand[:n]}


def _row_from_fields(game: GameData, fields: Any) -> np.ndarray:
    if not isinstance(fields, Mapping):
        raise TypeError(f"fields: expected a mapping of field name to value, got {type(fields).__name__}")
    names = set(L.FIELD_BY_NAME)
    if set(fields) != names:
        missing, extra = sorted(names - set(fields)), sorted(map(str, set(fields) - names))
        raise ValueError(f"fields: {'missing ' + repr(missing) if missing else ''}"
                         f"{'; ' if missing and extra else ''}{'unknown ' + repr(extra) if extra else ''}")
    n = game.num_players
    row = np.zeros(game.state_len, dtype=L.STATE_DTYPE)
    for f in L.FIELDS:
        off, shape = L.OFFSETS[f.name], f.shape_for(n)
        arr = _field_entries(f.name, fields[f.name], shape, f.wide)
        row[off: off + f.size_for(n)] = L.wide_entries(f.name, arr) if f.wide else arr
    return row


def _field_entries(name: str, value: Any, shape: tuple[int, ...], wide: bool) -> np.ndarray:
    """A field's value from a state dict as a flat int64 array, checked: plain ints of ``shape`` in the range a
    state row holds (a wide field's values in the wide range)."""
    lo, hi = (L.WIDE_MIN, L.WIDE_MAX) if wide else (L.STATE_MIN, L.STATE_MAX)
    if not shape:
        if type(value) is not int:  # bool and float are refused, as are numpy scalars (not plain data)
            raise TypeError(f"fields.{name}: expected an int, got {short_repr(value)} ({type(value).__name__})")
        if not lo <= value <= hi:
            raise ValueError(f"fields.{name}: {value} is outside {lo}..{hi}, the values a state row holds")
        return np.array([value], dtype=np.int64)
    arr = _int_array(name, value, shape)
    if arr.dtype == object or arr.min() < lo or arr.max() > hi:
        raise ValueError(f"fields.{name}: values must be in {lo}..{hi}, the values a state row holds")
    return arr.reshape(-1)


# ---------------------------------------------------------------------------------------------- a partial edit
def edited_row(game: GameData, st: np.ndarray, d: Mapping[str, Any]) -> np.ndarray:
    """A copy of ``st`` with the readable keys of ``d`` applied (a partial edit), checked by the one state check
    (``ValueError`` naming what does not hold together).

    Card games: ``hands``, ``draw_pile`` and ``discard_pile`` hold kind names.  UNO Dice: ``dice`` (a list of
    ``{"location": "bag" | "centre" | seat, "face": 0..5}``) places every die.
    """
    unknown = set(d) - set(VIEW_KEYS) - {"env"}
    if unknown:
        raise ValueError(f"unknown state keys: {sorted(map(str, unknown))}; the keys are {sorted(VIEW_KEYS)}")
    _check_game_name(game, d)
    st = np.array(st, dtype=L.STATE_DTYPE, copy=True)
    if game.name == "dice":
        if "dice" in d:
            _place_dice(game, st, d["dice"])
    else:
        _place_cards(game, st, d)
    _set_scalars(game, st, d)
    if "shown" in d:
        _set_shown(game, st, d["shown"])
    problem = state_problem(game, st)
    if problem:
        raise ValueError(f"the state does not hold together: {problem}")
    return st


def _place_dice(game: GameData, st: np.ndarray, dice: Any) -> None:
    n, nd = game.num_players, game.num_dice
    if not isinstance(dice, (list, tuple)) or len(dice) != nd:
        raise ValueError(f"dice: expected a list of {nd} dice ({{'location', 'face'}}), got {short_repr(dice)}")
    st[L.O_HAND:] = 0
    st[L.O_HAND_N: L.O_HAND_N + L.MAX_PLAYERS] = 0
    st[L.O_DISC_COUNT: L.O_DISC_COUNT + L.MAX_KINDS] = 0
    bag = []
    for i, die in enumerate(dice):
        if not isinstance(die, Mapping) or set(die) - {"location", "face", "shows"}:
            raise ValueError(f"dice[{i}]: expected {{'location': 'bag' | 'centre' | seat, 'face': 0..5}}, got "
                             f"{short_repr(die)}")
        loc = die.get("location")
        face = _int(f"dice[{i}].face", die.get("face"), 0, 5)
        st[L.O_DIE_FACE + i] = face
        kind = game.dice[i, face]
        if loc == "bag":
            st[L.O_DIE_LOC + i] = L.LOC_BAG
            bag.append(i)
        elif loc == "centre":
            st[L.O_DIE_LOC + i] = L.LOC_CENTRE
            st[L.O_DISC] = i
            st[L.S_DISC_N] = 1
            st[L.S_TOP] = kind
            st[L.O_DISC_COUNT + kind] = 1
        else:
            seat = _int(f"dice[{i}].location", loc, 0, n - 1, "'bag', 'centre' or a seat")
            st[L.O_DIE_LOC + i] = seat
            st[L.O_HAND + seat * L.MAX_KINDS + kind] += 1
            st[L.O_HAND_N + seat] += 1
    st[L.O_DRAW: L.O_DRAW + len(bag)] = bag
    st[L.S_DRAW_N] = len(bag)


def _place_cards(game: GameData, st: np.ndarray, d: Mapping[str, Any]) -> None:
    n, k = game.num_players, game.num_kinds
    if "hands" in d:
        if not isinstance(d["hands"], (list, tuple)) or len(d["hands"]) != n:
            raise ValueError(f"hands: expected {n} hands (lists of card names), got {short_repr(d['hands'])}")
        for s, hand in enumerate(d["hands"]):
            row = np.zeros(k, dtype=np.int32)
            for name in _names(f"hands[{s}]", hand):
                row[game.kinds.index(name)] += 1
            st[L.O_HAND + s * L.MAX_KINDS: L.O_HAND + s * L.MAX_KINDS + k] = row
            st[L.O_HAND_N + s] = len(hand)
    if "draw_pile" in d:
        ids = [game.kinds.index(x) for x in _names("draw_pile", d["draw_pile"])]
        st[L.O_DRAW: L.O_DRAW + len(ids)] = ids
        st[L.S_DRAW_N] = len(ids)
    if "discard_pile" in d:
        ids = [game.kinds.index(x) for x in _names("discard_pile", d["discard_pile"])]
        if not ids:
            raise ValueError("discard_pile must hold at least the top card")
        st[L.O_DISC: L.O_DISC + len(ids)] = ids
        st[L.S_DISC_N] = len(ids)
        st[L.S_TOP] = ids[-1]
        st[L.O_DISC_COUNT: L.O_DISC_COUNT + L.MAX_KINDS] = 0
        for x in ids:
            st[L.O_DISC_COUNT + x] += 1


def _set_scalars(game: GameData, st: np.ndarray, d: Mapping[str, Any]) -> None:
    """The readable scalars, the scores, the UNO calls and the flags of a partial edit."""
    n = game.num_players
    for key, idx in _EDIT_SCALARS.items():
        if key in d:
            st[idx] = _int(key, d[key], L.STATE_MIN, L.STATE_MAX)
    for key, idx in _EDIT_WIDE:
        if key in d:
            st[idx: idx + 2] = L.wide_entries(key, [_int(key, d[key], L.WIDE_MIN, L.WIDE_MAX)])
    if "current_colour" in d:
        st[L.S_COLOUR] = _choice("current_colour", d["current_colour"], COLOURS)
    if "phase" in d:
        st[L.S_PHASE] = _choice("phase", d["phase"], L.PHASE_NAMES)
    if "drawn" in d:
        st[L.S_DRAWN] = -1 if d["drawn"] is None else game.kinds.index(_names("drawn", [d["drawn"]])[0])
    if "scores" in d:
        st[L.O_SCORES: L.O_SCORES + 2 * n] = L.wide_entries("scores", _ints("scores", d["scores"], n))
    if "called_uno" in d:
        called = d["called_uno"]
        if not isinstance(called, (list, tuple)) or len(called) != n or \
                any(not isinstance(x, (bool, np.bool_, int, np.integer)) or x not in (0, 1) for x in called):
            raise ValueError(f"called_uno: expected {n} booleans, got {short_repr(called)}")
        st[L.O_CALLED: L.O_CALLED + n] = [int(bool(x)) for x in called]
    if "done" in d:
        st[L.S_DONE] = _choice("done", d["done"], _DONE_NAMES)


def _set_shown(game: GameData, st: np.ndarray, shown: Any) -> None:
    n = game.num_players
    st[L.O_SHOWN_HAND: L.O_SHOWN_HAND + L.MAX_KINDS] = 0
    st[L.S_SHOWN_FROM] = st[L.S_SHOWN_TO] = -1
    if shown is None:
        return
    if not isinstance(shown, Mapping) or set(shown) - {"from", "to", "hand"}:
        raise ValueError(f"shown: expected None or {{'from': seat, 'to': seat, 'hand': [cards]}}, got "
                         f"{short_repr(shown)}")
    st[L.S_SHOWN_FROM] = _int("shown.from", shown.get("from"), 0, n - 1)
    st[L.S_SHOWN_TO] = _int("shown.to", shown.get("to"), 0, n - 1)
    for name in _names("shown.hand", shown.get("hand", [])):
        st[L.O_SHOWN_HAND + game.kinds.index(name)] += 1


# ---------------------------------------------------------------------------------------------- values
def _kind_list(names: list[str], counts: np.ndarray) -> list[str]:
    return [names[kind] for kind in np.repeat(np.arange(len(counts)), np.maximum(counts, 0))]


def _loc_name(loc: int) -> int | str:
    if loc == L.LOC_BAG:
        return "bag"
    if loc == L.LOC_CENTRE:
        return "centre"
    return loc


def _field_value(entries: np.ndarray, shape: tuple[int, ...], wide: bool) -> Any:
    """A field's entries as plain data: an int for a scalar, nested lists of ints for an array."""
    values = L.wide_values(entries) if wide else entries
    return int(values[0]) if not shape else values.reshape(shape).tolist()


def _int(name: str, value: Any, lo: int = L.STATE_MIN, hi: int = L.STATE_MAX, allowed: str = "") -> int:
    """``value`` as an int in ``lo..hi``, else an error naming ``name`` (bools and floats are refused: a
    fractional seat is a bug in the caller, never something to round)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: expected {allowed or 'an int'}, got {short_repr(value)} ({type(value).__name__})")
    if not lo <= int(value) <= hi:
        raise ValueError(f"{name}: {int(value)} is outside {lo}..{hi}")
    return int(value)


def _ints(name: str, values: Any, length: int) -> list[int]:
    """A wide field's ``length`` values (``scores``), each checked."""
    if not isinstance(values, (list, tuple)) or len(values) != length:
        raise ValueError(f"{name}: expected a list of {length} ints, got {short_repr(values)}")
    return [_int(f"{name}[{i}]", x, L.WIDE_MIN, L.WIDE_MAX) for i, x in enumerate(values)]


def _names(name: str, values: Any) -> list[str]:
    if not isinstance(values, (list, tuple)) or not all(isinstance(x, str) for x in values):
        raise ValueError(f"{name}: expected a list of card names, got {short_repr(values)}")
    if len(values) > L.MAX_ITEMS:
        raise ValueError(f"{name}: {len(values)} cards, more than a game has")
    return list(values)


def _choice(name: str, value: Any, choices: tuple[str, ...]) -> int:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name}: expected one of {list(choices)}, got {short_repr(value)}")
    return choices.index(value)


def _int_array(name: str, value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """A nested list of plain ints of exactly ``shape`` as an int64 array (or an object array when an entry does
    not fit int64, for the caller's range message), else an error naming the field and the entry."""
    flat = value
    ok = type(flat) is list and len(flat) == shape[0]
    for size in shape[1:]:
        if not ok:
            break
        ok = all(type(x) is list and len(x) == size for x in flat)
        flat = list(chain.from_iterable(flat)) if ok else flat
    if ok and set(map(type, flat)) <= {int}:  # bools and floats are refused (type(True) is bool, not int)
        try:
            return np.array(flat, dtype=np.int64).reshape(shape)
        except OverflowError:
            return np.array(flat, dtype=object).reshape(shape)
    _name_bad_entry(name, value, shape, 0, [])
    raise AssertionError("unreachable: the walk names the bad entry")  # pragma: no cover


def _name_bad_entry(name: str, v: Any, shape: tuple[int, ...], depth: int, at: list[int]) -> None:
    if depth == len(shape):
        if type(v) is not int:
            raise TypeError(f"fields.{name}{at}: expected an int, got {short_repr(v)} ({type(v).__name__})")
        return
    if not isinstance(v, list) or len(v) != shape[depth]:
        raise ValueError(f"fields.{name}{at if at else ''}: expected a list of {shape[depth]} entries (shape "
                         f"{list(shape)}), got {short_repr(v)}")
    for i, x in enumerate(v):
        _name_bad_entry(name, x, shape, depth + 1, at + [i])
