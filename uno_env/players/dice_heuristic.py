"""The ``heuristic`` player of UNO Dice, compiled: the one implementation that ``DiceHeuristicAgent``
(``uno_env.agents.dice_heuristic``, whose docstring says what the rules of thumb are, and ``HeuristicAgent`` in UNO
Dice), the batched simulator's in-kernel ``"heuristic"`` opponent and the trainer's advice play.

It reads one seat's observation vector and its legal mask, nothing of the state row.  It chooses a face first, as
if the ``play`` / ``play_uno`` action of the face each legal die shows were legal (``view.kind_mask``), then the
die showing it that is least worth keeping (``view.die_for``).  Its weights and the dice set's tables (the chance
that a rolled die follows a centre die, ...) travel in the dice block of the parameter array
(:mod:`uno_env.players.parameters`); it returns -1 when the array does not hold that block for this game.
"""
from __future__ import annotations

import math

import numpy as np

from ..core import common as U
from ..core import observe as O
from ..core._cache import track_dependencies
from ..core._jit import njit
from ..core.actions import (
    A_ACCEPT_B,
    A_ACCEPT_K,
    A_COLOUR_B,
    A_COLOUR_K,
    A_DRAW_B,
    A_DRAW_K,
    A_KEEP_B,
    A_KEEP_K,
    A_PASS_B,
    A_PASS_K,
    A_PLAY_UNO_B,
    A_PLAY_UNO_K,
    A_REROLL_B,
    A_REROLL_K,
)
from ..core.cards import COL_COLOUR, COL_POINTS, COL_SYMBOL, DRAW_TWO, NO_COLOUR, REVERSE, SKIP, WILD_DRAW_FOUR
from ..core.layout import C_NP, NUM_PHASES, PH_COLOUR, PH_PENDING
from ._cache import player_sources
from .parameters import (
    D_COLOUR_KEPT,
    D_DENY,
    D_DRAW,
    D_EXTRA_TURN,
    D_FLEX,
    D_KEEP_WILD,
    D_LEAD,
    D_SKIP,
    P_WEIGHTS,
    block_fits,
    q_at,
    top_p_at,
)
from .view import block_argmax, dice_count, die_for, kind_mask, section_start
from .workspace import B_KIND_MASK, B_PLAYABLE, B_UNO_OK, F_DICE_HAND, F_DICE_REST, F_DICE_SUM

track_dependencies(__file__, player_sources())


# ---------------------------------------------------------------------------------------------- odds
@njit(cache=True, inline="always")
def _follows(spec, top, colour, kind):
    """Kind ``kind`` can be played on centre kind ``top`` showing ``colour``."""
    c = spec[kind, COL_COLOUR]
    return c == NO_COLOUR or c == colour or spec[kind, COL_SYMBOL] == spec[top, COL_SYMBOL]


@njit(cache=True)
def _pairwise_leaf(v, lo, n):
    """numpy's pairwise sum of ``v[lo:lo+n]`` for n <= 128: eight accumulators, then the rest one by one."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += v[i]
        return res
    r0, r1, r2, r3 = v[lo], v[lo + 1], v[lo + 2], v[lo + 3]
    r4, r5, r6, r7 = v[lo + 4], v[lo + 5], v[lo + 6], v[lo + 7]
    i = 8
    while i < n - n % 8:
        r0 += v[lo + i]
        r1 += v[lo + i + 1]
        r2 += v[lo + i + 2]
        r3 += v[lo + i + 3]
        r4 += v[lo + i + 4]
        r5 += v[lo + i + 5]
        r6 += v[lo + i + 6]
        r7 += v[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += v[lo + i]
        i += 1
    return res


@njit(cache=True, inline="always")
def _pairwise_split(n):
    """Where numpy splits a sum of more than 128 values."""
    n2 = n // 2
    return n2 - n2 % 8


@njit(cache=True)
def _pairwise_mid(v, lo, n):
    if n <= 128:
        return _pairwise_leaf(v, lo, n)
    n2 = _pairwise_split(n)  # both halves hold at most 128 values when n <= 242
    return _pairwise_leaf(v, lo, n2) + _pairwise_leaf(v, lo + n2, n - n2)


@njit(cache=True)
def _pairwise_sum(v, lo, n):
    """``numpy.sum`` of ``v[lo:lo+n]`` in numpy's own order: the order the player's sums were defined in (the
    last bits of a sum can decide between two plays).  numpy recurses; so does this, unrolled to the depth needed
    up to n = 484 (numba's cache cannot hold recursive functions), while the sums here have at most
    4 x MAX_KINDS = 216 terms."""
    if n <= 242:
        return _pairwise_mid(v, lo, n)
    n2 = _pairwise_split(n)
    return _pairwise_mid(v, lo, n2) + _pairwise_mid(v, lo + n2, n - n2)


@njit(cache=True)
def _threat(obs, sizes_at, w, rel):
    """How much hurting seat ``rel`` is worth."""
    return 1.0 + w[P_WEIGHTS + D_LEAD] * max(0, 3 - int(obs[sizes_at + rel]))


@njit(cache=True)
def _p_stuck(hand, at, size, spec, w, top, colour):
    """P(a seat holding ``hand[at:at+K]`` (``size`` dice) cannot play on ``top`` in ``colour`` this turn, reroll
    and draw included)."""
    k = spec.shape[0]
    if size <= 0:
        return 0.0
    for kind in range(k):
        if hand[at + kind] > 0 and _follows(spec, top, colour, kind):
            return 0.0
    return math.pow(1.0 - w[q_at(k) + top * 4 + colour], float(size + 1))


@njit(cache=True)
def _best_colour(obs, offs, spec, w, n, rest, top, facing):
    """(colour, score): the colour to name after wild ``top``, leaving ``rest`` in hand: the colour most of the dice
    left follow, against the chance that the player facing it can follow."""
    k = spec.shape[0]
    sizes_at = offs[O.B_HAND_SIZES]
    best, best_score = 0, -np.inf
    for c in range(4):
        follow = 0.0
        same = 0.0
        for kind in range(k):
            if _follows(spec, top, c, kind):
                follow += rest[kind]
            if spec[kind, COL_COLOUR] == c:
                same += rest[kind]
        s = w[P_WEIGHTS + D_COLOUR_KEPT] * follow + 0.01 * same
        if facing:
            s += w[P_WEIGHTS + D_DENY] * _threat(obs, sizes_at, w, facing) * _p_stuck(
                obs, offs[O.B_OTHER_HANDS] + (facing - 1) * k, int(obs[sizes_at + facing]), spec, w, top, c)
        if s > best_score:
            best, best_score = c, s
    return best, best_score


@njit(cache=True)
def _follow_chance(rest, spec, w, scratch):
    """P(``rest`` holds a die that follows a random future centre die): the ``top_p`` entries it covers, in
    (centre kind, colour) order, summed in numpy's order."""
    k = spec.shape[0]
    # centre t in colour c is followed by a held wild, a held die of colour c or one of t's symbol
    wild_held = False
    colours = np.int64(0)
    symbols = np.int64(0)
    for kind in range(k):
        if rest[kind] > 0:
            if spec[kind, COL_COLOUR] == NO_COLOUR:
                wild_held = True
            else:
                colours |= np.int64(1) << spec[kind, COL_COLOUR]
                symbols |= np.int64(1) << spec[kind, COL_SYMBOL]
    m = 0
    for t in range(k):
        sym_held = (symbols >> spec[t, COL_SYMBOL]) & 1
        for c in range(4):
            if wild_held or sym_held or (colours >> c) & 1:
                scratch[m] = w[top_p_at(k) + t * 4 + c]
                m += 1
    return _pairwise_sum(scratch, 0, m)


@njit(cache=True)
def heuristic_action(obs, mask, cfg, spec, offs, w, fw, bw):
    """The dice heuristic's choice for one UNO Dice decision; -1 when ``w`` lacks the dice block (``fw``, ``bw``:
    work arrays of ``workspace.baseline_scratch``)."""
    k = spec.shape[0]
    a_n = mask.shape[0]
    d = dice_count(mask, spec)
    if not block_fits(w, spec, d):
        return -1
    first = U.first_legal(mask, 0)
    if first < 0 or U.first_legal(mask, first + 1) < 0:  # none or one legal action
        return first
    km = bw[B_KIND_MASK:B_KIND_MASK + a_n]
    kind_mask(obs, mask, spec, offs, w, d, km)
    choice = _choose(obs, km, cfg, spec, offs, w, fw, bw)
    if choice < section_start(A_COLOUR_K, A_COLOUR_B, k):
        die = die_for(obs, mask, spec, offs, w, d, choice, True)
        return die if die >= 0 else choice
    return choice


@njit(cache=True)
def _choose(obs, km, cfg, spec, offs, w, fw, bw):
    """The action the heuristic's scores prefer, plays as per-kind ``play`` ids (``km``: ``view.kind_mask``)."""
    k = spec.shape[0]
    n = cfg[C_NP]
    first = U.first_legal(km, 0)
    phase = block_argmax(obs, offs[O.B_PHASE], offs[O.B_PHASE] + NUM_PHASES)
    hand = fw[F_DICE_HAND:F_DICE_HAND + k]
    for kind in range(k):
        hand[kind] = float(obs[offs[O.B_HAND] + kind])
    direction = 1 if obs[offs[O.B_DIRECTION]] >= 0 else -1
    if phase == PH_COLOUR:
        return _name_colour(obs, offs, spec, w, n, hand, direction)
    if phase == PH_PENDING:  # only with dice_wd4_bluff: a bluff is never worth a 4-die penalty to check
        accept = section_start(A_ACCEPT_K, A_ACCEPT_B, k)
        return accept if km[accept] != 0 else first
    playable = bw[B_PLAYABLE:B_PLAYABLE + k]
    uno_ok = bw[B_UNO_OK:B_UNO_OK + k]
    play_uno = section_start(A_PLAY_UNO_K, A_PLAY_UNO_B, k)
    if not U.playable_kinds(km, k, section_start(A_COLOUR_K, A_COLOUR_B, k), play_uno, playable, uno_ok):
        return _no_play(km, k, first)
    size_f = 0.0
    for kind in range(k):
        size_f += hand[kind]
    size = int(size_f)
    rest = fw[F_DICE_REST:F_DICE_REST + k]
    scratch = fw[F_DICE_SUM:F_DICE_SUM + 4 * k]
    best_kind, best_score = -1, -np.inf
    for kind in range(k):
        if not playable[kind]:
            continue
        if best_kind < 0:
            best_kind = kind
        if size == 1:  # the last die goes out: the first play offered
            best_kind, best_score = kind, np.inf
            break
        s = _score_play(obs, offs, spec, w, n, hand, rest, scratch, kind, size, direction)
        if s > best_score:
            best_kind, best_score = kind, s
    return best_kind + (play_uno if uno_ok[best_kind] else 0)


@njit(cache=True, inline="always")
def _name_colour(obs, offs, spec, w, n, hand, direction):
    """After a Wild: the colour :func:`_best_colour` names, faced by the next player (after a Wild Draw Four, the
    one after it; with two players, the viewer)."""
    k = spec.shape[0]
    top = block_argmax(obs, offs[O.B_TOP], offs[O.B_TOP] + k)
    wd4 = spec[top, COL_SYMBOL] == WILD_DRAW_FOUR
    if n == 2 and wd4:
        facing = 0
    elif wd4:
        facing = (2 * direction) % n
    else:
        facing = 1 % n if direction > 0 else n - 1
    return section_start(A_COLOUR_K, A_COLOUR_B, k) + _best_colour(obs, offs, spec, w, n, hand, top, facing)[0]


@njit(cache=True, inline="always")
def _no_play(km, k, first):
    """Nothing to play: reroll / draw / keep / pass, whichever is offered."""
    for a in (section_start(A_REROLL_K, A_REROLL_B, k), section_start(A_DRAW_K, A_DRAW_B, k),
              section_start(A_KEEP_K, A_KEEP_B, k), section_start(A_PASS_K, A_PASS_B, k)):
        if km[a] != 0:
            return a
    return first


@njit(cache=True, inline="always")
def _score_play(obs, offs, spec, w, n, hand, rest, scratch, kind, size, direction):
    """The score of playing a die showing ``kind`` (higher is better), its terms added in a fixed order; ``rest``
    is left holding the hand after the play."""
    k = spec.shape[0]
    sizes_at = offs[O.B_HAND_SIZES]
    rel_next = 1 % n if direction > 0 else n - 1
    for kk in range(k):
        rest[kk] = hand[kk]
    rest[kind] -= 1
    sym = spec[kind, COL_SYMBOL]
    skips = sym == SKIP or sym == DRAW_TWO or sym == WILD_DRAW_FOUR or (sym == REVERSE and n == 2)
    if skips:
        facing = 0 if n == 2 else (2 * direction) % n
    elif sym == REVERSE:
        facing = (-direction) % n
    else:
        facing = rel_next
    if spec[kind, COL_COLOUR] == NO_COLOUR:
        colour, s = _best_colour(obs, offs, spec, w, n, rest, kind, facing)
    else:
        colour = spec[kind, COL_COLOUR]
        s = _kept_colour_terms(obs, offs, spec, w, rest, kind, colour, facing)
    if facing == 0:  # the viewer's own extra turn: can it follow it?
        s += w[P_WEIGHTS + D_EXTRA_TURN] * (1.0 - _p_stuck(rest, 0, size - 1, spec, w, kind, colour))
    if sym == DRAW_TWO or sym == WILD_DRAW_FOUR:
        s += w[P_WEIGHTS + D_DRAW] * float(U.draw_amount(sym)) * _threat(obs, sizes_at, w, rel_next)
    if skips and n > 2:
        s += w[P_WEIGHTS + D_SKIP] * _threat(obs, sizes_at, w, rel_next)
    s = _kept_dice_terms(s, spec, w, rest, scratch, size)
    return s + 0.001 * float(spec[kind, COL_POINTS])


@njit(cache=True, inline="always")
def _kept_colour_terms(obs, offs, spec, w, rest, kind, colour, facing):
    """A coloured die: the dice left that follow it, and the chance that the player facing it cannot."""
    k = spec.shape[0]
    sizes_at = offs[O.B_HAND_SIZES]
    follow = 0.0
    for kk in range(k):
        if _follows(spec, kind, colour, kk):
            follow += rest[kk]
    s = w[P_WEIGHTS + D_COLOUR_KEPT] * follow
    if facing:
        s += w[P_WEIGHTS + D_DENY] * _threat(obs, sizes_at, w, facing) * _p_stuck(
            obs, offs[O.B_OTHER_HANDS] + (facing - 1) * k, int(obs[sizes_at + facing]), spec, w, kind, colour)
    return s


@njit(cache=True, inline="always")
def _kept_dice_terms(s, spec, w, rest, scratch, size):
    """Which dice are kept: plain Wilds (unless a Wild Draw Four is held, which a Wild makes illegal: the Wild is
    spent first), and with few dice left the chance that they follow a random centre die."""
    k = spec.shape[0]
    wd4_held = False
    plain_wilds = 0.0
    for kk in range(k):
        if spec[kk, COL_SYMBOL] == WILD_DRAW_FOUR:
            if rest[kk] > 0:
                wd4_held = True
        elif spec[kk, COL_COLOUR] == NO_COLOUR:
            plain_wilds += rest[kk]
    if not wd4_held:
        s += w[P_WEIGHTS + D_KEEP_WILD] * plain_wilds
    if size <= 3:  # the dice the viewer will have to go out with
        s += w[P_WEIGHTS + D_FLEX] * _follow_chance(rest, spec, w, scratch)
    return s
