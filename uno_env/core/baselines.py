"""The rule-based players ``greedy`` and ``heuristic``, compiled, so the batched simulator plays them inside its kernel.

They read exactly what the Python agents (``uno_env.agents.greedy``, ``uno_env.agents.heuristic``) read: one
seat's observation vector and its legal mask, nothing of the state row, and they choose the same action (a test
compares them over thousands of random decisions in every game).  Greedy's tie-break rotation is an argument
here: the Python agent draws it from its numpy stream, the batched simulator from the game's opponent stream.

The card-game heuristic is ported line by line, floating-point operations in the same order, so the scores (and
so the choices) are bit-for-bit those of the Python agents.  UNO Dice, where a play names a die rather than a
face, has its own heuristic (``agents/dice_heuristic.py``), compiled in :mod:`uno_env.core.dice_baselines`;
greedy plays UNO Dice as the Python agent does, choosing the face with the card rule and then the lowest die
showing it.  Every compiled player takes one float64 parameter array, :func:`baseline_weight_array`: the card
heuristic's weights, and in UNO Dice the dice heuristic's weights and the dice set's tables after them.
"""
from __future__ import annotations

import math

import numpy as np

from . import common as U
from . import dice_baselines as DB
from . import engine as E
from . import observe as O
from . import wilds
from ._cache import rule_sources, track_dependencies
from ._jit import njit, njit_refcounted
from .cards import (
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
from .workspace import (
    B_KIND_MASK,
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
    baseline_scratch,
)

track_dependencies(__file__, rule_sources())

#: what plays a seat inside the batched kernel (``pool_kind`` codes); EXTERNAL seats are moved from Python
KIND_EXTERNAL, KIND_RANDOM, KIND_GREEDY, KIND_HEURISTIC = -1, 0, 1, 2
#: baseline name -> kind code, for the baselines the kernel can play itself
COMPILED_BASELINES = {"random": KIND_RANDOM, "greedy": KIND_GREEDY, "heuristic": KIND_HEURISTIC}

#: the card-game heuristic's weights (``HeuristicAgent(weights=...)`` overrides them by name)
HEURISTIC_WEIGHTS: dict[str, float] = {
    "colour_count": 0.5,  # per card of the new colour left in hand after the play
    "other_match": 0.3,  # per card left that matches the new top by number/symbol only
    "points": 0.02,  # per point of the card shed
    "wild_save": 8.0,  # penalty for a wild while a coloured card is playable
    "wd_bonus": 6.0,  # a legal Wild Draw Four / Wild Draw 2: the next player draws (or draws 6 if it challenges)
    "extra_turn": 3.0,  # 2 players: a Skip/Reverse/Draw card with a card to follow it
    "aim": 6.0,  # the card hits a player close to going out
    "aim_size": 2,  # "close to going out": at most this many cards
    "feed_penalty": 6.0,  # the card hands the turn to a player close to going out
    "draw_card_bonus": 1.5,  # per card a draw card makes its victim draw
    "bluff_prior": 1.0,  # probability an opponent plays a Wild Draw card even when it is not legal
    "challenge_threshold": 0.25,  # challenge when P(guilty) exceeds this
    "colour_deny": 3.0,  # colour choice: times P(the player facing the colour can follow it)
    "stuck": 1.0,  # 2 players: an extra-turn card with no card to follow it
    "deny": 20.0,  # times P(the player facing the new top can follow it)
    "deny_close": 1.0,  # ... increased by this factor when that player is close to going out
}
(W_COLOUR_COUNT, W_OTHER_MATCH, W_POINTS, W_WILD_SAVE, W_WD_BONUS, W_EXTRA_TURN, W_AIM, W_AIM_SIZE, W_FEED,
 W_DRAW_CARD, W_BLUFF_PRIOR, W_CHALLENGE, W_COLOUR_DENY, W_STUCK, W_DENY, W_DENY_CLOSE) = range(16)
assert len(HEURISTIC_WEIGHTS) == 16


def heuristic_weight_array(weights: dict[str, float] | None = None) -> np.ndarray:
    """The weights in the order the compiled heuristic reads them (defaults where ``weights`` has no value)."""
    merged = dict(HEURISTIC_WEIGHTS, **(weights or {}))
    return np.array([float(merged[k]) for k in HEURISTIC_WEIGHTS], dtype=np.float64)


def baseline_weight_array(game, weights: dict[str, float] | None = None,
                          dice_weights: dict[str, float] | None = None) -> np.ndarray:
    """The parameter array every compiled baseline of ``game`` (a ``core.game.Game``) reads: the card heuristic's
    weights (``weights`` overrides them by name), and in UNO Dice the dice heuristic's weights (``dice_weights``)
    and the dice set's tables after them (``dice_baselines.dice_block``)."""
    w = heuristic_weight_array(weights)
    if not game.num_dice:
        return w
    return np.concatenate([w, DB.dice_block(game.spec, game.dice, game.num_dice, dice_weights)])


# ---------------------------------------------------------------------------------------------- action table
@njit(cache=True, inline="always")
def _start(a_k, a_b, k):
    return a_k * k + a_b


@njit(cache=True, inline="always")
def _argmax(obs, lo, hi):
    best, at = obs[lo], 0
    for i in range(lo + 1, hi):
        if obs[i] > best:
            best, at = obs[i], i - lo
    return at


@njit(cache=True, inline="always")
def _is_wild(spec, kind):
    return spec[kind, COL_COLOUR] == NO_COLOUR


# ---------------------------------------------------------------------------------------------- greedy
@njit(cache=True)
def greedy_action(obs, mask, spec, offs, n, shift):
    """``GreedyAgent``'s choice for one decision; ``shift`` is its tie-break rotation (0..A-1)."""
    k = spec.shape[0]
    a_n = mask.shape[0]
    colour = _start(E.A_COLOUR_K, E.A_COLOUR_B, k)
    swap = _start(E.A_SWAP_K, E.A_SWAP_B, k)
    n_swap = min(n - 1, a_n - swap)
    any_colour = False
    for c in range(4):
        if mask[colour + c] != 0:
            any_colour = True
    if any_colour:  # name the colour held most of
        best, best_s = -1, np.int64(-(2**62))
        for c in range(4):
            if mask[colour + c] == 0:
                continue
            cnt = np.float32(0.0)
            for kind in range(k):
                if spec[kind, COL_COLOUR] == c:
                    cnt += obs[offs[O.B_HAND] + kind]
            s = np.int64(cnt) * a_n + (colour + c - shift) % a_n
            if s > best_s:
                best, best_s = colour + c, s
        return best
    any_swap = False
    for i in range(n_swap):
        if mask[swap + i] != 0:
            any_swap = True
    if any_swap:  # swap with the smallest other hand
        best, best_s = -1, np.int64(-(2**62))
        for i in range(n_swap):
            if mask[swap + i] == 0:
                continue
            s = -np.int64(obs[offs[O.B_HAND_SIZES] + 1 + i]) * a_n + (swap + i - shift) % a_n
            if s > best_s:
                best, best_s = swap + i, s
        return best
    # every other decision: the highest fixed score, ties broken by the rotation
    play = _start(E.A_PLAY_K, E.A_PLAY_B, k)
    play_uno = _start(E.A_PLAY_UNO_K, E.A_PLAY_UNO_B, k)
    keep = _start(E.A_KEEP_K, E.A_KEEP_B, k)
    challenge = _start(E.A_CHALLENGE_K, E.A_CHALLENGE_B, k)
    give = _start(E.A_GIVE_K, E.A_GIVE_B, k)
    best, best_v, best_r = -1, -np.inf, -1
    for a in range(a_n):
        if mask[a] == 0:
            continue
        if a < play_uno:
            v = 1000.0 + spec[a - play, COL_POINTS]
        elif a < colour:
            v = 1000.5 + spec[a - play_uno, COL_POINTS]
        elif a < colour + 4:
            v = 100.0
        elif a == keep:
            v = 10.0
        elif a == challenge:
            v = -1e9
        elif give <= a < give + k:
            v = 500.0 + spec[a - give, COL_POINTS]
        elif a >= swap:
            v = 500.0
        else:
            v = 0.0
        r = (a - shift) % a_n
        if v > best_v or (v == best_v and r > best_r):
            best, best_v, best_r = a, v, r
    return best


# ---------------------------------------------------------------------------------------------- heuristic
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
    if not _is_wild(spec, kind):
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
    """P(the Wild Draw card just played was a bluff), from the public information."""
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
            if _is_wild(spec, kind) and not _restricted(spec, kind):
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
def heuristic_action(obs, mask, cfg, spec, offs, w, scratch, fw, iw, bw):
    """``HeuristicAgent``'s choice for one decision of a card game (``scratch``: a zeroed state row, for asking
    the rules whether a Wild Draw Four would be legal; ``fw``/``iw``/``bw``: :func:`baseline_scratch`)."""
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
    n = cfg[E.C_NP]
    a_n = mask.shape[0]
    play_uno = _start(E.A_PLAY_UNO_K, E.A_PLAY_UNO_B, k)
    colour_a = _start(E.A_COLOUR_K, E.A_COLOUR_B, k)
    phase = _argmax(obs, offs[O.B_PHASE], offs[O.B_PHASE] + E.NUM_PHASES)
    # the unseen cards are counted only by the decisions that read them
    unseen = fw[F_UNSEEN:F_UNSEEN + k]
    tab = fw[F_TAB:F_TAB + TAB_LEN]
    kt = _kind_tables(spec, iw)
    direction = 1 if obs[offs[O.B_DIRECTION]] >= 0 else -1
    rel_next = 1 % n if direction > 0 else n - 1
    sizes_at = offs[O.B_HAND_SIZES]
    hand_at = offs[O.B_HAND]
    if phase == E.PH_COLOUR:
        total = _unseen_sums(obs, spec, offs, unseen, tab, kt)
        counts = fw[F_COUNTS:F_COUNTS + 4]
        counts[:] = 0.0
        pts = fw[F_PTS:F_PTS + 4]
        pts[:] = 0.0
        for kind in range(k):
            c = spec[kind, COL_COLOUR]
            if c < 4:
                counts[c] += float(obs[hand_at + kind])
                pts[c] += float(obs[hand_at + kind]) * spec[kind, COL_POINTS]
        top = _argmax(obs, offs[O.B_TOP], offs[O.B_TOP] + k)
        if _restricted(spec, top):
            facing = 0 if n == 2 else (2 * direction) % n
        else:
            facing = rel_next
        csum = counts[0] + counts[1] + counts[2] + counts[3]
        best, best_s = U.first_legal(mask, 0), -np.inf
        for a in range(a_n):
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
    if phase == E.PH_PENDING:
        best, best_uno, best_pts = -1, False, -1
        for a in range(colour_a):  # stacking: pass the penalty on (the UNO call, then the most points)
            if mask[a] == 0:
                continue
            uno = a >= play_uno
            p = spec[a % k, COL_POINTS]
            if best < 0 or (uno and not best_uno) or (uno == best_uno and p > best_pts):
                best, best_uno, best_pts = a, uno, p
        if best >= 0:
            return best
        challenge = _start(E.A_CHALLENGE_K, E.A_CHALLENGE_B, k)
        any_playable = cfg[E.C_WD_LEGAL_ANY_PLAYABLE] == 1
        if mask[challenge] != 0:
            _unseen_sums(obs, spec, offs, unseen, tab, kt)
            if _guilty_probability(obs, spec, offs, n, any_playable, unseen, w, fw) > w[W_CHALLENGE]:
                return challenge
        accept = _start(E.A_ACCEPT_K, E.A_ACCEPT_B, k)
        return accept if mask[accept] != 0 else U.first_legal(mask, 0)
    if phase == E.PH_GIVE:
        give = _start(E.A_GIVE_K, E.A_GIVE_B, k)
        counts = fw[F_COUNTS:F_COUNTS + 4]
        counts[:] = 0.0
        for kind in range(k):
            c = spec[kind, COL_COLOUR]
            if c < 4:
                counts[c] += float(obs[hand_at + kind])
        best, best_v = U.first_legal(mask, 0), np.inf
        for a in range(a_n):
            if mask[a] == 0:
                continue
            kind = a - give
            if kind < 0 or kind >= k:  # only give actions are legal here; never read outside the table
                continue
            v = 0.0
            if _is_wild(spec, kind):
                v += 100.0
            elif spec[kind, COL_SYMBOL] >= 10:
                v += 20.0
            else:
                v += counts[spec[kind, COL_COLOUR]] * 2.0 - spec[kind, COL_POINTS] * 0.1
            if v < best_v:
                best, best_v = a, v
        return best
    if phase == E.PH_SWAP:
        swap = _start(E.A_SWAP_K, E.A_SWAP_B, k)
        best, best_v = U.first_legal(mask, 0), np.inf
        for a in range(a_n):
            if mask[a] != 0 and swap <= a < swap + n - 1:
                v = obs[sizes_at + a - swap + 1]
                if v < best_v:
                    best, best_v = a, v
        return best
    return _play_or_draw(obs, mask, cfg, spec, offs, w, scratch, unseen, tab, kt, phase, direction, iw, bw)


@njit(cache=True, inline="always")
def _play_or_draw(obs, mask, cfg, spec, offs, w, scratch, unseen, tab, kt, phase, direction, iw, bw):
    k = spec.shape[0]
    n = cfg[E.C_NP]
    play = _start(E.A_PLAY_K, E.A_PLAY_B, k)
    play_uno = _start(E.A_PLAY_UNO_K, E.A_PLAY_UNO_B, k)
    draw = _start(E.A_DRAW_K, E.A_DRAW_B, k)
    keep = _start(E.A_KEEP_K, E.A_KEEP_B, k)
    reroll = _start(E.A_REROLL_K, E.A_REROLL_B, k)
    uno_ok = bw[B_UNO_OK:B_UNO_OK + k]
    hand_at = offs[O.B_HAND]
    hand = iw[I_HAND:I_HAND + k]  # filled for the kinds in ``plays`` only
    plays = iw[I_PLAYS:I_PLAYS + k]
    # One pass over the kinds: which kinds the play actions offer (``plays``, in kind order; ``uno_ok``: with the
    # UNO call), the hand, and the hand by colour, by symbol and its wilds, from which each play's score reads
    # what is left after it (one kind per colour and symbol) instead of walking the hand again.  It was six
    # passes, and the unseen counts and the rules' Wild Draw question were asked before knowing whether any
    # play would read them.
    by_colour = iw[I_BY_COLOUR:I_BY_COLOUR + 4]
    for c in range(4):
        by_colour[c] = 0
    by_symbol = iw[I_BY_SYMBOL:I_BY_SYMBOL + NSYM]
    for sym in range(NSYM):
        by_symbol[sym] = 0
    n_plays = 0
    hand_size = 0
    wilds_held = 0
    coloured_playable = False
    restricted_playable = False
    held = obs[hand_at:hand_at + k]  # views indexed from 0: no negative-index fix-up per read
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
                if _is_wild(spec, kind):
                    wilds_held += h
                else:
                    by_colour[spec[kind, COL_COLOUR]] += h
                    by_symbol[spec[kind, COL_SYMBOL]] += h
        if m_play[kind] != 0 or m_uno[kind] != 0:
            plays[n_plays] = kind
            n_plays += 1
            hand[kind] = h
            uno_ok[kind] = m_uno[kind] != 0
            if not _is_wild(spec, kind):
                coloured_playable = True
            elif _restricted(spec, kind):
                restricted_playable = True
    if n_plays == 0:  # nothing to play: draw / reroll / keep / pass / accept, whichever is offered
        for a in (draw, reroll, keep, _start(E.A_PASS_K, E.A_PASS_B, k), _start(E.A_ACCEPT_K, E.A_ACCEPT_B, k)):
            if mask[a] != 0:
                return a
        return U.first_legal(mask, 0)
    if hand_size == 1:  # the last card goes out: the first play offered, scored as +inf by the Python agent
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
    # ask the rules whether a Wild Draw Four / Wild Draw 2 would be legal (what RulesQuery does); only the score
    # of such a card reads the answer
    wd_legal = False
    if restricted_playable:
        for kind in range(k):
            scratch[E.O_HAND + kind] = int(held[kind])
        scratch[E.S_TOP] = _argmax(obs, offs[O.B_TOP], offs[O.B_TOP] + k)
        scratch[E.S_COLOUR] = _argmax(obs, offs[O.B_COLOUR], offs[O.B_COLOUR] + 4)
        wd_legal = wilds.restricted_wild_legal(scratch, cfg, spec, 0)
    seven_zero = cfg[E.C_SEVEN_ZERO] == 1
    best_kind, best_s = plays[0], -np.inf
    for i in range(n_plays):
        kind = plays[i]
        s = _score_play(obs, spec, w, n, kind, hand, by_colour, by_symbol, wilds_held, hand_size, coloured_playable,
                        wd_legal, next_close, after_close, prev_close, rel_next, rel_after, rel_prev, close, unseen,
                        tab, kt, total, sizes_at, seven_zero)
        if s > best_s:
            best_kind, best_s = kind, s
    if best_s < -50.0:  # the best play is a bluff: draw instead
        for a in (draw, reroll, keep):
            if mask[a] != 0:
                return a
    if phase == E.PH_DRAWN and best_s < -50.0 and mask[keep] != 0:
        return keep
    return best_kind + (play_uno if uno_ok[best_kind] else 0)


@njit(cache=True, inline="always")
def _score_play(obs, spec, w, n, kind, hand, by_colour, by_symbol, wilds_held, hand_size, coloured_playable,
                wd_legal, next_close, after_close, prev_close, rel_next, rel_after, rel_prev, close, unseen, tab, kt,
                total, sizes_at, seven_zero):
    """The score of playing ``kind`` (higher is better); the terms are added in the Python agent's order.
    ``by_colour`` / ``by_symbol`` / ``wilds_held``: the hand's coloured cards per colour and per symbol, its wilds."""
    sym = spec[kind, COL_SYMBOL]
    wild = _is_wild(spec, kind)
    if wild:  # a wild names the colour held most of after it (the coloured cards are all still held)
        new_colour = 0
        for c in range(1, 4):
            if by_colour[c] > by_colour[new_colour]:
                new_colour = c
        colour_left = by_colour[new_colour]
        other_left = 0  # no coloured card has a wild's symbol
        wild_left = wilds_held - 1
    else:  # what is left of its colour, the same symbol in the other colours (its own kind is the only one of
        # this colour and symbol), the wilds
        new_colour = spec[kind, COL_COLOUR]
        colour_left = by_colour[new_colour] - 1
        other_left = by_symbol[sym] - hand[kind]
        wild_left = wilds_held
    left = colour_left + other_left + wild_left
    s = 10.0 + w[W_COLOUR_COUNT] * colour_left + w[W_OTHER_MATCH] * other_left + w[W_POINTS] * spec[kind, COL_POINTS]
    if wild:
        if sym == WILD_DRAW_FOUR or sym == WILD_DRAW_TWO:
            if not wd_legal:
                s -= 100.0
            else:
                s += w[W_WD_BONUS]
        if coloured_playable and hand_size > 2:
            s -= w[W_WILD_SAVE]
        if sym == WILD_DIP:
            s -= 1.0
    skips_next = (sym == SKIP or sym == DRAW_TWO or sym == DRAW_ONE or sym == WILD_DRAW_FOUR
                  or sym == WILD_DRAW_TWO or (sym == REVERSE and n == 2))
    # aim: hit the player close to going out, do not feed one
    amount = 0
    if sym == DRAW_TWO or sym == WILD_DRAW_TWO:
        amount = 2
    elif sym == DRAW_ONE:
        amount = 1
    elif sym == WILD_DRAW_FOUR:
        amount = 4
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
    # denial: can the player who faces the new top follow it?
    if skips_next:
        facing = 0 if n == 2 else rel_after
    elif sym == REVERSE and n > 2:
        facing = rel_prev
    else:
        facing = rel_next
    if not facing and n == 2 and left == 0:
        facing = rel_next
        s -= w[W_STUCK]
    if facing:
        p = _match_prob(obs, spec, unseen, tab, total, sizes_at, facing, kind, new_colour, kt)
        closeness = 1.0 + (w[W_DENY_CLOSE] if obs[sizes_at + facing] <= close else 0.0)
        s -= w[W_DENY] * p * closeness
    if seven_zero and not wild:
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


# ---------------------------------------------------------------------------------------------- UNO Dice greedy
@njit(cache=True)
def dice_greedy_action(obs, mask, spec, offs, w, n, shift, bw):
    """``GreedyAgent``'s choice in UNO Dice: the card rule over the faces the legal dice show, then the lowest
    die showing the chosen face; -1 when ``w`` lacks the dice block (``bw``: :func:`baseline_scratch`'s)."""
    d = DB.dice_count(mask, spec)
    if not DB.block_fits(w, spec, d):
        return -1
    km = bw[B_KIND_MASK:B_KIND_MASK + mask.shape[0]]
    DB.kind_mask(obs, mask, spec, offs, w, d, km)
    best = greedy_action(obs, km, spec, offs, n, shift)
    if 0 <= best < _start(E.A_COLOUR_K, E.A_COLOUR_B, spec.shape[0]):
        die = DB.die_for(obs, mask, spec, offs, w, d, best, False)
        return die if die >= 0 else best
    return best


# ---------------------------------------------------------------------------------------------- dispatch
@njit(cache=True)
def baseline_action(kind, obs, mask, cfg, spec, offs, w, scratch, rng, fw, iw, bw):
    """The action of compiled baseline ``kind`` (KIND_*) for one seat's ``obs`` and ``mask``; -1 if it has none
    (or, in UNO Dice, when ``w`` is not the game's :func:`baseline_weight_array`).

    ``rng`` (a PRNG word) gives the random player its draw and greedy its tie-break rotation; ``scratch`` is a
    zeroed state row and ``fw``/``iw``/``bw`` the work arrays of :func:`baseline_scratch`.
    """
    dice = cfg[E.C_GAME] == E.GAME_DICE
    if kind == KIND_GREEDY:
        shift = E._below(rng, mask.shape[0])
        if dice:
            return dice_greedy_action(obs, mask, spec, offs, w, cfg[E.C_NP], shift, bw)
        return greedy_action(obs, mask, spec, offs, cfg[E.C_NP], shift)
    if kind == KIND_HEURISTIC:
        if dice:
            return DB.heuristic_action(obs, mask, cfg, spec, offs, w, fw, bw)
        return heuristic_action(obs, mask, cfg, spec, offs, w, scratch, fw, iw, bw)
    return -1


@njit_refcounted(cache=True, nogil=True)
def baseline_actions(kind, obs, masks, cfg, spec, offs, w, shifts, out):
    """``out[i]`` = compiled baseline ``kind``'s action for row ``i`` (greedy: tie-break rotation ``shifts[i]``);
    ``w``: the game's :func:`baseline_weight_array`.  Returns the first row left without an action (``out`` -1:
    an all-zero mask, or UNO Dice with a ``w`` lacking the dice block), else -1."""
    # allocating needs reference counting, which the loop over the rows is compiled without (``_jit.py``)
    scratch = np.zeros(E.STATE_LEN, dtype=E.STATE_DTYPE)
    fw, iw, bw = baseline_scratch(masks.shape[1])
    return _baseline_rows(kind, obs, masks, cfg, spec, offs, w, shifts, out, scratch, fw, iw, bw)


@njit(cache=True, nogil=True)
def _baseline_rows(kind, obs, masks, cfg, spec, offs, w, shifts, out, scratch, fw, iw, bw):
    """:func:`baseline_actions` with its work arrays given."""
    dice = cfg[E.C_GAME] == E.GAME_DICE
    bad = -1
    for i in range(masks.shape[0]):
        if kind == KIND_GREEDY:
            if dice:
                out[i] = dice_greedy_action(obs[i], masks[i], spec, offs, w, cfg[E.C_NP], shifts[i], bw)
            else:
                out[i] = greedy_action(obs[i], masks[i], spec, offs, cfg[E.C_NP], shifts[i])
        elif dice:
            out[i] = DB.heuristic_action(obs[i], masks[i], cfg, spec, offs, w, fw, bw)
        else:
            out[i] = heuristic_action(obs[i], masks[i], cfg, spec, offs, w, scratch, fw, iw, bw)
        if out[i] < 0 and bad < 0:
            bad = i
    return bad
