"""Determinization: a full game state drawn from what one seat knows (compiled).

A search that plays games forward must not read what its seat cannot see.  :func:`determinize` copies a real
state and redraws everything hidden from ``seat``, so that every state it returns is equally consistent with
that seat's information; the search then reads only such samples (as OpenSpiel's ``ResampleFromInfostate``).

What the seat knows and the sample keeps:

* its own hand; every seat's hand size and UNO call; the discard pile (every card on it was played face up,
  in that order); the draw pile's size; scores, direction, phase, seat to act, the pending penalty;
* UNO Dice: everything on the table (every die's place and face: the hands are public, the bag is a set).

What is hidden and redrawn:

* card games: the other hands and the order of the draw pile.  The unseen cards (the deck minus the seat's own
  hand minus the discard pile) are shuffled and dealt to the other seats, each up to its public hand size; the
  rest, in that shuffled order, is the draw pile.  Every assignment of the unseen cards that fits the hand
  sizes is equally likely (tests: a chi-square test on the spread of the unseen cards);
* whether a pending Wild Draw Four / Wild Draw 2 of another seat was a bluff: recomputed from that seat's
  sampled hand and the card under the wild (a Wild under it named a colour the state does not keep: drawn
  uniformly);
* another seat's drawn card (phase ``drawn``): a playable card of the sampled pile;
* the PRNG word: the real one would replay the real future draws (and, in UNO Dice, the real future rolls), so
  the sample gets a fresh word drawn from the caller's stream.

* a hand shown to the seat at a challenge (the ``shown_*`` fields, while the seat still sees it): that seat's
  sampled hand holds every shown card, and only its other cards are drawn from the unseen ones.

Not used (documented gaps): what a seat learned privately beyond the observation (the hand it gave away by a
``seven_zero`` swap or a Wild Dip Into Deck give); a sample treats those cards as unseen.
"""
from __future__ import annotations

from ..core import common as U
from ..core import matching, wilds
from ..core._cache import track_dependencies
from ..core._jit import njit
from ..core.cards import COL_COLOUR, COL_COUNT, NO_COLOUR
from ..core.layout import (
    C_GAME,
    C_K,
    C_NP,
    GAME_DICE,
    MAX_ITEMS,
    O_DISC,
    O_DISC_COUNT,
    O_DRAW,
    O_HAND_N,
    O_SHOWN_HAND,
    PH_DRAWN,
    PH_PENDING,
    S_COLOUR,
    S_CUR,
    S_DISC_N,
    S_DRAW_N,
    S_DRAWN,
    S_PHASE,
    S_SHOWN_FROM,
    S_SHOWN_TO,
    S_TOP,
    S_WD_GUILTY,
    S_WD_PLAYER,
)
from ._cache import player_sources

track_dependencies(__file__, player_sources())

# return codes of determinize
SAMPLE_OK = 0
SAMPLE_INCONSISTENT = 1  # the public counts do not add up (a hand-edited state): nothing written


@njit(cache=True)
def _guilt(out, cfg, spec, rng):
    """Whether the pending restricted wild of ``out[S_WD_PLAYER]`` was a bluff, judged on its sampled hand."""
    player = out[S_WD_PLAYER]
    if out[S_DISC_N] < 2:
        return 0
    under = out[O_DISC + out[S_DISC_N] - 2]
    top, colour = out[S_TOP], out[S_COLOUR]
    out[S_TOP] = under
    under_colour = spec[under, COL_COLOUR]
    out[S_COLOUR] = under_colour if under_colour != NO_COLOUR else U.below(rng, 4)
    legal = wilds.restricted_wild_legal(out, cfg, spec, player)
    out[S_TOP], out[S_COLOUR] = top, colour
    return 0 if legal else 1


@njit(cache=True)
def determinize(st, cfg, spec, seat, out, out_rng, rng, pool):
    """Write into ``out`` (and ``out_rng``) a state drawn uniformly among those ``seat`` cannot tell from ``st``.

    ``rng`` is the caller's PRNG word (uint64 array of 1): it supplies the shuffle and the sample's fresh PRNG
    word.  ``pool`` is int32 scratch of length MAX_ITEMS.  Returns SAMPLE_OK, or SAMPLE_INCONSISTENT when the
    state's public counts cannot be met (then ``out`` is a plain copy and must not be used).
    """
    for i in range(st.shape[0]):  # (a slice copy would allocate a temporary in case the two overlap)
        out[i] = st[i]
    out_rng[0] = U.next_u64(rng)
    if cfg[C_GAME] == GAME_DICE:
        _shuffle_bag(st, out, rng)
        return SAMPLE_OK
    m = _unseen_pool(st, cfg, spec, seat, rng, pool)
    if m < 0:
        return SAMPLE_INCONSISTENT
    n = cfg[C_NP]
    k = cfg[C_K]
    for s in range(n):  # the other hands are dealt anew (the shown cards first)
        if s != seat:
            for kind in range(k):
                out[U.hand_at(s, kind)] = 0
    shown = st[S_SHOWN_FROM]
    known = 0
    if st[S_SHOWN_TO] == seat and shown >= 0 and shown != seat and shown < n:
        known = _deal_shown(st, out, k, shown, pool, m)
        m -= known
    else:
        shown = -1
    _deal_hidden(st, out, n, seat, shown, known, pool, m)
    shown_from = st[S_SHOWN_FROM]
    if shown < 0 and 0 <= shown_from < n and shown_from != seat:
        # a hand shown to another seat is hidden from this one: the sample shows that seat the sampled hand
        for kind in range(k):
            out[O_SHOWN_HAND + kind] = out[U.hand_at(shown_from, kind)]
    cur = st[S_CUR]
    if st[S_PHASE] == PH_DRAWN and cur != seat and st[S_DRAWN] >= 0 and st[O_HAND_N + cur] > 0:
        out[S_DRAWN] = _drawn_card(out, spec, k, cur, rng)
    if out[S_WD_PLAYER] >= 0 and out[S_WD_PLAYER] != seat:
        out[S_WD_GUILTY] = _guilt(out, cfg, spec, rng) if st[S_PHASE] == PH_PENDING else 0
    return SAMPLE_OK


@njit(cache=True, inline="always")
def _shuffle_bag(st, out, rng):
    """UNO Dice: every die on the table is public; hidden are the future rolls (the PRNG) and the order of the
    bag, whose contents are public: the sample draws its dice from the bag in an order of its own."""
    bag = st[S_DRAW_N]
    for i in range(1, bag):  # sorted first, so that the shuffle's result does not depend on the real order
        v = out[O_DRAW + i]
        j = i - 1
        while j >= 0 and out[O_DRAW + j] > v:
            out[O_DRAW + j + 1] = out[O_DRAW + j]
            j -= 1
        out[O_DRAW + j + 1] = v
    for i in range(bag - 1, 0, -1):
        j = U.below(rng, i + 1)
        t = out[O_DRAW + i]
        out[O_DRAW + i] = out[O_DRAW + j]
        out[O_DRAW + j] = t
    for i in range(bag, MAX_ITEMS):  # stale slots past the bag's end keep old history of the real game
        out[O_DRAW + i] = 0


@njit(cache=True, inline="always")
def _unseen_pool(st, cfg, spec, seat, rng, pool):
    """The cards ``seat`` cannot see (deck - own hand - discard pile), one entry per card, shuffled with the
    caller's stream into ``pool``; their number, or -1 when it does not match the other hands and the draw
    pile."""
    k = cfg[C_K]
    m = 0
    for kind in range(k):
        c = spec[kind, COL_COUNT] - st[U.hand_at(seat, kind)] - st[O_DISC_COUNT + kind]
        if c < 0 or m + c > pool.shape[0]:
            return -1
        for _ in range(c):
            pool[m] = kind
            m += 1
    need = st[S_DRAW_N]
    for s in range(cfg[C_NP]):
        if s != seat:
            need += st[O_HAND_N + s]
    if need != m:
        return -1
    for i in range(m - 1, 0, -1):  # Fisher-Yates with the caller's stream
        j = U.below(rng, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    return m


@njit(cache=True, inline="always")
def _deal_shown(st, out, k, shown, pool, m):
    """A hand shown to this seat at a challenge (until its next decision): those cards are that seat's for sure.
    They are taken out of the shuffled ``pool[:m]`` (removing the last matching copies keeps it uniform) into the
    shown seat's sampled hand; returns how many.  If the shown seat has played since, a shown card may be on the
    discard pile now: it is skipped."""
    known = 0
    for kind in range(k):
        for _ in range(st[O_SHOWN_HAND + kind]):
            at = -1
            for i in range(m - 1, -1, -1):
                if pool[i] == kind:
                    at = i
                    break
            if at < 0 or known >= st[O_HAND_N + shown]:
                continue
            pool[at] = pool[m - 1]
            m -= 1
            known += 1
            out[U.hand_at(shown, kind)] += 1
    return known


@njit(cache=True, inline="always")
def _deal_hidden(st, out, n, seat, shown, known, pool, m):
    """Deal the other seats their public hand sizes from the front of ``pool[:m]`` (the shown seat only the cards
    beyond its ``known`` ones); the rest, in the shuffled order, is the draw pile."""
    pos = 0
    for s in range(n):
        if s == seat:
            continue
        take = st[O_HAND_N + s]
        if s == shown:
            take -= known
        for _ in range(take):
            out[U.hand_at(s, pool[pos])] += 1
            pos += 1
    for i in range(m - pos):
        out[O_DRAW + i] = pool[pos + i]
    for i in range(m - pos, MAX_ITEMS):  # stale slots past the pile's end keep old history of the real game
        out[O_DRAW + i] = 0


@njit(cache=True, inline="always")
def _drawn_card(out, spec, k, cur, rng):
    """Another seat's drawn card: one of its sampled cards that it could play now (any of them if none can)."""
    pick = -1
    seen = 0
    for kind in range(k):
        if out[U.hand_at(cur, kind)] > 0 and matching.matches(out, spec, kind):
            seen += 1
            if U.below(rng, seen) == 0:
                pick = kind
    if pick < 0:
        for kind in range(k):
            if out[U.hand_at(cur, kind)] > 0:
                pick = kind
                break
    return pick
