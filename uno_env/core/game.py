"""One game's static data, bound to the compiled core: kind table, dice, options, action and observation tables.

:class:`Game` is what every shell (AEC, Gymnasium, batched simulator) holds.  It turns a :class:`RuleConfig`
into the arrays the core reads and offers plain-Python views of a state row (``state_dict``) and the inverse
(``load_state_dict``) for debugging, replays and hand-set scenario tests.
"""
from __future__ import annotations

from collections.abc import Mapping
from itertools import chain
from typing import Any, cast

import numpy as np

from ..config import OPTIONS, RuleConfig
from ..yaml_io import short_repr
from . import actions
from . import engine as E
from . import layout as L
from .cards import COL_COUNT, COLOURS, GAME_IDS, classic_kinds, dice_kinds, pocket_kinds
from .facts import GAME_FACTS
from .invariants import BAD_CONSERVATION, FAILURE_NAMES, check_state
from .observe import observation_layout
from .validate import state_problem

#: ``format`` and ``version`` of :meth:`Game.state_dict`; version 1 was the readable dict without them
STATE_FORMAT = "uno-env-state"
#: 3: rows sized to the player count, so ``fields.hand`` has one row per seat (version 2 had ten rows whatever
#: the game: read and converted exactly, see :meth:`Game.check_exact`)
STATE_VERSION = 3
#: the readable keys of a state dict (:meth:`Game.view_dict`), which a partial edit may give
VIEW_KEYS = (
    "game", "hands", "current_colour", "direction", "current_seat", "phase", "scores", "called_uno", "pending_draw",
    "top", "dealer", "round", "turns", "done", "round_winner", "round_points", "match_winner", "drawn",
    "pending_symbol", "wd_guilty", "wd_player", "uno_missed", "shown", "bag", "centre_die", "dice", "draw_pile",
    "discard_pile",
)



def check_shell_part(env: Any, kind: str, keys: set[str], holds: str, shell: str) -> None:
    """Check the ``env`` part of a state dict: a mapping saved by a ``kind`` shell with exactly ``keys``; ``holds``
    says what it holds and ``shell`` names the loading shell, for the errors."""
    if not isinstance(env, Mapping):
        raise TypeError(f"env: expected a mapping ({holds}), got {type(env).__name__}")
    if env.get("kind") != kind:
        raise ValueError(f"env.kind: this state was saved by a {short_repr(env.get('kind'))} environment; {shell} "
                         f"loads {kind!r} states (drop the 'env' key to load only the game)")
    if set(env) != keys:
        raise ValueError(f"env: expected the keys {sorted(keys)}; missing {sorted(keys - set(env))}, unknown "
                         f"{sorted(map(str, set(env) - keys))}")

class Game:
    """Static data of one configured game. Cheap to build; share it between environments."""

    def __init__(self, rules: RuleConfig):
        if not isinstance(rules, RuleConfig):
            raise TypeError(f"rules must be a RuleConfig, got {type(rules).__name__}")
        self.rules = rules
        self.name = rules.game
        self.num_players: int = cast(int, rules.num_players)  # an option of every game, so never None
        #: entries of this game's state rows (``layout.state_len``: only the hands depend on the seats)
        self.state_len: int = L.state_len(self.num_players)
        #: (name, offset, entries, shape, wide) of every field of the layout, in row order, for this player count
        self._slices = tuple((f.name, L.OFFSETS[f.name], f.size_for(self.num_players),
                              f.shape_for(self.num_players), f.wide) for f in L.FIELDS)
        if self.name == "classic":
            self.kinds = classic_kinds()
            self.dice = np.zeros((1, 6), dtype=np.int32)
        elif self.name == "pocket":
            self.kinds = pocket_kinds(bool(rules.extra_wild))
            self.dice = np.zeros((1, 6), dtype=np.int32)
        else:
            dice_set = rules.load_dice_set()
            self.dice = np.ascontiguousarray(dice_set.face_index_array(), dtype=np.int32)
            if self.dice.shape[0] > E.MAX_DICE:
                raise ValueError(f"dice set {rules.dice_set!r} has {self.dice.shape[0]} dice; at most {E.MAX_DICE}")
            counts = np.bincount(self.dice.ravel(), minlength=38)
            self.kinds = dice_kinds(counts)
        self.spec = np.ascontiguousarray(self.kinds.table)
        self.num_kinds = self.kinds.num_kinds
        self.num_items = int(self.spec[:, COL_COUNT].sum()) if self.name != "dice" else self.dice.shape[0]
        self.num_dice: int = self.dice.shape[0] if self.name == "dice" else 0
        self.offsets = actions.offsets(self.num_kinds, self.num_dice)
        self.num_actions: int = self.offsets["num_actions"]
        self.action_names: list[str] = actions.action_names(self.kinds.names, self.num_dice)
        self._action_ids = {name: i for i, name in enumerate(self.action_names)}
        self.cfg = self._cfg_array(rules)
        self._rules_dict = rules.to_dict()
        rows, offs = observation_layout(self.name, self.num_players, self.kinds.names, self.dice.shape[0],
                                        shown_hand=self.name != "dice" and bool(rules.wd4_challenge))
        self.observation_layout: list[tuple[int, int, str, str]] = rows
        self.obs_offsets = offs
        self.obs_dim = int(offs[-1])

    def __setstate__(self, state: dict[str, Any]) -> None:
        # pickle and deepcopy give arrays back writable. The kernels are compiled and cached for a read-only cfg and
        # spec (the dice table stays writable, as built): a writable copy (a copied env, an arena worker's game)
        # compiled the rules core again for its new signature, outside what `uno-env precompile` caches
        self.__dict__.update(state)
        for table in (self.cfg, self.spec, self.kinds.table):
            table.setflags(write=False)

    def _cfg_array(self, r: RuleConfig) -> np.ndarray:
        """The compiled options array: the derived slots, then every option that names a slot (``OPTIONS``)."""
        cfg = np.zeros(L.CFG_LEN, dtype=np.int64)
        derived = {
            "game": GAME_IDS[r.game],
            "k": self.num_kinds,
            "deal": GAME_FACTS[r.game].deal,
            "num_dice": self.dice.shape[0] if r.game == "dice" else 0,
            "num_cards": self.num_items,
        }
        assert set(derived) == {name for name, _ in L.DERIVED_SLOTS}
        for name, value in derived.items():
            cfg[L.CFG_INDEX[name]] = value
        for name, spec in OPTIONS.items():
            if spec.slot is not None and spec.applies_to(r.game):
                cfg[L.CFG_INDEX[spec.slot]] = spec.encode(getattr(r, name))
        cfg.setflags(write=False)
        return cfg

    # -- metadata -----------------------------------------------------------------------------
    def describe_action(self, action: int, st: np.ndarray) -> str:
        """The action's name, and for a UNO Dice ``play die i`` the face die i shows in state row ``st`` (the state
        it is played from): ``"play die 4 (red 1)"``."""
        name = self.action_names[action]
        if self.num_dice and action >= self.offsets["play_die"]:
            die = (action - self.offsets["play_die"]) % self.num_dice
            name += f" ({self.kinds.names[self.dice[die, st[E.O_DIE_FACE + die]]]})"
        return name

    def action_id(self, name: str) -> int:
        """The id of the action named ``name``; ValueError for an unknown name."""
        try:
            return self._action_ids[name]
        except KeyError:
            raise ValueError(f"unknown action {name!r} for game {self.name!r}; see Game.action_names") from None

    def new_states(self, batch: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Zeroed state rows and PRNG words for ``batch`` games: ``(int16 (batch, state_len), uint64 (batch, 1))``."""
        return np.zeros((batch, self.state_len), dtype=L.STATE_DTYPE), np.zeros((batch, 1), dtype=np.uint64)

    # -- plain-data views ---------------------------------------------------------------------
    def _kind_list(self, counts) -> list[str]:
        names = self.kinds.names
        return [names[kind] for kind in np.repeat(np.arange(len(counts)), np.maximum(counts, 0))]

    def state_dict(self, st: np.ndarray, rng: np.ndarray | None = None) -> dict[str, Any]:
        """The whole state of one game as plain, versioned, JSON-ready data (hidden parts included).

        ``format``/``version`` name the format; ``game``, ``num_players`` and ``rules`` the game it belongs to;
        ``fields`` holds every field of ``uno_env.core.layout.FIELDS`` by name (ints, nested lists of ints: the
        state row itself, generated from the layout); ``rng`` the PRNG word(s) (when ``rng`` is given).  The
        other keys (``hands``, ``draw_pile``, ``current_seat``...) are a readable view of the same state
        (:meth:`view_dict`).  :meth:`load_state_dict` of it, with the PRNG word, continues exactly.
        """
        d: dict[str, Any] = {
            "format": STATE_FORMAT, "version": STATE_VERSION, "num_players": self.num_players,
            "rules": dict(self._rules_dict),
        }
        if rng is not None:
            d["rng"] = [int(x) for x in np.asarray(rng, dtype=np.uint64).reshape(-1)]
        d["fields"] = {name: _field_value(st[off: off + size], shape, wide)
                       for name, off, size, shape, wide in self._slices}
        d.update(self.view_dict(st))
        return d

    def load_state_dict(self, st: np.ndarray, d: Mapping[str, Any], rng: np.ndarray | None = None) -> None:
        """Set ``st`` (and the PRNG word ``rng``) from ``d``; nothing is written unless the whole state is valid.

        A versioned dict (with ``"format"``, from :meth:`state_dict`) is an exact state: every field, the PRNG
        word and the game must be given and are checked (see :meth:`check_exact`).  A dict without ``"format"``
        is a partial edit (hand-set scenarios): the readable keys it gives replace those parts of the state and
        the others keep their values.  Either way the resulting state must be one the rules can reach in form
        (field ranges, conservation, phase consistency: ``validate.state_problem``), else ``ValueError``
        naming the field.
        """
        if not isinstance(d, Mapping):
            raise TypeError(f"a state dict must be a mapping (from state_dict()); got {type(d).__name__}")
        if "format" in d:
            row, words = self.check_exact(d, rng is not None)
        else:
            row, words = self._edited(st, d), None
            problem = self.state_problem(row)
            if problem:
                raise ValueError(f"the state does not hold together: {problem}")
        st[:] = row
        if words is not None and rng is not None:  # words are only read when a PRNG array was given
            rng[:] = words

    def check_exact(self, d: Mapping[str, Any], with_rng: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """The state row and PRNG words of the versioned state dict ``d``, or ``ValueError``/``TypeError`` naming
        the key or field that is wrong: format and version, game, ``num_players``, rules, the PRNG word, every
        field of the layout (present, ints of the declared shape, no bools or floats, within bounds), the state's
        consistency (``validate.state_problem``) and the readable keys given beside the fields (each must agree
        with them: the fields are the state)."""
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
        if d["game"] != self.name:
            raise ValueError(f"game: the state is of game {short_repr(d['game'])}, this environment plays "
                             f"{self.name!r}")
        n = d["num_players"]
        if type(n) is not int or n != self.num_players:
            raise ValueError(f"num_players: the state has {short_repr(n)}, this environment has {self.num_players}")
        if d["rules"] != self._rules_dict:
            mine = self._rules_dict
            theirs = d["rules"] if isinstance(d["rules"], Mapping) else {}
            diff = sorted(str(k) for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
            raise ValueError(f"rules: the state was saved under other rules ({', '.join(diff[:5]) or 'not a mapping'}"
                             f" differ); build the environment with the state's rules")
        words = None
        if with_rng:
            r = d["rng"]
            if not isinstance(r, list) or len(r) != 1 or type(r[0]) is not int or not 0 <= r[0] < 2**64:
                raise ValueError(f"rng: expected a list of one int in [0, 2**64) (the PRNG word), got {short_repr(r)}")
            words = np.array(r, dtype=np.uint64)
        fields = d["fields"]
        if version == 2:
            fields = self._fields_of_version_2(fields)
        row = self._row_from_fields(fields)
        problem = self.state_problem(row)
        if problem:
            raise ValueError(f"the state does not hold together: {problem}")
        view = self.view_dict(row)
        for key in VIEW_KEYS:
            if key in d and d[key] != view[key]:
                raise ValueError(f"{key}: {short_repr(d[key])} disagrees with the state's fields "
                                 f"({short_repr(view[key])}); in a versioned state the 'fields' are the state: "
                                 f"edit them, or give a partial dict without 'format'")
        return row, words

    def _fields_of_version_2(self, fields: Any) -> Any:
        """Version-2 fields in version 3: the same fields, but ``hand`` held ten seats whatever the game; the
        seats past ``num_players`` must hold nothing (then the conversion is exact), else ``ValueError``."""
        if not isinstance(fields, Mapping) or not isinstance(fields.get("hand"), list):
            return fields  # _row_from_fields names what is wrong
        hand = fields["hand"]
        n = self.num_players
        if len(hand) != L.MAX_PLAYERS or any(x != [0] * L.MAX_KINDS for x in hand[n:]):
            raise ValueError(f"fields.hand: a version-2 state holds {L.MAX_PLAYERS} rows of {L.MAX_KINDS}, the "
                             f"rows past num_players={n} all zeros; got {short_repr(hand)}")
        return {**fields, "hand": hand[:n]}

    def _row_from_fields(self, fields: Any) -> np.ndarray:
        if not isinstance(fields, Mapping):
            raise TypeError(f"fields: expected a mapping of field name to value, got {type(fields).__name__}")
        names = set(L.FIELD_BY_NAME)
        if set(fields) != names:
            missing, extra = sorted(names - set(fields)), sorted(map(str, set(fields) - names))
            raise ValueError(f"fields: {'missing ' + repr(missing) if missing else ''}"
                             f"{'; ' if missing and extra else ''}{'unknown ' + repr(extra) if extra else ''}")
        row = np.zeros(self.state_len, dtype=L.STATE_DTYPE)
        for name, off, size, shape, wide in self._slices:
            value = fields[name]
            lo, hi = (L.WIDE_MIN, L.WIDE_MAX) if wide else (L.STATE_MIN, L.STATE_MAX)
            if not shape:
                if type(value) is not int:  # bool and float are refused, as are numpy scalars (not plain data)
                    raise TypeError(f"fields.{name}: expected an int, got {short_repr(value)} "
                                    f"({type(value).__name__})")
                if not lo <= value <= hi:
                    raise ValueError(f"fields.{name}: {value} is outside {lo}..{hi}, the values a state row holds")
                arr = np.array([value], dtype=np.int64)
            else:
                arr = _int_array(name, value, shape)
                if arr.dtype == object or arr.min() < lo or arr.max() > hi:
                    raise ValueError(f"fields.{name}: values must be in {lo}..{hi}, the values a state row holds")
            row[off: off + size] = L.wide_entries(name, arr.reshape(-1)) if wide else arr.reshape(-1)
        return row

    def state_problem(self, st: np.ndarray) -> str:
        """'' when ``st`` is a state the rules can reach in form, else what is wrong (``validate.state_problem``,
        with the missing or duplicated cards named when conservation is broken)."""
        problem = state_problem(self, st)
        if problem and FAILURE_NAMES[BAD_CONSERVATION] in problem and self.name != "dice":
            detail = self._conservation_detail(L.StateView(np.asarray(st, dtype=L.STATE_DTYPE)))
            problem = problem.replace("(conservation)", f"(conservation{detail})")
        return problem

    def view_dict(self, st: np.ndarray) -> dict[str, Any]:
        """The readable part of :meth:`state_dict`: hands, piles and scalars by name (hidden parts included)."""
        n, k = self.num_players, self.num_kinds
        v = L.StateView(st, n)  # the wide fields (scores, round, turns, round_points) read as plain ints
        hands = [self._kind_list(st[E.O_HAND + s * E.MAX_KINDS: E.O_HAND + s * E.MAX_KINDS + k]) for s in range(n)]
        d: dict[str, Any] = {
            "game": self.name,
            "hands": hands,
            "current_colour": COLOURS[st[E.S_COLOUR]],
            "direction": int(st[E.S_DIR]),
            "current_seat": int(st[E.S_CUR]),
            "phase": E.PHASE_NAMES[st[E.S_PHASE]],
            "scores": [int(x) for x in v.scores[:n]],
            "called_uno": [bool(x) for x in st[E.O_CALLED: E.O_CALLED + n]],
            "pending_draw": int(st[E.S_PENDING]),
            "top": self.kinds.names[st[E.S_TOP]],
            "dealer": int(st[E.S_DEALER]),
            "round": v.round,
            "turns": v.turns,
            "done": ("", "terminated", "truncated")[st[E.S_DONE]],
            "round_winner": int(st[E.S_WINNER]),
            "round_points": v.round_points,
            "match_winner": int(st[E.S_MATCH_WINNER]),
            "drawn": None if st[E.S_DRAWN] < 0 else self.kinds.names[st[E.S_DRAWN]],
            "pending_symbol": int(st[E.S_PENDING_SYM]),
            "wd_guilty": int(st[E.S_WD_GUILTY]),
            "wd_player": int(st[E.S_WD_PLAYER]),
            "uno_missed": int(st[E.S_UNO_MISSED]),
            "shown": None if st[E.S_SHOWN_TO] < 0 else {
                "from": int(st[E.S_SHOWN_FROM]), "to": int(st[E.S_SHOWN_TO]),
                "hand": self._kind_list(st[E.O_SHOWN_HAND: E.O_SHOWN_HAND + k]),
            },
        }
        if self.name == "dice":
            bag = [int(x) for x in st[E.O_DRAW: E.O_DRAW + st[E.S_DRAW_N]]]
            d["bag"] = sorted(bag)
            d["centre_die"] = int(st[E.O_DISC])
            d["dice"] = [
                {"location": _loc_name(int(st[E.O_DIE_LOC + i])), "face": int(st[E.O_DIE_FACE + i]),
                 "shows": self.kinds.names[self.dice[i, st[E.O_DIE_FACE + i]]]}
                for i in range(self.dice.shape[0])
            ]
            d["draw_pile"] = []
            d["discard_pile"] = [d["top"]]
        else:
            d["draw_pile"] = [self.kinds.names[x] for x in st[E.O_DRAW: E.O_DRAW + st[E.S_DRAW_N]]]
            d["discard_pile"] = [self.kinds.names[x] for x in st[E.O_DISC: E.O_DISC + st[E.S_DISC_N]]]
        return d

    def _edited(self, st: np.ndarray, d: Mapping[str, Any]) -> np.ndarray:
        """A copy of ``st`` with the readable keys of ``d`` applied (a partial edit; checked by the caller).

        Card games: ``hands``, ``draw_pile`` and ``discard_pile`` hold kind names.  UNO Dice: ``dice`` (a list of
        ``{"location": "bag" | "centre" | seat, "face": 0..5}``) places every die.
        """
        n, k = self.num_players, self.num_kinds
        unknown = set(d) - set(VIEW_KEYS) - {"env"}
        if unknown:
            raise ValueError(f"unknown state keys: {sorted(map(str, unknown))}; the keys are {sorted(VIEW_KEYS)}")
        if "game" in d and d["game"] != self.name:
            raise ValueError(f"game: the state is of game {short_repr(d['game'])}, this environment plays "
                             f"{self.name!r}")
        st = np.array(st, dtype=L.STATE_DTYPE, copy=True)
        if self.name == "dice":
            if "dice" in d:
                dice = d["dice"]
                nd = self.dice.shape[0]
                if not isinstance(dice, (list, tuple)) or len(dice) != nd:
                    raise ValueError(f"dice: expected a list of {nd} dice ({{'location', 'face'}}), got "
                                     f"{short_repr(dice)}")
                st[E.O_HAND:] = 0
                st[E.O_HAND_N: E.O_HAND_N + E.MAX_PLAYERS] = 0
                st[E.O_DISC_COUNT: E.O_DISC_COUNT + E.MAX_KINDS] = 0
                bag = []
                for i, die in enumerate(dice):
                    if not isinstance(die, Mapping) or set(die) - {"location", "face", "shows"}:
                        raise ValueError(f"dice[{i}]: expected {{'location': 'bag' | 'centre' | seat, 'face': "
                                         f"0..5}}, got {short_repr(die)}")
                    loc = die.get("location")
                    face = _int(f"dice[{i}].face", die.get("face"), 0, 5)
                    st[E.O_DIE_FACE + i] = face
                    kind = self.dice[i, face]
                    if loc == "bag":
                        st[E.O_DIE_LOC + i] = E.LOC_BAG
                        bag.append(i)
                    elif loc == "centre":
                        st[E.O_DIE_LOC + i] = E.LOC_CENTRE
                        st[E.O_DISC] = i
                        st[E.S_DISC_N] = 1
                        st[E.S_TOP] = kind
                        st[E.O_DISC_COUNT + kind] = 1
                    else:
                        seat = _int(f"dice[{i}].location", loc, 0, n - 1, "'bag', 'centre' or a seat")
                        st[E.O_DIE_LOC + i] = seat
                        st[E.O_HAND + seat * E.MAX_KINDS + kind] += 1
                        st[E.O_HAND_N + seat] += 1
                st[E.O_DRAW: E.O_DRAW + len(bag)] = bag
                st[E.S_DRAW_N] = len(bag)
        else:
            if "hands" in d:
                if not isinstance(d["hands"], (list, tuple)) or len(d["hands"]) != n:
                    raise ValueError(f"hands: expected {n} hands (lists of card names), got {short_repr(d['hands'])}")
                for s, hand in enumerate(d["hands"]):
                    row = np.zeros(k, dtype=np.int32)
                    for name in _names(f"hands[{s}]", hand):
                        row[self.kinds.index(name)] += 1
                    st[E.O_HAND + s * E.MAX_KINDS: E.O_HAND + s * E.MAX_KINDS + k] = row
                    st[E.O_HAND_N + s] = len(hand)
            if "draw_pile" in d:
                ids = [self.kinds.index(x) for x in _names("draw_pile", d["draw_pile"])]
                st[E.O_DRAW: E.O_DRAW + len(ids)] = ids
                st[E.S_DRAW_N] = len(ids)
            if "discard_pile" in d:
                ids = [self.kinds.index(x) for x in _names("discard_pile", d["discard_pile"])]
                if not ids:
                    raise ValueError("discard_pile must hold at least the top card")
                st[E.O_DISC: E.O_DISC + len(ids)] = ids
                st[E.S_DISC_N] = len(ids)
                st[E.S_TOP] = ids[-1]
                st[E.O_DISC_COUNT: E.O_DISC_COUNT + E.MAX_KINDS] = 0
                for x in ids:
                    st[E.O_DISC_COUNT + x] += 1
        scalars = {
            "direction": E.S_DIR, "current_seat": E.S_CUR, "pending_draw": E.S_PENDING, "dealer": E.S_DEALER,
            "wd_guilty": E.S_WD_GUILTY, "wd_player": E.S_WD_PLAYER, "uno_missed": E.S_UNO_MISSED,
            "round_winner": E.S_WINNER, "pending_symbol": E.S_PENDING_SYM, "match_winner": E.S_MATCH_WINNER,
        }
        for key, idx in scalars.items():
            if key in d:
                st[idx] = _int(key, d[key], L.STATE_MIN, L.STATE_MAX)
        for key, idx in (("round", E.S_ROUND), ("turns", E.S_TURNS), ("round_points", E.S_ROUND_POINTS)):
            if key in d:
                st[idx: idx + 2] = L.wide_entries(key, [_int(key, d[key], L.WIDE_MIN, L.WIDE_MAX)])
        if "current_colour" in d:
            st[E.S_COLOUR] = _choice("current_colour", d["current_colour"], COLOURS)
        if "phase" in d:
            st[E.S_PHASE] = _choice("phase", d["phase"], E.PHASE_NAMES)
        if "drawn" in d:
            st[E.S_DRAWN] = -1 if d["drawn"] is None else self.kinds.index(_names("drawn", [d["drawn"]])[0])
        if "shown" in d:
            shown = d["shown"]
            st[E.O_SHOWN_HAND: E.O_SHOWN_HAND + E.MAX_KINDS] = 0
            st[E.S_SHOWN_FROM] = st[E.S_SHOWN_TO] = -1
            if shown is not None:
                if not isinstance(shown, Mapping) or set(shown) - {"from", "to", "hand"}:
                    raise ValueError(f"shown: expected None or {{'from': seat, 'to': seat, 'hand': [cards]}}, got "
                                     f"{short_repr(shown)}")
                st[E.S_SHOWN_FROM] = _int("shown.from", shown.get("from"), 0, n - 1)
                st[E.S_SHOWN_TO] = _int("shown.to", shown.get("to"), 0, n - 1)
                for name in _names("shown.hand", shown.get("hand", [])):
                    st[E.O_SHOWN_HAND + self.kinds.index(name)] += 1
        if "scores" in d:
            st[E.O_SCORES: E.O_SCORES + 2 * n] = L.wide_entries("scores", _ints("scores", d["scores"], n))
        if "called_uno" in d:
            called = d["called_uno"]
            if not isinstance(called, (list, tuple)) or len(called) != n or \
                    any(not isinstance(x, (bool, np.bool_, int, np.integer)) or x not in (0, 1) for x in called):
                raise ValueError(f"called_uno: expected {n} booleans, got {short_repr(called)}")
            st[E.O_CALLED: E.O_CALLED + n] = [int(bool(x)) for x in called]
        if "done" in d:
            st[E.S_DONE] = _choice("done", d["done"], ("", "terminated", "truncated"))
        return st

    def check_invariants(self, st: np.ndarray) -> str:
        """'' when the state is consistent, else what is wrong: the compiled checker
        (``invariants.check_state``, the one the soak tests run after every step), in words."""
        row = np.ascontiguousarray(st, dtype=L.STATE_DTYPE)
        if row.shape != (self.state_len,):
            return f"a state row is 1-D of length {self.state_len} ({self.num_players} players); got shape {row.shape}"
        code = check_state(row, self.cfg, self.spec, self.dice)
        if code == 0:
            return ""
        problem = FAILURE_NAMES[code]
        if code == BAD_CONSERVATION and self.name != "dice":
            problem += self._conservation_detail(L.StateView(row))
        return problem

    def _conservation_detail(self, v: L.StateView) -> str:
        """Which kinds are missing or duplicated (said after the checker found conservation broken)."""
        k = self.num_kinds
        total = v.hand[: self.num_players, :k].sum(axis=0).astype(np.int64)
        for pile in (v.draw[: v.draw_n], v.disc[: v.disc_n]):
            total += np.bincount(pile[(pile >= 0) & (pile < k)], minlength=k)[:k]
        bad = np.flatnonzero(total != self.spec[:, COL_COUNT])
        return " broken for " + ", ".join(
            f"{self.kinds.names[x]} ({total[x]} found, {self.spec[x, COL_COUNT]} in the deck)" for x in bad[:5])


class GameMetadata:
    """The tables every shell (AEC, Gymnasium, batched) exposes from its ``game``."""

    game: Game

    @property
    def action_names(self) -> list[str]:
        """Action names, indexed by action id."""
        return self.game.action_names

    @property
    def observation_layout(self) -> list[tuple[int, int, str, str]]:
        """Rows of (offset, length, name, meaning) of the ``observation`` vector."""
        return self.game.observation_layout

    def action_id(self, name: str) -> int:
        """The id of the action named ``name`` (e.g. ``"play red 7"``); ValueError for an unknown name."""
        return self.game.action_id(name)


def _loc_name(loc: int):
    if loc == E.LOC_BAG:
        return "bag"
    if loc == E.LOC_CENTRE:
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

    def walk(v: Any, depth: int, at: list[int]) -> None:
        if depth == len(shape):
            if type(v) is not int:
                raise TypeError(f"fields.{name}{at}: expected an int, got {short_repr(v)} ({type(v).__name__})")
            return
        if not isinstance(v, list) or len(v) != shape[depth]:
            raise ValueError(f"fields.{name}{at if at else ''}: expected a list of {shape[depth]} entries (shape "
                             f"{list(shape)}), got {short_repr(v)}")
        for i, x in enumerate(v):
            walk(x, depth + 1, at + [i])

    walk(value, 0, [])
    raise AssertionError("unreachable: the walk names the bad entry")  # pragma: no cover
