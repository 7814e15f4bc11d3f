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
from . import actions
from . import engine as E
from . import layout as L
from .cards import COL_COUNT, COLOURS, GAME_IDS, classic_kinds, dice_kinds, pocket_kinds
from .invariants import BAD_CONSERVATION, FAILURE_NAMES, check_state
from .observe import observation_layout

DEAL = {"classic": 7, "pocket": 5, "dice": 5}


class Game:
    """Static data of one configured game. Cheap to build; share it between environments."""

    def __init__(self, rules: RuleConfig):
        if not isinstance(rules, RuleConfig):
            raise TypeError(f"rules must be a RuleConfig, got {type(rules).__name__}")
        self.rules = rules
        self.name = rules.game
        self.num_players: int = cast(int, rules.num_players)  # an option of every game, so never None
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
        rows, offs = observation_layout(self.name, self.num_players, self.kinds.names, self.dice.shape[0],
                                        shown_hand=self.name != "dice" and bool(rules.wd4_challenge))
        self.observation_layout: list[tuple[int, int, str, str]] = rows
        self.obs_offsets = offs
        self.obs_dim = int(offs[-1])

    def _cfg_array(self, r: RuleConfig) -> np.ndarray:
        """The compiled options array: the derived slots, then every option that names a slot (``OPTIONS``)."""
        cfg = np.zeros(L.CFG_LEN, dtype=np.int64)
        derived = {
            "game": GAME_IDS[r.game],
            "k": self.num_kinds,
            "deal": DEAL[r.game],
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
        """Zeroed state rows and PRNG words for ``batch`` games: ``(int32 (batch, STATE_LEN), uint64 (batch, 1))``."""
        return np.zeros((batch, E.STATE_LEN), dtype=np.int32), np.zeros((batch, 1), dtype=np.uint64)

    # -- plain-data views ---------------------------------------------------------------------
    def _kind_list(self, counts) -> list[str]:
        out: list[str] = []
        for kind, c in enumerate(counts):
            out += [self.kinds.names[kind]] * int(c)
        return out

    def state_dict(self, st: np.ndarray) -> dict[str, Any]:
        """A plain-data snapshot of one game's full state (hidden parts included: for debugging and replays)."""
        n, k = self.num_players, self.num_kinds
        hands = [self._kind_list(st[E.O_HAND + s * E.MAX_KINDS: E.O_HAND + s * E.MAX_KINDS + k]) for s in range(n)]
        d: dict[str, Any] = {
            "game": self.name,
            "hands": hands,
            "current_colour": COLOURS[st[E.S_COLOUR]],
            "direction": int(st[E.S_DIR]),
            "current_seat": int(st[E.S_CUR]),
            "phase": E.PHASE_NAMES[st[E.S_PHASE]],
            "scores": [int(x) for x in st[E.O_SCORES: E.O_SCORES + n]],
            "called_uno": [bool(x) for x in st[E.O_CALLED: E.O_CALLED + n]],
            "pending_draw": int(st[E.S_PENDING]),
            "top": self.kinds.names[st[E.S_TOP]],
            "dealer": int(st[E.S_DEALER]),
            "round": int(st[E.S_ROUND]),
            "turns": int(st[E.S_TURNS]),
            "done": ("", "terminated", "truncated")[st[E.S_DONE]],
            "round_winner": int(st[E.S_WINNER]),
            "round_points": int(st[E.S_ROUND_POINTS]),
            "match_winner": int(st[E.S_MATCH_WINNER]),
            "drawn": None if st[E.S_DRAWN] < 0 else self.kinds.names[st[E.S_DRAWN]],
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

    def load_state_dict(self, st: np.ndarray, d: Mapping[str, Any]) -> None:
        """Set ``st`` (in place) from a dict of the ``state_dict`` form; missing keys keep their values.

        Card games: ``hands``, ``draw_pile`` and ``discard_pile`` hold kind names.  UNO Dice: ``dice`` (a list of
        ``{"location": "bag" | "centre" | seat, "face": 0..5}``) places every die.  The result is checked for
        conservation, so a hand-set scenario cannot silently lose or invent a card.
        """
        n, k = self.num_players, self.num_kinds
        unknown = set(d) - {
            "game", "hands", "draw_pile", "discard_pile", "current_colour", "direction", "current_seat", "phase",
            "scores", "called_uno", "pending_draw", "top", "dealer", "round", "turns", "done", "round_winner",
            "bag", "centre_die", "dice", "pending_symbol", "wd_guilty", "wd_player", "drawn", "uno_missed",
            "round_points", "match_winner", "shown",
        }
        if unknown:
            raise ValueError(f"unknown state keys: {sorted(unknown)}")
        if self.name == "dice":
            if "dice" in d:
                st[E.O_HAND: E.O_HAND + E.MAX_PLAYERS * E.MAX_KINDS] = 0
                st[E.O_HAND_N: E.O_HAND_N + E.MAX_PLAYERS] = 0
                st[E.O_DISC_COUNT: E.O_DISC_COUNT + E.MAX_KINDS] = 0
                bag = []
                for i, die in enumerate(d["dice"]):
                    loc = die["location"]
                    face = int(die["face"])
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
                        seat = int(loc)
                        st[E.O_DIE_LOC + i] = seat
                        st[E.O_HAND + seat * E.MAX_KINDS + kind] += 1
                        st[E.O_HAND_N + seat] += 1
                st[E.O_DRAW: E.O_DRAW + len(bag)] = bag
                st[E.S_DRAW_N] = len(bag)
        else:
            if "hands" in d:
                if len(d["hands"]) != n:
                    raise ValueError(f"hands: expected {n} hands, got {len(d['hands'])}")
                for s, hand in enumerate(d["hands"]):
                    row = np.zeros(k, dtype=np.int32)
                    for name in hand:
                        row[self.kinds.index(name)] += 1
                    st[E.O_HAND + s * E.MAX_KINDS: E.O_HAND + s * E.MAX_KINDS + k] = row
                    st[E.O_HAND_N + s] = len(hand)
            if "draw_pile" in d:
                ids = [self.kinds.index(x) for x in d["draw_pile"]]
                st[E.O_DRAW: E.O_DRAW + len(ids)] = ids
                st[E.S_DRAW_N] = len(ids)
            if "discard_pile" in d:
                ids = [self.kinds.index(x) for x in d["discard_pile"]]
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
            "round": E.S_ROUND, "turns": E.S_TURNS, "wd_guilty": E.S_WD_GUILTY, "wd_player": E.S_WD_PLAYER,
            "uno_missed": E.S_UNO_MISSED, "round_winner": E.S_WINNER,
            "round_points": E.S_ROUND_POINTS, "match_winner": E.S_MATCH_WINNER,
        }
        for key, idx in scalars.items():
            if key in d:
                st[idx] = int(d[key])
        if "current_colour" in d:
            st[E.S_COLOUR] = COLOURS.index(d["current_colour"])
        if "phase" in d:
            st[E.S_PHASE] = E.PHASE_NAMES.index(d["phase"])
        if "pending_symbol" in d:
            st[E.S_PENDING_SYM] = d["pending_symbol"]
        if "drawn" in d:
            st[E.S_DRAWN] = -1 if d["drawn"] is None else self.kinds.index(d["drawn"])
        if "shown" in d:
            shown = d["shown"]
            st[E.O_SHOWN_HAND: E.O_SHOWN_HAND + E.MAX_KINDS] = 0
            st[E.S_SHOWN_FROM] = st[E.S_SHOWN_TO] = -1
            if shown is not None:
                for seat_key in ("from", "to"):
                    if not isinstance(shown.get(seat_key), int) or not 0 <= shown[seat_key] < n:
                        raise ValueError(f"state key 'shown': {seat_key!r} must be a seat 0..{n - 1}")
                st[E.S_SHOWN_FROM], st[E.S_SHOWN_TO] = shown["from"], shown["to"]
                for name in shown.get("hand", []):
                    st[E.O_SHOWN_HAND + self.kinds.index(name)] += 1
        if "scores" in d:
            st[E.O_SCORES: E.O_SCORES + n] = d["scores"]
        if "called_uno" in d:
            st[E.O_CALLED: E.O_CALLED + n] = [int(bool(x)) for x in d["called_uno"]]
        if "done" in d:
            st[E.S_DONE] = ("", "terminated", "truncated").index(d["done"])
        problem = self.check_invariants(st)
        if problem:
            raise ValueError(f"the state does not hold together: {problem}")

    def check_invariants(self, st: np.ndarray) -> str:
        """'' when the state is consistent, else what is wrong: the compiled checker
        (``invariants.check_state``, the one the soak tests run after every step), in words."""
        row = np.ascontiguousarray(st, dtype=np.int32)
        if row.shape != (L.STATE_LEN,):
            return f"a state row is 1-D of length {L.STATE_LEN}; got shape {row.shape}"
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
