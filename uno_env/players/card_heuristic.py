"""The ``heuristic`` player of the card games, compiled: the one implementation that ``HeuristicAgent``
(``uno_env.agents.heuristic``, whose docstring says what the rules of thumb are), the batched simulator's in-kernel
``"heuristic"`` opponent, the trainer's advice and the search's rollouts all play.

It reads one seat's observation vector and its legal mask, nothing of the state row.  Every legal action gets a
score and the best one wins (ties: the lowest action id); the weights are the first 16 entries of the parameter
array (:mod:`uno_env.players.parameters`).  The work arrays (``workspace.baseline_scratch``) come from the caller,
so the player allocates nothing and compiles without reference counting.
"""
from __future__ import annotations

import math

import numpy as np

from ..core import common as U
from ..core import observe as O
from ..core import wilds
from ..core._cache import track_dependencies
from ..core._jit import njit
from ..core.actions import (
    A_ACCEPT_B,
    A_ACCEPT_K,
    A_CHALLENGE_B,
    A_CHALLENGE_K,
    A_COLOUR_B,
    A_COLOUR_K,
    A_DRAW_B,
    A_DRAW_K,
    A_GIVE_B,
    A_GIVE_K,
    A_KEEP_B,
    A_KEEP_K,
    A_PASS_B,
    A_PASS_K,
    A_PLAY_B,
    A_PLAY_K,
    A_PLAY_UNO_B,
    A_PLAY_UNO_K,
    A_REROLL_B,
    A_REROLL_K,
    A_SWAP_B,
    A_SWAP_K,
)
from ..core.cards import (
    COL_COLOUR,
    COL_COUNT,
    COL_POINTS,
    COL_SYMBOL,
    DRAW_ONE,
    DRAW_TWO,
    NO_COLOUR,
    REVERSE,
    SKIP,
    WILD_DIP,
    WILD_DRAW_FOUR,
    WILD_DRAW_TWO,
)
from ..core.layout import (
    C_NP,
    C_SEVEN_ZERO,
    C_WD_LEGAL_ANY_PLAYABLE,
    NUM_PHASES,
    O_HAND,
    PH_COLOUR,
    PH_GIVE,
    PH_PENDING,
    PH_SWAP,
    S_COLOUR,
    S_TOP,
)
from ._cache import player_sources
from .parameters import (
    W_AIM,
    W_AIM_SIZE,
    W_BLUFF_PRIOR,
    W_CHALLENGE,
    W_COLOUR_COUNT,
    W_COLOUR_DENY,
    W_DENY,
    W_DENY_CLOSE,
    W_DRAW_CARD,
    W_EXTRA_TURN,
    W_FEED,
    W_OTHER_MATCH,
    W_POINTS,
    W_STUCK,
    W_WD_BONUS,
    W_WILD_SAVE,
)
from .view import block_argmax, is_wild, section_start
from .workspace import (
    B_UNO_OK,
    F_COUNTS,
    F_GUILT,
    F_PTS,
    F_TAB,
    F_UNSEEN,
    I_BY_COLOUR,
    I_BY_SYMBOL,
    I_HAND,
    I_KINDS,
    I_PLAYS,
    KT_AT,
    KT_COLOUR,
    KT_COUNT,
    KT_LEN,
    KT_READY,
    NSYM,
    TAB_LEN,
)

track_dependencies(__file__, player_sources())


# ---------------------------------------------------------------------------------------------- what is unseen
@njit(cache=True, inline="always")
def _restricted(spec, kind):
    sym = spec[kind, COL_SYMBOL]
    return sym == WILD_DRAW_FOUR or sym == WILD_DRAW_TWO


@njit(cache=True, inline="always")
def _kind_tables(spec, iw):
    """The tables of the game's kinds in ``iw`` (``workspace.KT_*``), filled at the first decision of the work
    arrays (they serve one game)."""
    kt = iw[I_KINDS:I_KINDS + KT_LEN]
    if kt[KT_READY] == 0:
        for i in range(4 * NSYM):
            kt[KT_AT + i] = -1
        for kind in range(spec.shape[0]):
            c = spec[kind, COL_COLOUR]
            kt[KT_COUNT + kind] = spec[kind, COL_COUNT]
            kt[KT_COLOUR + kind] = c
            if c != NO_COLOUR:
                at = KT_AT + c * NSYM + spec[kind, COL_SYMBOL]
                if kt[at] < 0:
                    kt[at] = kind
        kt[KT_READY] = 1
    return kt


@njit(cache=True, inline="always")
def _unseen_sums(obs, spec, offs, unseen, tab, kt):
    """Copies of each kind the seat cannot see (deck - own hand - discard pile, card games) into ``unseen``, and
    the sums the match model reads into ``tab``: ``tab[0:4]`` unseen cards per colour, ``tab[4]`` unseen wilds;
    returns the unseen total.  One pass over the kinds, done only by the decisions that read it.  The counts are
    whole numbers, so they are summed as integers: every sum is exact, as it was in floating point in any order,
    and the loop compiles to vector code (reading the kinds' copies and colours from ``kt``, contiguous; a float
    sum would not vectorize, as its order would change).  It was a seventh of a heuristic rollout's time with the
    per-symbol sums, which :func:`_match_prob` now adds up for the one symbol it asks about."""
    k = spec.shape[0]
    held = obs[offs[O.B_HAND]:offs[O.B_HAND] + k]  # views indexed from 0: no negative-index fix-up per read
    gone = obs[offs[O.B_DISCARDED]:offs[O.B_DISCARDED] + k]
    count = kt[KT_COUNT:KT_COUNT + k]
    colour = kt[KT_COLOUR:KT_COLOUR + k]
    total = 0
    c0 = c1 = c2 = c3 = c4 = 0
    for kind in range(k):
        v = count[kind] - int(held[kind]) - int(gone[kind])
        v = v if v > 0 else 0
        unseen[kind] = v
        total += v
        c = colour[kind]
        c0 += v if c == 0 else 0
        c1 += v if c == 1 else 0
        c2 += v if c == 2 else 0
        c3 += v if c == 3 else 0
        c4 += v if c == NO_COLOUR else 0
    tab[0] = c0
    tab[1] = c1
    tab[2] = c2
    tab[3] = c3
    tab[4] = c4
    return float(total)


@njit(cache=True, inline="always")
def _match_prob(obs, spec, unseen, tab, total, sizes_at, rel, kind, colour, kt):
    """P(the seat ``rel`` places after the viewer can follow ``kind`` with ``colour`` named), from the unseen cards:
    of ``colour``, wild, or (a coloured ``kind``) of its symbol in another colour than ``colour``.  There is one
    kind per colour and symbol in every game (``kt``'s table of them)."""
    if total <= 0:
        return 0.0
    m = tab[colour] + tab[4]
    if not is_wild(spec, kind):
        sym = spec[kind, COL_SYMBOL]
        same = kind  # the kind of ``colour`` with this symbol (``kind`` itself if there is none)
        by_symbol = 0.0
        for c in range(4):
            other = kt[KT_AT + c * NSYM + sym]
            if other >= 0:
                by_symbol += unseen[other]
                if c == colour:
                    same = other
        m += by_symbol - unseen[same]
    f = min(max(m / total, 0.0), 1.0)
    h = int(obs[sizes_at + rel])
    if h < 0:
        h = 0
    return 1.0 - math.pow(1.0 - f, float(h))


@njit(cache=True)
def _guilty_probability(obs, spec, offs, n, any_playable, unseen, w, fw):
    """P(the Wild Draw card just played was a bluff), from the public information: the chance that a hand of the
    player's size holds a card of the old colour (or, under the ``any_playable`` legality, any playable card),
    times a prior that the player plays such a card regardless of legality (``bluff_prior``)."""
    k = spec.shape[0]
    direction = 1 if obs[offs[O.B_DIRECTION]] >= 0 else -1
    prev = (n - 1) if direction > 0 else 1 % n
    h = int(obs[offs[O.B_HAND_SIZES] + prev])
    if h <= 0:
        return 0.0
    total = 0.0
    for kind in range(k):
        total += unseen[kind]
    if total <= 0:
        return 0.0
    by_colour = fw[F_GUILT:F_GUILT + 4]
    by_colour[:] = 0.0
    for kind in range(k):
        c = spec[kind, COL_COLOUR]
        if c < 4:
            by_colour[c] += unseen[kind]
    if any_playable:
        wild_unseen = 0.0
        for kind in range(k):
            if is_wild(spec, kind) and not _restricted(spec, kind):
                wild_unseen += unseen[kind]
        mean = (by_colour[0] + by_colour[1] + by_colour[2] + by_colour[3]) / 4.0
        p = mean / total * 1.3 + wild_unseen / total
        p = min(p, 0.95)
        q = 1.0 - math.pow(1.0 - p, float(h))
    else:
        q = 0.0
        for c in range(4):
            none = 1.0
            for i in range(h):
                none *= max(total - by_colour[c] - i, 0.0) / max(total - i, 1.0)
            q += (1.0 - none) / 4.0
    beta = w[W_BLUFF_PRIOR]
    denom = beta * q + (1.0 - q)
    return beta * q / denom if denom > 0 else 0.0


@njit(cache=True)
def guilty_probability(obs, cfg, spec, offs, w, fw, iw):
    """:func:`_guilty_probability` of one observation (a pending Wild Draw card): what the heuristic compares with
    its ``challenge_threshold`` (``fw``/``iw``: work arrays of ``workspace.baseline_scratch``)."""
    k = spec.shape[0]
    unseen = fw[F_UNSEEN:F_UNSEEN + k]
    _unseen_sums(obs, spec, offs, unseen, fw[F_TAB:F_TAB + TAB_LEN], _kind_tables(spec, iw))
    return _guilty_probability(obs, spec, offs, cfg[C_NP], cfg[C_WD_LEGAL_ANY_PLAYABLE] == 1, unseen, w, fw)


# ---------------------------------------------------------------------------------------------- the decision
@njit(cache=True)
def heuristic_action(obs, mask, cfg, spec, offs, w, scratch, fw, iw, bw):
    """The heuristic's choice for one decision of a card game (``scratch``: a zeroed state row, for asking the rules
    whether a Wild Draw Four would be legal; ``fw``/``iw``/``bw``: ``workspace.baseline_scratch``)."""
    first = U.first_legal(mask, 0)
    if first >= 0 and U.first_legal(mask, first + 1) < 0:  # one legal action
        return first
    return heuristic_choice(obs, mask, cfg, spec, offs, w, scratch, fw, iw, bw)


@njit(cache=True, inline="always")
def heuristic_choice(obs, mask, cfg, spec, offs, w, scratch, fw, iw, bw):
    """:func:`heuristic_action` for a caller that knows two or more actions are legal (the search's rollout counts
    them as it builds the mask): the scans for a first and a second legal action are skipped, and the lowest legal
    action, the fallback of a few phases, is looked up only where it is returned."""
    k = spec.shape[0]
    phase = block_argmax(obs, offs[O.B_PHASE], offs[O.B_PHASE] + NUM_PHASES)
    # the unseen cards are counted only by the decisions that read them
    unseen = fw[F_UNSEEN:F_UNSEEN + k]
    tab = fw[F_TAB:F_TAB + TAB_LEN]
    kt = _kind_tables(spec, iw)
    direction = 1 if obs[offs[O.B_DIRECTION]] >= 0 else -1
    if phase == PH_COLOUR:
        return _name_colour(obs, mask, cfg, spec, offs, w, fw, unseen, tab, kt, direction)
    if phase == PH_PENDING:
        return _pending(obs, mask, cfg, spec, offs, w, fw, unseen, tab, kt)
    if phase == PH_GIVE:
        return _give(obs, mask, spec, offs, fw)
    if phase == PH_SWAP:
        return _swap(obs, mask, cfg, spec, offs)
    return _play_or_draw(obs, mask, cfg, spec, offs, w, scratch, unseen, tab, kt, direction, iw, bw)


@njit(cache=True, inline="always")
def _hand_by_colour(obs, spec, offs, fw):
    """The cards of each colour in hand (``fw``'s ``F_COUNTS`` entries)."""
    hand_at = offs[O.B_HAND]
    counts = fw[F_COUNTS:F_COUNTS + 4]
    counts[:] = 0.0
    for kind in range(spec.shape[0]):
        c = spec[kind, COL_COLOUR]
        if c < 4:
            counts[c] += float(obs[hand_at + kind])
    return counts


@njit(cache=True, inline="always")
def _name_colour(obs, mask, cfg, spec, offs, w, fw, unseen, tab, kt, direction):
    """The colour held most of, weighed against the chance that the player who faces it can follow."""
    k = spec.shape[0]
    n = cfg[C_NP]
    colour_a = section_start(A_COLOUR_K, A_COLOUR_B, k)
    sizes_at = offs[O.B_HAND_SIZES]
    hand_at = offs[O.B_HAND]
    total = _unseen_sums(obs, spec, offs, unseen, tab, kt)
    counts = _hand_by_colour(obs, spec, offs, fw)
    pts = fw[F_PTS:F_PTS + 4]
    pts[:] = 0.0
    for kind in range(k):
        c = spec[kind, COL_COLOUR]
        if c < 4:
            pts[c] += float(obs[hand_at + kind]) * spec[kind, COL_POINTS]
    top = block_argmax(obs, offs[O.B_TOP], offs[O.B_TOP] + k)
    # who faces the colour: the next player, or (a draw wild) the one after it, or the viewer with 2 players
    if _restricted(spec, top):
        facing = 0 if n == 2 else (2 * direction) % n
    else:
        facing = 1 % n if direction > 0 else n - 1
    csum = counts[0] + counts[1] + counts[2] + counts[3]
    best, best_s = U.first_legal(mask, 0), -np.inf
    for a in range(mask.shape[0]):
        if mask[a] == 0:
            continue
        c = a - colour_a
        if not 0 <= c < 4:
            continue
        s = w[W_COLOUR_COUNT] * counts[c] + 0.001 * pts[c]
        if csum == 0:
            s = 0.0
        if facing:
            closeness = 1.0 + (w[W_DENY_CLOSE] if obs[sizes_at + facing] <= w[W_AIM_SIZE] else 0.0)
            s -= w[W_COLOUR_DENY] * _match_prob(obs, spec, unseen, tab, total, sizes_at, facing, top, c, kt) \
                * closeness
        if s > best_s:
            best, best_s = a, s
    return best


@njit(cache=True, inline="always")
def _pending(obs, mask, cfg, spec, offs, w, fw, unseen, tab, kt):
    """A penalty is pending: pass it on by stacking (the UNO call, then the most points), else challenge when a
    bluff is likely, else accept."""
    k = spec.shape[0]
    play_uno = section_start(A_PLAY_UNO_K, A_PLAY_UNO_B, k)
    best, best_uno, best_pts = -1, False, -1
    for a in range(section_start(A_COLOUR_K, A_COLOUR_B, k)):
        if mask[a] == 0:
            continue
        uno = a >= play_uno
        p = spec[a % k, COL_POINTS]
        if best < 0 or (uno and not best_uno) or (uno == best_uno and p > best_pts):
            best, best_uno, best_pts = a, uno, p
    if best >= 0:
        return best
    challenge = section_start(A_CHALLENGE_K, A_CHALLENGE_B, k)
    any_playable = cfg[C_WD_LEGAL_ANY_PLAYABLE] == 1
    if mask[challenge] != 0:
        _unseen_sums(obs, spec, offs, unseen, tab, kt)
        if _guilty_probability(obs, spec, offs, cfg[C_NP], any_playable, unseen, w, fw) > w[W_CHALLENGE]:
            return challenge
    accept = section_start(A_ACCEPT_K, A_ACCEPT_B, k)
    return accept if mask[accept] != 0 else U.first_legal(mask, 0)


@njit(cache=True, inline="always")
def _give(obs, mask, spec, offs, fw):
    """Wild Dip Into Deck: give the card least needed (a number of a colour held little of; never a wild)."""
    k = spec.shape[0]
    give = section_start(A_GIVE_K, A_GIVE_B, k)
    counts = _hand_by_colour(obs, spec, offs, fw)
    best, best_v = U.first_legal(mask, 0), np.inf
    for a in range(mask.shape[0]):
        if mask[a] == 0:
            continue
        kind = a - give
        if kind < 0 or kind >= k:  # only give actions are legal here; never read outside the table
            continue
        v = 0.0
        if is_wild(spec, kind):
            v += 100.0
        elif spec[kind, COL_SYMBOL] >= 10:
            v += 20.0
        else:
            v += counts[spec[kind, COL_COLOUR]] * 2.0 - spec[kind, COL_POINTS] * 0.1
        if v < best_v:
            best, best_v = a, v
    return best


@njit(cache=True, inline="always")
def _swap(obs, mask, cfg, spec, offs):
    """seven_zero: swap hands with the smallest other hand."""
    n = cfg[C_NP]
    swap = section_start(A_SWAP_K, A_SWAP_B, spec.shape[0])
    sizes_at = offs[O.B_HAND_SIZES]
    best, best_v = U.first_legal(mask, 0), np.inf
    for a in range(mask.shape[0]):
        if mask[a] != 0 and swap <= a < swap + n - 1:
            v = obs[sizes_at + a - swap + 1]
            if v < best_v:
                best, best_v = a, v
    return best


# ---------------------------------------------------------------------------------------------- playing a card
@njit(cache=True, inline="always")
def _read_plays(obs, mask, spec, offs, plays, hand, uno_ok, by_colour, by_symbol):
    """One pass over the kinds: which kinds the play actions offer (``plays``, in kind order; ``uno_ok``: with the
    UNO call), the hand, and the hand by colour, by symbol and its wilds, from which each play's score reads what
    is left after it (one kind per colour and symbol) instead of walking the hand again.  It was six passes, and
    the unseen counts and the rules' Wild Draw question were asked before knowing whether any play would read
    them.  Returns (plays offered, cards held, wilds held, a coloured card is playable, a Wild Draw card is)."""
    k = spec.shape[0]
    play = section_start(A_PLAY_K, A_PLAY_B, k)
    play_uno = section_start(A_PLAY_UNO_K, A_PLAY_UNO_B, k)
    for c in range(4):
        by_colour[c] = 0
    for sym in range(NSYM):
        by_symbol[sym] = 0
    n_plays = 0
    hand_size = 0
    wilds_held = 0
    coloured_playable = False
    restricted_playable = False
    held = obs[offs[O.B_HAND]:offs[O.B_HAND] + k]  # views indexed from 0: no negative-index fix-up per read
    m_play = mask[play:play + k]
    m_uno = mask[play_uno:play_uno + k]
    # the kinds held or playable, as a set (``common.kinds_held``: a loop without a branch, then the few kinds in
    # the set only, in kind order)
    listed = 0
    for kind in range(k):
        listed |= np.int64((held[kind] != 0) | (m_play[kind] != 0) | (m_uno[kind] != 0)) << kind
    while listed != 0:
        kind = U.lowest_kind(listed)
        listed &= listed - 1
        h = 0
        if held[kind] != 0:
            h = int(held[kind])
            hand_size += h
            if h > 0:
                if is_wild(spec, kind):
                    wilds_held += h
                else:
                    by_colour[spec[kind, COL_COLOUR]] += h
                    by_symbol[spec[kind, COL_SYMBOL]] += h
        if m_play[kind] != 0 or m_uno[kind] != 0:
            plays[n_plays] = kind
            n_plays += 1
            hand[kind] = h
            uno_ok[kind] = m_uno[kind] != 0
            if not is_wild(spec, kind):
                coloured_playable = True
            elif _restricted(spec, kind):
                restricted_playable = True
    return n_plays, hand_size, wilds_held, coloured_playable, restricted_playable


@njit(cache=True, inline="always")
def _no_play(mask, k):
    """Nothing to play: draw / reroll / keep / pass / accept, whichever is offered."""
    for a in (section_start(A_DRAW_K, A_DRAW_B, k), section_start(A_REROLL_K, A_REROLL_B, k),
              section_start(A_KEEP_K, A_KEEP_B, k), section_start(A_PASS_K, A_PASS_B, k),
              section_start(A_ACCEPT_K, A_ACCEPT_B, k)):
        if mask[a] != 0:
            return a
    return U.first_legal(mask, 0)


@njit(cache=True, inline="always")
def _restricted_wild_legal(obs, cfg, spec, offs, scratch):
    """Ask the rules whether a Wild Draw Four / Wild Draw 2 would be legal for this hand (what ``RulesQuery``
    asks), on the scratch state row."""
    k = spec.shape[0]
    held = obs[offs[O.B_HAND]:offs[O.B_HAND] + k]
    for kind in range(k):
        scratch[O_HAND + kind] = int(held[kind])
    scratch[S_TOP] = block_argmax(obs, offs[O.B_TOP], offs[O.B_TOP] + k)
    scratch[S_COLOUR] = block_argmax(obs, offs[O.B_COLOUR], offs[O.B_COLOUR] + 4)
    return wilds.restricted_wild_legal(scratch, cfg, spec, 0)


@njit(cache=True, inline="always")
def _play_or_draw(obs, mask, cfg, spec, offs, w, scratch, unseen, tab, kt, direction, iw, bw):
    """A turn (or the drawn card): the best-scoring play, drawing (keeping) only when the best play is a bluff."""
    k = spec.shape[0]
    n = cfg[C_NP]
    play_uno = section_start(A_PLAY_UNO_K, A_PLAY_UNO_B, k)
    draw = section_start(A_DRAW_K, A_DRAW_B, k)
    keep = section_start(A_KEEP_K, A_KEEP_B, k)
    reroll = section_start(A_REROLL_K, A_REROLL_B, k)
    # the views are made once and handed to the helpers: made again inside one, the compiled player ran 1-3% slower
    uno_ok = bw[B_UNO_OK:B_UNO_OK + k]
    hand = iw[I_HAND:I_HAND + k]  # filled for the kinds in ``plays`` only
    plays = iw[I_PLAYS:I_PLAYS + k]
    by_colour = iw[I_BY_COLOUR:I_BY_COLOUR + 4]
    by_symbol = iw[I_BY_SYMBOL:I_BY_SYMBOL + NSYM]
    n_plays, hand_size, wilds_held, coloured_playable, restricted_playable = _read_plays(
        obs, mask, spec, offs, plays, hand, uno_ok, by_colour, by_symbol)
    if n_plays == 0:
        return _no_play(mask, k)
    if hand_size == 1:  # the last card goes out: the first play offered
        return plays[0] + (play_uno if uno_ok[plays[0]] else 0)
    total = _unseen_sums(obs, spec, offs, unseen, tab, kt)
    sizes_at = offs[O.B_HAND_SIZES]
    rel_next = 1 % n if direction > 0 else n - 1
    rel_after = (2 * direction) % n if n > 2 else 0
    rel_prev = (-direction) % n
    close = w[W_AIM_SIZE]
    next_close = n > 1 and obs[sizes_at + rel_next] <= close
    after_close = n > 2 and obs[sizes_at + rel_after] <= close
    prev_close = n > 2 and obs[sizes_at + rel_prev] <= close
    wd_legal = False  # only the score of a Wild Draw card reads the rules' answer
    if restricted_playable:
        wd_legal = _restricted_wild_legal(obs, cfg, spec, offs, scratch)
    seven_zero = cfg[C_SEVEN_ZERO] == 1
    best_kind, best_s = plays[0], -np.inf
    for i in range(n_plays):
        kind = plays[i]
        s = _score_play(obs, spec, w, n, kind, hand, by_colour, by_symbol, wilds_held, hand_size, coloured_playable,
                        wd_legal, next_close, after_close, prev_close, rel_next, rel_after, rel_prev, close, unseen,
                        tab, kt, total, sizes_at, seven_zero)
        if s > best_s:
            best_kind, best_s = kind, s
    if best_s < -50.0:  # the best play is a bluff: draw (keep the drawn card) instead
        for a in (draw, reroll, keep):
            if mask[a] != 0:
                return a
    return best_kind + (play_uno if uno_ok[best_kind] else 0)


@njit(cache=True, inline="always")
def _score_play(obs, spec, w, n, kind, hand, by_colour, by_symbol, wilds_held, hand_size, coloured_playable,
                wd_legal, next_close, after_close, prev_close, rel_next, rel_after, rel_prev, close, unseen, tab, kt,
                total, sizes_at, seven_zero):
    """The score of playing ``kind`` (higher is better), its terms added in a fixed order.  ``by_colour`` /
    ``by_symbol`` / ``wilds_held``: the hand's coloured cards per colour and per symbol, its wilds."""
    sym = spec[kind, COL_SYMBOL]
    wild = is_wild(spec, kind)
    new_colour, colour_left, other_left, wild_left = _left_after(spec, kind, sym, wild, hand, by_colour, by_symbol,
                                                                 wilds_held)
    left = colour_left + other_left + wild_left
    s = 10.0 + w[W_COLOUR_COUNT] * colour_left + w[W_OTHER_MATCH] * other_left + w[W_POINTS] * spec[kind, COL_POINTS]
    if wild:
        s = _wild_terms(s, w, sym, wd_legal, coloured_playable, hand_size)
    skips_next = (sym == SKIP or sym == DRAW_TWO or sym == DRAW_ONE or sym == WILD_DRAW_FOUR
                  or sym == WILD_DRAW_TWO or (sym == REVERSE and n == 2))
    s = _aim_terms(s, w, n, sym, skips_next, left, next_close, after_close, prev_close)
    if skips_next:
        facing = 0 if n == 2 else rel_after
    elif sym == REVERSE and n > 2:
        facing = rel_prev
    else:
        facing = rel_next
    s = _denial_terms(s, obs, spec, w, n, kind, facing, left, new_colour, rel_next, close, unseen, tab, kt, total,
                      sizes_at)
    if seven_zero and not wild:
        s = _seven_zero_terms(s, obs, n, sym, hand_size, sizes_at, rel_prev)
    return s


@njit(cache=True, inline="always")
def _left_after(spec, kind, sym, wild, hand, by_colour, by_symbol, wilds_held):
    """(colour named after the play, cards of it left, cards left matching the new top by symbol only, wilds
    left)."""
    if wild:  # a wild names the colour held most of after it (the coloured cards are all still held)
        new_colour = 0
        for c in range(1, 4):
            if by_colour[c] > by_colour[new_colour]:
                new_colour = c
        colour_left = by_colour[new_colour]
        other_left = 0  # no coloured card has a wild's symbol
        wild_left = wilds_held - 1
    else:  # its own kind is the only one of its colour and symbol
        new_colour = spec[kind, COL_COLOUR]
        colour_left = by_colour[new_colour] - 1
        other_left = by_symbol[sym] - hand[kind]
        wild_left = wilds_held
    return new_colour, colour_left, other_left, wild_left


@njit(cache=True, inline="always")
def _wild_terms(s, w, sym, wd_legal, coloured_playable, hand_size):
    """A wild: a Wild Draw card gladly when legal, never as a bluff; wilds kept while a coloured card can be
    played; Wild Dip Into Deck below a plain wild (it gives a card away but also draws one)."""
    if sym == WILD_DRAW_FOUR or sym == WILD_DRAW_TWO:
        if not wd_legal:
            s -= 100.0
        else:
            s += w[W_WD_BONUS]
    if coloured_playable and hand_size > 2:
        s -= w[W_WILD_SAVE]
    if sym == WILD_DIP:
        s -= 1.0
    return s


@njit(cache=True, inline="always")
def _aim_terms(s, w, n, sym, skips_next, left, next_close, after_close, prev_close):
    """What the card does to the other players: hit the one close to going out, do not feed one."""
    amount = U.draw_amount(sym)
    if amount:
        s += w[W_DRAW_CARD] * amount * (1.0 if next_close else 0.3)
    if skips_next:
        if next_close:
            s += w[W_AIM]
        if n == 2:
            if left > 0:
                s += w[W_EXTRA_TURN]
        elif after_close:
            s -= w[W_FEED]
    elif sym == REVERSE and n > 2:
        if next_close:
            s += w[W_AIM] * 0.7
        if prev_close:
            s -= w[W_FEED]
    return s


@njit(cache=True, inline="always")
def _denial_terms(s, obs, spec, w, n, kind, facing, left, new_colour, rel_next, close, unseen, tab, kt, total,
                  sizes_at):
    """Can the player who faces the new top (``facing`` seats after the viewer; 0: the viewer's extra turn)
    follow it?"""
    if not facing and n == 2 and left == 0:
        # an extra turn with nothing to follow: the viewer draws, then the opponent faces this top anyway
        facing = rel_next
        s -= w[W_STUCK]
    if facing:
        p = _match_prob(obs, spec, unseen, tab, total, sizes_at, facing, kind, new_colour, kt)
        closeness = 1.0 + (w[W_DENY_CLOSE] if obs[sizes_at + facing] <= close else 0.0)
        s -= w[W_DENY] * p * closeness
    return s


@njit(cache=True, inline="always")
def _seven_zero_terms(s, obs, n, sym, hand_size, sizes_at, rel_prev):
    """seven_zero: a 7 swaps with the smallest other hand, a 0 passes the hands on."""
    if sym == 7:
        smallest = np.inf
        for r in range(1, n):
            v = obs[sizes_at + r]
            if v < smallest:
                smallest = v
        if n > 1:
            s += (hand_size - 1 - smallest) * 1.0
    elif sym == 0:
        s += (hand_size - 1 - obs[sizes_at + rel_prev]) * 1.0
    return s
