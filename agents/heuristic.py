"""``heuristic``: a rule-based player for every game and option.

Measured with ``uno-env evaluate`` (2-player classic, 5,000 games, seed 0; the README's arena table): 98.1% against
``random`` and 54.5% against ``greedy`` under the standard rules; 59.3% against ``random`` under the ``rlcard``
preset (RLCard 1.2.0's game, where published heuristic bots reach about 66%).  The weights were tuned (under the
earlier defaults) with such runs.

It acts on the observation alone (no memory), so one object can play many games, seats or batch rows.  Each
legal action gets a score built from a few rules; the best score wins (ties: lowest action id).

* **Playing**: never draws while it can play; prefers the play after which the player who faces the new top
  is least likely to follow it (estimated from the unseen cards, deck - own hand - discard pile, and that
  player's hand size; in UNO Dice from its public hand), then the play that keeps the colour it holds most of;
  sheds high-value cards first when otherwise equal; always calls UNO.
* **Wilds** are kept for when they are needed (no other card playable, or two cards left); a Wild Draw Four /
  Wild Draw 2 is played only when legal (never a bluff), and then gladly (the challenger would draw 6).
* **Colour**: names the colour it holds most of, weighed against the chance that the player who faces it can
  follow (from the unseen cards; in UNO Dice, where hands are public, from that player's dice).
* **Action cards** are aimed: Skip / Reverse / Draw cards are favoured when the player they hit is close to
  going out (or, with two players, when they give a free extra turn), and avoided when they would hand the
  turn to a player close to going out.
* **Challenges** a Wild Draw Four / Wild Draw 2 when the public information (the player's hand size and the
  unseen cards) makes a bluff likely: P(guilty) is estimated as the chance that a hand of that size holds a
  card of the old colour (or any playable card, under the ``any_playable`` legality), times a prior that the
  opponent plays such a card regardless of legality.
* **Drawn card**: plays it when it is playable (unless it would be a bluffed Wild Draw Four).
* House rules: stacks a draw card when it can, jumps in when it can, swaps hands with the smallest hand.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.core.cards import (
    COL_COUNT,
    DRAW_ONE,
    DRAW_TWO,
    REVERSE,
    SKIP,
    WILD_DIP,
    WILD_DRAW_FOUR,
    WILD_DRAW_TWO,
)
from uno_env.core.queries import PH_COLOUR, PH_DRAWN, PH_GIVE, PH_PENDING, PH_SWAP
from uno_env.players.parameters import HEURISTIC_WEIGHTS

from .base import BaseAgent
from .dice_heuristic import DiceHeuristicAgent

#: the weights (with what each one scores) live beside the compiled player that reads them too
DEFAULT_WEIGHTS: dict[str, float] = HEURISTIC_WEIGHTS

_DRAW_AMOUNT = {DRAW_TWO: 2, DRAW_ONE: 1, WILD_DRAW_FOUR: 4, WILD_DRAW_TWO: 2}
_RESTRICTED = (WILD_DRAW_FOUR, WILD_DRAW_TWO)


class HeuristicAgent(BaseAgent):
    """A strong rule-based player (see the module docstring); ``weights`` overrides :data:`DEFAULT_WEIGHTS`."""

    name = "heuristic"

    def __init__(self, game: Any = "classic", seed: int | None = None, weights: dict[str, float] | None = None):
        super().__init__(game, seed)
        unknown = set(weights or {}) - set(DEFAULT_WEIGHTS)
        if unknown:
            raise ValueError(f"unknown heuristic weights {sorted(unknown)}; known: {', '.join(DEFAULT_WEIGHTS)}")
        self.weights = dict(DEFAULT_WEIGHTS, **(weights or {}))
        g = self.game
        self.n = g.num_players
        self.k = g.num_kinds
        self.dice_game = g.name == "dice"
        self.any_playable = self.dice_game or g.rules.wd4_legality == "any_playable"
        self.seven_zero = bool(g.rules.seven_zero)
        av = self.actions
        self._colour = [int(c) for c in av.kind_colour]
        self._symbol = [int(s) for s in av.kind_symbol]
        self._points = [int(p) for p in av.kind_points]
        self._wild = [bool(w) for w in av.is_wild]
        self._copies = np.asarray(g.spec[:, COL_COUNT], dtype=np.float64)
        self._colour_onehot = av.colour_onehot.astype(np.float64)
        self._wild_idx = np.flatnonzero(av.is_wild)
        self._by_cs = {(self._colour[k], self._symbol[k]): k for k in range(self.k) if not self._wild[k]}
        self._dice_player = DiceHeuristicAgent(g, seed) if self.dice_game else None

    # ------------------------------------------------------------------------------------------ entry
    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """The heuristic's choice for one seat's ``observation`` and legal ``action_mask``."""
        if self._dice_player is not None:  # UNO Dice has its own player: agents/dice_heuristic.py
            return self._dice_player.act(observation, action_mask)
        obs, mask, legal = self._legal_actions(observation, action_mask)
        if legal.size == 1:
            return int(legal[0])
        ov = self.obs_view
        phase = int(np.argmax(obs[ov.phase]))
        legal = legal.tolist()
        if phase == PH_COLOUR:
            return self._choose_colour(obs, legal)
        if phase == PH_PENDING:
            return self._pending(obs, legal)
        if phase == PH_GIVE:
            return self._give(obs, legal)
        if phase == PH_SWAP:
            return self._swap(obs, legal)
        return self._play_or_draw(obs, legal, phase)

    # ------------------------------------------------------------------------------------------ helpers
    def _rel_next(self, direction: int) -> int:
        return 1 % self.n if direction > 0 else self.n - 1

    def _unseen(self, obs: np.ndarray, hand: np.ndarray) -> np.ndarray:
        """Copies of each kind this seat cannot see (card games): deck - own hand - discard pile."""
        return np.maximum(self._copies - hand - obs[self.obs_view.discarded], 0.0)

    def _opponent_hand(self, obs: np.ndarray, rel: int) -> np.ndarray | None:
        """UNO Dice: the hand of the seat ``rel`` places after the viewer (hands are public)."""
        if not self.dice_game or rel == 0:
            return None
        sl = self.obs_view.other_hands
        start = sl.start + (rel - 1) * self.k
        return obs[start: start + self.k]

    # ------------------------------------------------------------------------------------------ phases
    def _choose_colour(self, obs: np.ndarray, legal: list[int]) -> int:
        ov, av, w = self.obs_view, self.actions, self.weights
        hand = obs[ov.hand].astype(np.float64)
        counts = hand @ self._colour_onehot  # cards of each colour in hand
        pts = (hand * np.asarray(self._points)) @ self._colour_onehot
        n = self.n
        direction = 1 if obs[ov.direction.start] >= 0 else -1
        top = int(np.argmax(obs[ov.top]))
        sym = self._symbol[top]
        # who faces the colour: the next player, or (a draw wild) the one after it, or myself with 2 players
        if sym in _RESTRICTED:
            facing = 0 if n == 2 else (2 * direction) % n
        else:
            facing = self._rel_next(direction)
        sizes = obs[ov.hand_sizes]
        match_prob = self._match_model(obs, hand)
        best, best_score = legal[0], -np.inf
        for a in legal:
            c = a - av.colour
            if not 0 <= c < 4:
                continue
            s = w["colour_count"] * counts[c] + 0.001 * pts[c]
            if counts.sum() == 0:
                s = 0.0
            if facing:
                closeness = 1.0 + (w["deny_close"] if sizes[facing] <= w["aim_size"] else 0.0)
                s -= w["colour_deny"] * match_prob(facing, top, c) * closeness
            if s > best_score:
                best, best_score = a, s
        return best

    def _guilty_probability(self, obs: np.ndarray) -> float:
        """P(the Wild Draw card just played was a bluff), from the public information."""
        ov, w = self.obs_view, self.weights
        hand = obs[ov.hand].astype(np.float64)
        direction = 1 if obs[ov.direction.start] >= 0 else -1
        prev = (self.n - 1) if direction > 0 else 1 % self.n  # the seat that played it (relative)
        h = int(obs[ov.hand_sizes][prev])
        if h <= 0:
            return 0.0
        if self.dice_game:
            their = self._opponent_hand(obs, prev)
            if their is None:
                return 0.0
            # the old centre die is unknown: average over the colours whether they held a matching die
            cols = their.astype(np.float64) @ self._colour_onehot
            q = float((cols > 0).mean())
        else:
            unseen = self._unseen(obs, hand)
            total = float(unseen.sum())
            if total <= 0:
                return 0.0
            by_colour = unseen @ self._colour_onehot
            if self.any_playable:
                # chance a random unseen card would have been playable: its colour (avg), plus other wilds
                wild_unseen = float(sum(unseen[k] for k in range(self.k) if self._wild[k]
                                        and self._symbol[k] not in _RESTRICTED))
                p = float(by_colour.mean()) / total * 1.3 + wild_unseen / total
                p = min(p, 0.95)
                q = 1.0 - (1.0 - p) ** h
            else:
                # P(at least one card of the old colour among h unseen cards), averaged over the colours
                q = 0.0
                for c in range(4):
                    none = 1.0
                    for i in range(h):
                        none *= max(total - by_colour[c] - i, 0.0) / max(total - i, 1.0)
                    q += (1.0 - none) / 4.0
        beta = w["bluff_prior"]
        denom = beta * q + (1.0 - q)
        return beta * q / denom if denom > 0 else 0.0

    def _pending(self, obs: np.ndarray, legal: list[int]) -> int:
        av = self.actions
        stacks = [a for a in legal if a < av.colour]
        if stacks:  # stacking: pass the penalty on
            return max(stacks, key=lambda a: (a >= av.play_uno, self._points[a % self.k]))
        if av.challenge in legal and self._guilty_probability(obs) > self.weights["challenge_threshold"]:
            return av.challenge
        return av.accept if av.accept in legal else legal[0]

    def _give(self, obs: np.ndarray, legal: list[int]) -> int:
        av = self.actions
        hand = obs[self.obs_view.hand]
        counts = hand.astype(np.float64) @ self._colour_onehot

        def value(a: int) -> float:  # lower = the card we least need
            k = a - av.give
            v = 0.0
            if self._wild[k]:
                v += 100.0
            elif self._symbol[k] >= 10:
                v += 20.0
            else:
                v += counts[self._colour[k]] * 2.0 - self._points[k] * 0.1
            return v

        return min(legal, key=value)

    def _swap(self, obs: np.ndarray, legal: list[int]) -> int:
        av = self.actions
        sizes = obs[self.obs_view.hand_sizes]
        return min(legal, key=lambda a: (sizes[a - av.swap + 1], a))

    def _match_model(self, obs: np.ndarray, hand: np.ndarray):
        """A function (relative seat, kind played, colour named) -> P(that seat can follow the new top).

        Card games: from the unseen cards (deck - own hand - discard pile) and the seat's hand size.  UNO Dice:
        from the seat's public hand (1 when it holds a matching die, else 0).
        """
        sizes = obs[self.obs_view.hand_sizes]
        colour_of, symbol_of, wild = self._colour, self._symbol, self._wild
        if self.dice_game:
            def dice_prob(rel: int, kind: int, colour: int) -> float:
                their = self._opponent_hand(obs, rel)
                assert their is not None  # rel >= 1: only the seats after the viewer are asked about
                sym = -1 if wild[kind] else symbol_of[kind]
                for k in range(self.k):
                    if their[k] and (wild[k] or colour_of[k] == colour or symbol_of[k] == sym):
                        return 1.0
                return 0.0
            return dice_prob
        unseen = self._unseen(obs, hand.astype(np.float64))
        total = float(unseen.sum())
        by_colour = unseen @ self._colour_onehot
        wild_unseen = float(unseen[self._wild_idx].sum())
        by_symbol: dict[int, float] = {}
        for k in range(self.k):
            if not wild[k]:
                by_symbol[symbol_of[k]] = by_symbol.get(symbol_of[k], 0.0) + float(unseen[k])

        def card_prob(rel: int, kind: int, colour: int) -> float:
            if total <= 0:
                return 0.0
            m = by_colour[colour] + wild_unseen
            if not wild[kind]:
                m += by_symbol[symbol_of[kind]] - float(unseen[self._by_cs.get((colour, symbol_of[kind]), kind)])
            f = min(max(m / total, 0.0), 1.0)
            h = max(int(sizes[rel]), 0)
            return 1.0 - (1.0 - f) ** h

        return card_prob

    def _play_or_draw(self, obs: np.ndarray, legal: list[int], phase: int) -> int:
        av = self.actions
        plays = [a for a in legal if a < av.colour]
        if not plays:
            return self._no_play(legal)
        table = self._table(obs, plays)
        best_kind, best_score = table.kinds[0], -np.inf
        for kind in table.kinds:
            if table.hand_size == 1:
                best_kind, best_score = kind, np.inf
                break
            s = self._score_play(table, kind)
            if s > best_score:
                best_kind, best_score = kind, s
        # drawing instead: only when the best play is a bluff
        if best_score < -50.0:
            for a in (av.draw, av.reroll, av.keep):
                if a in legal:
                    return a
        if phase == PH_DRAWN and best_score < -50.0 and av.keep in legal:
            return av.keep
        return best_kind + (av.play_uno if best_kind in table.uno_ok else 0)

    def _no_play(self, legal: list[int]) -> int:
        """Nothing to play: draw / reroll / keep / pass, whichever is offered (in that order of preference)."""
        av = self.actions
        for a in (av.draw, av.reroll, av.keep, av.pass_, av.accept):
            if a in legal:
                return a
        return legal[0]

    def _table(self, obs: np.ndarray, plays: list[int]) -> _Table:
        """What the scoring of each play needs to know about the table, read once per decision."""
        ov, av, w = self.obs_view, self.actions, self.weights
        t = _Table()
        k_n = self.k
        t.hand = obs[ov.hand]
        t.hand_list = [int(x) for x in t.hand[: k_n]]
        t.held = [k for k in range(k_n) if t.hand_list[k] > 0]
        t.hand_size = sum(t.hand_list)
        t.colour = int(np.argmax(obs[ov.colour]))
        top = int(np.argmax(obs[ov.top]))
        direction = 1 if obs[ov.direction.start] >= 0 else -1
        n = self.n
        t.sizes = obs[ov.hand_sizes]
        t.rel_next = self._rel_next(direction)
        t.rel_after = (2 * direction) % n if n > 2 else 0
        t.rel_prev = (-direction) % n
        t.close = w["aim_size"]
        t.next_close = n > 1 and t.sizes[t.rel_next] <= t.close
        t.after_close = n > 2 and t.sizes[t.rel_after] <= t.close
        t.prev_close = n > 2 and t.sizes[t.rel_prev] <= t.close
        # which kinds may be played (a kind may appear with and without the UNO call)
        t.kinds = sorted({a % k_n for a in plays})
        t.uno_ok = {a % k_n for a in plays if a >= av.play_uno}
        t.coloured_playable = any(not self._wild[k] for k in t.kinds)
        t.wd_legal = self.rules_query.restricted_wild_legal(t.hand, top, t.colour)
        t.match_prob = self._match_model(obs, t.hand)
        return t

    def _score_play(self, t: _Table, kind: int) -> float:
        """The score of playing ``kind`` (higher is better); the terms are added in a fixed order."""
        w = self.weights
        sym = self._symbol[kind]
        rem = list(t.hand_list)
        rem[kind] -= 1
        new_colour = self._colour_named(t, kind, rem)
        colour_left, other_left, wild_left = self._left_after(t, rem, new_colour, sym)
        left = colour_left + other_left + wild_left
        s = 10.0 + w["colour_count"] * colour_left + w["other_match"] * other_left + w["points"] * self._points[kind]
        if self._wild[kind]:
            s = self._score_wild(t, sym, s)
        skips_next = (sym in (SKIP, DRAW_TWO, DRAW_ONE, WILD_DRAW_FOUR, WILD_DRAW_TWO)
                      or (sym == REVERSE and self.n == 2))
        s = self._score_aim(t, sym, skips_next, left, s)
        s = self._score_denial(t, kind, sym, skips_next, left, new_colour, s)
        if self.seven_zero and not self._wild[kind]:
            s = self._score_seven_zero(t, sym, s)
        return s

    def _colour_named(self, t: _Table, kind: int, rem: list[int]) -> int:
        """The colour after the play: a wild names the colour held most of after it."""
        if not self._wild[kind]:
            return self._colour[kind]
        col_counts = [0, 0, 0, 0]
        for k in t.held:
            if rem[k] and not self._wild[k]:
                col_counts[self._colour[k]] += rem[k]
        return int(np.argmax(col_counts))

    def _left_after(self, t: _Table, rem: list[int], new_colour: int, sym: int) -> tuple[int, int, int]:
        """Cards left after the play: of the new colour, matching by symbol only, wilds."""
        colour_left = other_left = wild_left = 0
        for k in t.held:
            c = rem[k]
            if not c:
                continue
            if self._wild[k]:
                wild_left += c
            elif self._colour[k] == new_colour:
                colour_left += c
            elif self._symbol[k] == sym:
                other_left += c
        return colour_left, other_left, wild_left

    def _score_wild(self, t: _Table, sym: int, s: float) -> float:
        w = self.weights
        if sym in _RESTRICTED:
            if not t.wd_legal:
                s -= 100.0  # a bluff: only if nothing else (drawing is then preferred below)
            else:
                s += w["wd_bonus"]
        if t.coloured_playable and t.hand_size > 2:
            s -= w["wild_save"]
        if sym == WILD_DIP:
            s -= 1.0  # it gives a card away but also draws one: a plain wild is better
        return s

    def _score_aim(self, t: _Table, sym: int, skips_next: bool, left: int, s: float) -> float:
        """What the card does to the other players: hit the one close to going out, do not feed one."""
        w, n = self.weights, self.n
        if sym in _DRAW_AMOUNT:
            s += w["draw_card_bonus"] * _DRAW_AMOUNT[sym] * (1.0 if t.next_close else 0.3)
        if skips_next:
            if t.next_close:
                s += w["aim"]
            if n == 2:
                if left > 0:
                    s += w["extra_turn"]
            elif t.after_close:
                s -= w["feed_penalty"]
        elif sym == REVERSE and n > 2:
            if t.next_close:
                s += w["aim"] * 0.7
            if t.prev_close:
                s -= w["feed_penalty"]
        return s

    def _score_denial(self, t: _Table, kind: int, sym: int, skips_next: bool, left: int, new_colour: int,
                      s: float) -> float:
        """The player who faces the new top: can it follow?"""
        w, n = self.weights, self.n
        if skips_next:
            facing = 0 if n == 2 else t.rel_after
        elif sym == REVERSE and n > 2:
            facing = t.rel_prev
        else:
            facing = t.rel_next
        if not facing and n == 2 and left == 0:
            # an extra turn with nothing to follow: we draw, then the opponent faces this top anyway
            facing = t.rel_next
            s -= w["stuck"]
        if facing:
            p = t.match_prob(facing, kind, new_colour)
            closeness = 1.0 + (w["deny_close"] if t.sizes[facing] <= t.close else 0.0)
            s -= w["deny"] * p * closeness
        return s

    def _score_seven_zero(self, t: _Table, sym: int, s: float) -> float:
        if sym == 7:
            others = [t.sizes[r] for r in range(1, self.n)]
            if others:
                s += (t.hand_size - 1 - min(others)) * 1.0
        elif sym == 0:
            s += (t.hand_size - 1 - t.sizes[t.rel_prev]) * 1.0
        return s


class _Table:
    """The table as one decision of :class:`HeuristicAgent` sees it (filled by ``_table``)."""

    hand: np.ndarray
    hand_list: list[int]
    held: list[int]
    hand_size: int
    colour: int
    sizes: np.ndarray
    rel_next: int
    rel_after: int
    rel_prev: int
    close: float
    next_close: bool
    after_close: bool
    prev_close: bool
    kinds: list[int]
    uno_ok: set[int]
    coloured_playable: bool
    wd_legal: bool
    match_prob: Any
