"""One game's static data, bound to the compiled core: kind table, dice, options, action and observation tables.

:class:`Game` is what every shell (AEC, Gymnasium, batched simulator) holds.  It turns a :class:`RuleConfig`
into the arrays the core reads and offers plain-Python views of a state row (``state_dict``) and the inverse
(``load_state_dict``) for debugging, replays and hand-set scenario tests.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..config import RuleConfig
from . import engine as E
from .cards import COLOURS, GAME_IDS, KindTable, classic_kinds, dice_kinds, pocket_kinds
from .observe import observation_layout

DEAL = {"classic": 7, "pocket": 5, "dice": 5}


def _action_names(kinds: KindTable) -> list[str]:
    names = [f"play {n}" for n in kinds.names]
    names += [f"play {n} + UNO" for n in kinds.names]
    names += [f"choose colour {c}" for c in COLOURS]
    names += ["draw", "keep drawn card", "challenge", "accept", "pass", "reroll"]
    names += [f"give {n}" for n in kinds.names]
    names += [f"swap hands with seat +{i}" for i in range(1, E.MAX_PLAYERS)]
    assert len(names) == E.action_offsets(kinds.num_kinds)["num_actions"]
    return names


class Game:
    """Static data of one configured game. Cheap to build; share it between environments."""

    def __init__(self, rules: RuleConfig):
        if not isinstance(rules, RuleConfig):
            raise TypeError(f"rules must be a RuleConfig, got {type(rules).__name__}")
        self.rules = rules
        self.name = rules.game
        self.num_players: int = rules.num_players
        if self.name == "classic":
            self.kinds = classic_kinds()
            self.dice = np.zeros((1, 6), dtype=np.int32)
        elif self.name == "pocket":
            self.kinds = pocket_kinds(rules.extra_wild)
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
        self.num_items = int(self.spec[:, 3].sum()) if self.name != "dice" else self.dice.shape[0]
        self.offsets = E.action_offsets(self.num_kinds)
        self.num_actions: int = self.offsets["num_actions"]
        self.action_names: list[str] = _action_names(self.kinds)
        self._action_ids = {name: i for i, name in enumerate(self.action_names)}
        self.cfg = self._cfg_array(rules)
        rows, offs = observation_layout(self.name, self.num_players, self.kinds.names, self.dice.shape[0])
        self.observation_layout: list[tuple[int, int, str, str]] = rows
        self.obs_offsets = offs
        self.obs_dim = int(offs[-1])

    def _cfg_array(self, r: RuleConfig) -> np.ndarray:
        cfg = np.zeros(E.CFG_LEN, dtype=np.int64)
        card_game = r.game != "dice"
        cfg[E.C_GAME] = GAME_IDS[r.game]
        cfg[E.C_NP] = r.num_players
        cfg[E.C_K] = self.num_kinds
        cfg[E.C_EPISODE_MATCH] = r.episode == "match"
        cfg[E.C_REWARD_POINTS] = r.reward == "points"
        cfg[E.C_TARGET] = r.target_score
        cfg[E.C_UNO_AUTO] = r.uno_call == "auto"
        cfg[E.C_CATCH_THRESHOLD] = int(round(r.uno_catch_probability * 2**32))
        cfg[E.C_MAX_TURNS] = r.max_turns
        cfg[E.C_FIRST_WILD_CHOOSE] = r.game == "classic" and r.first_wild == "choose_colour"
        if card_game:
            cfg[E.C_DRAW_UNTIL_PLAYABLE] = r.draw_until_playable
            cfg[E.C_VOLUNTARY_DRAW] = r.voluntary_draw
            cfg[E.C_WD_LEGAL_ANY_PLAYABLE] = r.wd4_legality == "any_playable"
            cfg[E.C_CHALLENGE] = r.wd4_challenge
            cfg[E.C_STACKING] = r.stacking
            cfg[E.C_SEVEN_ZERO] = r.seven_zero
            cfg[E.C_JUMP_IN] = r.jump_in
            cfg[E.C_FORCE_PLAY] = r.force_play
        else:
            cfg[E.C_VOLUNTARY_DRAW] = 1
            cfg[E.C_DICE_BLUFF] = r.dice_wd4_bluff
        cfg[E.C_DEAL] = DEAL[r.game]
        cfg[E.C_NUM_DICE] = self.dice.shape[0] if r.game == "dice" else 0
        cfg[E.C_NUM_CARDS] = self.num_items
        cfg.setflags(write=False)
        return cfg

    # -- metadata -----------------------------------------------------------------------------
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
            "round_points", "match_winner",
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
        """'' when the state is consistent, else what is wrong (conservation, counts, sizes)."""
        n, k = self.num_players, self.num_kinds
        hands = st[E.O_HAND: E.O_HAND + E.MAX_PLAYERS * E.MAX_KINDS].reshape(E.MAX_PLAYERS, E.MAX_KINDS)
        if (hands < 0).any():
            return "negative card count in a hand"
        if hands[n:].any() or hands[:, k:].any():
            return "cards in a seat or kind that does not exist"
        for s in range(n):
            if hands[s].sum() != st[E.O_HAND_N + s]:
                return f"seat {s}: hand size {st[E.O_HAND_N + s]} but {hands[s].sum()} cards"
        if not 0 <= st[E.S_CUR] < n:
            return f"current seat {st[E.S_CUR]} out of range"
        if st[E.S_DRAW_N] < 0 or st[E.S_DISC_N] < 1:
            return "pile sizes out of range"
        if self.name == "dice":
            nd = self.dice.shape[0]
            loc = st[E.O_DIE_LOC: E.O_DIE_LOC + nd]
            bag = np.sort(st[E.O_DRAW: E.O_DRAW + st[E.S_DRAW_N]])
            if not np.array_equal(bag, np.flatnonzero(loc == E.LOC_BAG)):
                return "bag list and die locations disagree"
            if (loc == E.LOC_CENTRE).sum() != 1 or loc[st[E.O_DISC]] != E.LOC_CENTRE:
                return "there must be exactly one centre die"
            faces = st[E.O_DIE_FACE: E.O_DIE_FACE + nd]
            if ((faces < 0) | (faces > 5)).any():
                return "die face out of range"
            expect = np.zeros((E.MAX_PLAYERS, E.MAX_KINDS), dtype=np.int64)
            for i in range(nd):
                if loc[i] >= 0:
                    if loc[i] >= n:
                        return f"die {i} in the hand of seat {loc[i]}, which does not exist"
                    expect[loc[i], self.dice[i, faces[i]]] += 1
                elif loc[i] not in (E.LOC_BAG, E.LOC_CENTRE):
                    return f"die {i} has no place"
            if not np.array_equal(expect, hands):
                return "hand counts disagree with the dice in hand"
            if st[E.S_TOP] != self.dice[st[E.O_DISC], faces[st[E.O_DISC]]]:
                return "top kind is not the centre die's face"
            return ""
        total = hands[:n, :k].sum(axis=0).astype(np.int64)
        draw = st[E.O_DRAW: E.O_DRAW + st[E.S_DRAW_N]]
        disc = st[E.O_DISC: E.O_DISC + st[E.S_DISC_N]]
        if ((draw < 0) | (draw >= k)).any() or ((disc < 0) | (disc >= k)).any():
            return "pile holds an unknown kind"
        total += np.bincount(draw, minlength=k)[:k]
        disc_counts = np.bincount(disc, minlength=k)[:k]
        total += disc_counts
        if not np.array_equal(total, self.spec[:, 3]):
            bad = np.flatnonzero(total != self.spec[:, 3])
            return "card conservation broken for " + ", ".join(
                f"{self.kinds.names[x]} ({total[x]} found, {self.spec[x, 3]} in the deck)" for x in bad[:5])
        if not np.array_equal(disc_counts, st[E.O_DISC_COUNT: E.O_DISC_COUNT + k]):
            return "discard counts disagree with the discard pile"
        if st[E.S_TOP] != disc[-1]:
            return "top kind is not the discard pile's top"
        return ""


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
