"""One game's static data, bound to the compiled core: kind table, dice, options, action and observation tables.

:class:`Game` is what every shell (AEC, Gymnasium, batched simulator) holds.  It turns a :class:`RuleConfig`
into the arrays the core reads and offers plain-Python views of a state row (``state_dict``) and the inverse
(``load_state_dict``) for debugging, replays and hand-set scenario tests.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from ..config import OPTIONS, RuleConfig
from . import actions, validate
from . import engine as E
from . import layout as L
from . import state_dict as SD
from .cards import COL_COUNT, GAME_IDS, classic_kinds, dice_kinds, pocket_kinds
from .facts import GAME_FACTS
from .invariants import BAD_CONSERVATION, FAILURE_NAMES, check_state
from .observe import observation_layout


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
        #: ``rules.to_dict()``, which a state dict carries (and must match to load)
        self.rules_dict = rules.to_dict()
        rows, offs = observation_layout(self.name, self.num_players, self.kinds.names, self.dice.shape[0],
                                        shown_hand=self.name != "dice" and bool(rules.wd4_challenge))
        self.observation_layout: list[tuple[int, int, str, str]] = rows
        self.obs_offsets = offs
        self.obs_dim = int(offs[-1])

    def __reduce__(self) -> tuple[Any, ...]:
        # a copy is rebuilt from the rules, checked as any rules are (``RuleConfig.from_dict``): tables carried in a
        # pickle would reach the compiled core unread, and a table that is not this game's could make it read or
        # write outside the state row.  Rebuilt tables are read-only, as built: the kernels are compiled and cached
        # for read-only options and kinds, and a writable copy would compile the rules core again
        return _game_from_rules, (self.rules_dict,)

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self  # immutable: every shell may share it

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

    # -- plain-data views (``state_dict.py``) and the state check (``validate.py``) --------------------------
    def state_dict(self, st: np.ndarray, rng: np.ndarray | None = None) -> dict[str, Any]:
        """The whole state of one game as plain, versioned, JSON-ready data (hidden parts included).

        ``format``/``version`` name the format; ``game``, ``num_players`` and ``rules`` the game it belongs to;
        ``fields`` holds every field of ``uno_env.core.layout.FIELDS`` by name (ints, nested lists of ints: the
        state row itself, generated from the layout); ``rng`` the PRNG word(s) (when ``rng`` is given).  The
        other keys (``hands``, ``draw_pile``, ``current_seat``...) are a readable view of the same state
        (:meth:`view_dict`).  :meth:`load_state_dict` of it, with the PRNG word, continues exactly.
        """
        return SD.to_dict(self, st, rng)

    def view_dict(self, st: np.ndarray) -> dict[str, Any]:
        """The readable part of :meth:`state_dict`: hands, piles and scalars by name (hidden parts included)."""
        return SD.view_dict(self, st)

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
            row, words = SD.edited_row(self, st, d), None
        st[:] = row
        if words is not None and rng is not None:  # words are only read when a PRNG array was given
            rng[:] = words

    def check_exact(self, d: Mapping[str, Any], with_rng: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """The state row and PRNG words of the versioned state dict ``d``, or ``ValueError``/``TypeError`` naming
        the key or field that is wrong: format and version, game, ``num_players``, rules, the PRNG word, every
        field of the layout (present, ints of the declared shape, no bools or floats, within bounds), the state's
        consistency (``validate.state_problem``) and the readable keys given beside the fields (each must agree
        with them: the fields are the state)."""
        return SD.exact_row(self, d, with_rng)

    def state_problem(self, st: np.ndarray) -> str:
        """'' when ``st`` is a state the rules can reach in form, else what is wrong (``validate.state_problem``,
        with the missing or duplicated cards named when conservation is broken)."""
        return validate.state_problem(self, st)

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
            problem += validate.conservation_detail(self, L.StateView(row))
        return problem


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



def _game_from_rules(rules: Any) -> Game:
    """A game unpickled: rebuilt from its rules, which are checked first (``Game.__reduce__``)."""
    try:
        return Game(RuleConfig.from_dict(rules))
    except (TypeError, ValueError, KeyError) as exc:
        raise ValueError(f"not a pickled uno-env game: its rules are not valid ({exc})") from None
