"""UNO Dice's rule-based players compiled: the dice heuristic, and the die ↔ face helpers greedy needs.

They read what the Python agents read (``uno_env.agents.dice_heuristic``, ``uno_env.agents.greedy``): one seat's
observation vector and legal mask, nothing of the state row.  In UNO Dice a play names a die; both agents choose
a face first, as if the ``play`` / ``play_uno`` action of the face each legal die shows were legal
(:func:`kind_mask`, the compiled ``ActionView.dice_as_kinds``), then a die showing it.  The heuristic is ported
line by line, floating-point operations in the Python agent's order, and its tables (the chance that a rolled
die follows a centre die, ...) are computed once in Python by :func:`dice_tables`, the very code the agent uses;
so the choices are the agent's, bit for bit (a test compares them over thousands of random decisions).

What the compiled players know of the game beyond ``cfg``/``spec`` travels in the float64 parameter array the
batched kernel already passes to every compiled baseline (:func:`uno_env.core.baselines.baseline_weight_array`):
the card heuristic's 16 weights, then the dice block written by :func:`dice_block`:

    [P_K] K   [P_D] D   [P_WEIGHTS: +8] the dice weights (DICE_HEURISTIC_WEIGHTS order)
    then q (K x 4), top_p (K x 4), die_keep_value (D), die_kinds (D x 6: the kind each face of each die shows)

The players return -1 when the array does not hold that block for this game (the card games' 16 weights).
"""
from __future__ import annotations

import math

import numpy as np

from . import common as U
from . import engine as E
from . import observe as O
from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .cards import COL_COLOUR, COL_POINTS, COL_SYMBOL, DRAW_TWO, NO_COLOUR, REVERSE, SKIP, WILD_DRAW_FOUR
from .workspace import B_KIND_MASK, B_PLAYABLE, B_UNO_OK, F_DICE_HAND, F_DICE_REST, F_DICE_SUM

track_dependencies(__file__, rule_sources())

#: the dice heuristic's weights (``DiceHeuristicAgent(weights=...)`` overrides them by name); the agent's module
#: docstring says what each one rewards
DICE_HEURISTIC_WEIGHTS: dict[str, float] = {
    "deny": 1.0,  # times P(the player facing the new centre die cannot follow it)
    "draw": 0.35,  # per die the play makes its victim draw
    "extra_turn": 1.0,  # two players: times P(we can follow our own Skip/Reverse/Draw Two/Wild Draw Four)
    "keep_wild": 0.6,  # per plain Wild left in hand after the play
    "colour_kept": 0.08,  # per die left in hand that follows the colour on top after the play
    "skip": 0.3,  # three or more players: a Skip / Draw card takes a turn from the next player
    "lead": 0.0,  # what hurts a player counts (1 + lead * (3 - dice held)) times, for 1 or 2 dice held
    "flex": 1.0,  # with 1 or 2 dice left after the play: times P(they can follow a random centre die)
}
D_DENY, D_DRAW, D_EXTRA_TURN, D_KEEP_WILD, D_COLOUR_KEPT, D_SKIP, D_LEAD, D_FLEX = range(8)
assert len(DICE_HEURISTIC_WEIGHTS) == 8

#: where the dice block starts in the parameter array (after the card heuristic's 16 weights)
P_K, P_D, P_WEIGHTS, P_TABLES = 16, 17, 18, 26


def dice_tables(spec: np.ndarray, dice: np.ndarray, num_dice: int) -> dict[str, np.ndarray]:
    """The dice heuristic's per-game tables, computed with numpy (the Python agent uses these arrays; the
    compiled player reads copies of them, so both compare the same numbers).

    ``face_p`` (K,): P(a rolled die shows each kind), every die of the set equally likely;
    ``matches`` (K, 4, K) bool: which kinds follow centre kind t when the current colour is c;
    ``q`` (K, 4): P(a rolled die follows centre t in colour c); ``top_p`` (K, 4): P(a future centre die is kind t
    in colour c) (a wild's colour named at random); ``die_keep_value`` (D,): per die, the mean over its six faces
    of P(that face follows a random future centre die).
    """
    spec = np.asarray(spec)
    k = spec.shape[0]
    colour = spec[:, COL_COLOUR].astype(np.int64)
    symbol = spec[:, COL_SYMBOL].astype(np.int64)
    wild = colour == NO_COLOUR
    faces = np.asarray(dice).ravel()
    face_p = np.bincount(faces, minlength=k)[:k] / faces.size
    matches = np.zeros((k, 4, k), dtype=bool)
    for t in range(k):
        for c in range(4):
            matches[t, c] = wild | (colour == c) | (symbol == symbol[t])
    q = (matches * face_p).sum(axis=2)
    top_p = np.zeros((k, 4))
    for t in range(k):
        if wild[t]:
            top_p[t, :] = face_p[t] / 4.0
        else:
            top_p[t, colour[t]] = face_p[t]
    follow = (matches * top_p[:, :, None]).sum(axis=(0, 1))
    die_keep_value = follow[np.asarray(dice)[:num_dice]].mean(axis=1)
    return {"face_p": face_p, "matches": matches, "q": q, "top_p": top_p, "die_keep_value": die_keep_value}


def dice_block(spec: np.ndarray, dice: np.ndarray, num_dice: int,
               weights: dict[str, float] | None = None) -> np.ndarray:
    """The dice part of the compiled baselines' parameter array (see the module docstring); ``weights``
    overrides :data:`DICE_HEURISTIC_WEIGHTS` by name."""
    unknown = set(weights or {}) - set(DICE_HEURISTIC_WEIGHTS)
    if unknown:
        raise ValueError(f"unknown dice heuristic weights {sorted(unknown)}; known: "
                         f"{', '.join(DICE_HEURISTIC_WEIGHTS)}")
    merged = dict(DICE_HEURISTIC_WEIGHTS, **(weights or {}))
    k = np.asarray(spec).shape[0]
    t = dice_tables(spec, dice, num_dice)
    kinds = np.asarray(dice, dtype=np.float64)[:num_dice].ravel()
    return np.concatenate([[float(k), float(num_dice)], [float(merged[n]) for n in DICE_HEURISTIC_WEIGHTS],
                           t["q"].ravel(), t["top_p"].ravel(), t["die_keep_value"], kinds]).astype(np.float64)


# ---------------------------------------------------------------------------------------------- reading
@njit(cache=True, inline="always")
def _q_at(k):
    return P_TABLES


@njit(cache=True, inline="always")
def _top_p_at(k):
    return P_TABLES + 4 * k


@njit(cache=True, inline="always")
def _keep_at(k):
    return P_TABLES + 8 * k


@njit(cache=True, inline="always")
def _kinds_at(k, d):
    return P_TABLES + 8 * k + d


@njit(cache=True)
def dice_count(mask, spec):
    """D, from the length of the action table (A = play_die + 2 D)."""
    return (mask.shape[0] - (E.A_PLAY_DIE_K * spec.shape[0] + E.A_PLAY_DIE_B)) // 2


@njit(cache=True)
def block_fits(w, spec, d):
    """True when ``w`` holds the dice block of a game with these kinds and ``d`` dice."""
    k = spec.shape[0]
    if d <= 0 or w.shape[0] != _kinds_at(k, d) + 6 * d:
        return False
    return w[P_K] == k and w[P_D] == d


@njit(cache=True)
def die_kind(obs, offs, w, k, d, die):
    """The kind die ``die`` shows (``ActionView.die_kinds``: the first face flagged in the ``die_face`` block)."""
    at = offs[O.B_DIE_FACE] + 6 * die
    best, face = obs[at], 0
    for f in range(1, 6):
        if obs[at + f] > best:
            best, face = obs[at + f], f
    return int(w[_kinds_at(k, d) + 6 * die + face])


@njit(cache=True)
def kind_mask(obs, mask, spec, offs, w, d, out):
    """``ActionView.dice_as_kinds``'s mask: ``mask`` with each legal ``play die i`` (+ UNO) moved to the
    ``play`` (``play_uno``) action of the kind die i shows."""
    k = spec.shape[0]
    play_die = E.A_PLAY_DIE_K * k + E.A_PLAY_DIE_B
    play_uno = E.A_PLAY_UNO_K * k + E.A_PLAY_UNO_B
    play = E.A_PLAY_K * k + E.A_PLAY_B
    for a in range(mask.shape[0]):
        out[a] = mask[a]
    for i in range(2 * d):
        a = play_die + i
        if mask[a] != 0:
            out[(play_uno if i >= d else play) + die_kind(obs, offs, w, k, d, i % d)] = 1
            out[a] = 0


@njit(cache=True)
def die_for(obs, mask, spec, offs, w, d, choice, least_worth):
    """The legal die action that plays ``choice`` (a ``play``/``play_uno`` kind action): the lowest die showing
    that kind, or with ``least_worth`` the one with the smallest ``die_keep_value`` (first on ties)."""
    k = spec.shape[0]
    play_die = E.A_PLAY_DIE_K * k + E.A_PLAY_DIE_B
    play_uno = E.A_PLAY_UNO_K * k + E.A_PLAY_UNO_B
    uno = choice >= play_uno
    kind = choice % k
    best, best_v = -1, np.inf
    for i in range(d):
        a = play_die + i + (d if uno else 0)
        if mask[a] == 0 or die_kind(obs, offs, w, k, d, i) != kind:
            continue
        if not least_worth:
            return a
        v = w[_keep_at(k) + i]
        if v < best_v:
            best, best_v = a, v
    return best


# ---------------------------------------------------------------------------------------------- heuristic
@njit(cache=True, inline="always")
def _follows(spec, top, colour, kind):
    """Kind ``kind`` can be played on centre kind ``top`` showing ``colour`` (the agent's ``matches`` table)."""
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
    """``numpy.sum`` of ``v[lo:lo+n]`` in numpy's own order, so the sums agree bit for bit.  numpy recurses; so
    does this, unrolled to the depth needed up to n = 484 (numba's cache cannot hold recursive functions), while
    the sums here have at most 4 x MAX_KINDS = 216 terms."""
    if n <= 242:
        return _pairwise_mid(v, lo, n)
    n2 = _pairwise_split(n)
    return _pairwise_mid(v, lo, n2) + _pairwise_mid(v, lo + n2, n - n2)


@njit(cache=True)
def _threat(obs, sizes_at, w, rel):
    """How much hurting seat ``rel`` is worth (the agent's ``_threat``)."""
    return 1.0 + w[P_WEIGHTS + D_LEAD] * max(0, 3 - int(obs[sizes_at + rel]))


@njit(cache=True)
def _p_stuck(hand, at, size, spec, w, top, colour):
    """P(a seat holding ``hand[at:at+K]`` (``size`` dice) cannot play on ``top`` in ``colour`` this turn, reroll
    and draw included) (the agent's ``_p_stuck``)."""
    k = spec.shape[0]
    if size <= 0:
        return 0.0
    for kind in range(k):
        if hand[at + kind] > 0 and _follows(spec, top, colour, kind):
            return 0.0
    return math.pow(1.0 - w[_q_at(k) + top * 4 + colour], float(size + 1))


@njit(cache=True)
def _best_colour(obs, offs, spec, w, n, rest, top, facing):
    """(colour, score): the colour to name after wild ``top``, leaving ``rest`` in hand (the agent's
    ``_best_colour``)."""
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
    """P(``rest`` holds a die that follows a random future centre die) (the agent's ``_follow_chance``): the
    ``top_p`` entries it covers, in the agent's (centre kind, colour) order, summed in numpy's order."""
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
                scratch[m] = w[_top_p_at(k) + t * 4 + c]
                m += 1
    return _pairwise_sum(scratch, 0, m)


@njit(cache=True)
def heuristic_action(obs, mask, cfg, spec, offs, w, fw, bw):
    """``DiceHeuristicAgent``'s choice for one UNO Dice decision; -1 when ``w`` lacks the dice block (``fw``,
    ``bw``: work arrays of ``workspace.baseline_scratch``)."""
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
    if choice < E.A_COLOUR_K * k + E.A_COLOUR_B:
        die = die_for(obs, mask, spec, offs, w, d, choice, True)
        return die if die >= 0 else choice
    return choice


@njit(cache=True)
def _choose(obs, km, cfg, spec, offs, w, fw, bw):
    """The action the heuristic's scores prefer, plays as per-kind ``play`` ids (the agent's ``_choose``)."""
    k = spec.shape[0]
    n = cfg[E.C_NP]
    a_n = km.shape[0]
    play_uno = E.A_PLAY_UNO_K * k + E.A_PLAY_UNO_B
    colour_a = E.A_COLOUR_K * k + E.A_COLOUR_B
    first = -1
    for a in range(a_n):
        if km[a] != 0:
            first = a
            break
    phase_at = offs[O.B_PHASE]
    phase, best_ph = 0, obs[phase_at]
    for i in range(1, E.NUM_PHASES):
        if obs[phase_at + i] > best_ph:
            phase, best_ph = i, obs[phase_at + i]
    hand_at = offs[O.B_HAND]
    sizes_at = offs[O.B_HAND_SIZES]
    hand = fw[F_DICE_HAND:F_DICE_HAND + k]
    for kind in range(k):
        hand[kind] = float(obs[hand_at + kind])
    direction = 1 if obs[offs[O.B_DIRECTION]] >= 0 else -1
    rel_next = 1 % n if direction > 0 else n - 1
    if phase == E.PH_COLOUR:
        top_at = offs[O.B_TOP]
        top, best_t = 0, obs[top_at]
        for i in range(1, k):
            if obs[top_at + i] > best_t:
                top, best_t = i, obs[top_at + i]
        wd4 = spec[top, COL_SYMBOL] == WILD_DRAW_FOUR
        if n == 2 and wd4:
            facing = 0
        elif wd4:
            facing = (2 * direction) % n
        else:
            facing = rel_next
        return colour_a + _best_colour(obs, offs, spec, w, n, hand, top, facing)[0]
    if phase == E.PH_PENDING:  # only with dice_wd4_bluff: accept
        accept = E.A_ACCEPT_K * k + E.A_ACCEPT_B
        return accept if km[accept] != 0 else first
    playable = bw[B_PLAYABLE:B_PLAYABLE + k]
    uno_ok = bw[B_UNO_OK:B_UNO_OK + k]
    any_play = U.playable_kinds(km, k, colour_a, play_uno, playable, uno_ok)
    if not any_play:
        for a in (E.A_REROLL_K * k + E.A_REROLL_B, E.A_DRAW_K * k + E.A_DRAW_B, E.A_KEEP_K * k + E.A_KEEP_B,
                  E.A_PASS_K * k + E.A_PASS_B):
            if km[a] != 0:
                return a
        return first
    size_f = 0.0
    for kind in range(k):
        size_f += hand[kind]
    size = int(size_f)
    rel_after = (2 * direction) % n
    rel_prev = (-direction) % n
    rest = fw[F_DICE_REST:F_DICE_REST + k]
    scratch = fw[F_DICE_SUM:F_DICE_SUM + 4 * k]
    best_kind, best_score = -1, -np.inf
    for kind in range(k):
        if not playable[kind]:
            continue
        if best_kind < 0:
            best_kind = kind
        if size == 1:
            best_kind, best_score = kind, np.inf
            break
        for kk in range(k):
            rest[kk] = hand[kk]
        rest[kind] -= 1
        sym = spec[kind, COL_SYMBOL]
        skips = sym == SKIP or sym == DRAW_TWO or sym == WILD_DRAW_FOUR or (sym == REVERSE and n == 2)
        if skips:
            facing = 0 if n == 2 else rel_after
        elif sym == REVERSE:
            facing = rel_prev
        else:
            facing = rel_next
        if spec[kind, COL_COLOUR] == NO_COLOUR:
            colour, s = _best_colour(obs, offs, spec, w, n, rest, kind, facing)
        else:
            colour = spec[kind, COL_COLOUR]
            follow = 0.0
            for kk in range(k):
                if _follows(spec, kind, colour, kk):
                    follow += rest[kk]
            s = w[P_WEIGHTS + D_COLOUR_KEPT] * follow
            if facing:
                s += w[P_WEIGHTS + D_DENY] * _threat(obs, sizes_at, w, facing) * _p_stuck(
                    obs, offs[O.B_OTHER_HANDS] + (facing - 1) * k, int(obs[sizes_at + facing]), spec, w, kind,
                    colour)
        if facing == 0:  # our own extra turn: can we follow it?
            s += w[P_WEIGHTS + D_EXTRA_TURN] * (1.0 - _p_stuck(rest, 0, size - 1, spec, w, kind, colour))
        if sym == DRAW_TWO or sym == WILD_DRAW_FOUR:
            amount = 2.0 if sym == DRAW_TWO else 4.0
            s += w[P_WEIGHTS + D_DRAW] * amount * _threat(obs, sizes_at, w, rel_next)
        if skips and n > 2:
            s += w[P_WEIGHTS + D_SKIP] * _threat(obs, sizes_at, w, rel_next)
        wd4_held = False
        plain_wilds = 0.0
        for kk in range(k):
            if spec[kk, COL_SYMBOL] == WILD_DRAW_FOUR:
                if rest[kk] > 0:
                    wd4_held = True
            elif spec[kk, COL_COLOUR] == NO_COLOUR:
                plain_wilds += rest[kk]
        if not wd4_held:  # a Wild held makes a Wild Draw Four illegal: spend it first
            s += w[P_WEIGHTS + D_KEEP_WILD] * plain_wilds
        if size <= 3:  # the dice we will have to go out with
            s += w[P_WEIGHTS + D_FLEX] * _follow_chance(rest, spec, w, scratch)
        s += 0.001 * float(spec[kind, COL_POINTS])
        if s > best_score:
            best_kind, best_score = kind, s
    return best_kind + (play_uno if uno_ok[best_kind] else 0)
