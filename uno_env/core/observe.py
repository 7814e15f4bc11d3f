"""The observer: what one seat may know, as a flat float32 vector.

Kept apart from the rules (as in OpenSpiel) so that privacy is decided in one place: this module reads only
the viewer's own hand, public counts, a hand shown to the viewer after its challenge and, in UNO Dice,
the public hands, bag and every die's place and face.  The draw-pile order (dice: the bag's order and
the next rolls), other hands (card games) and the hidden flags of the rules (e.g. whether a Wild Draw
Four was a bluff) never enter.
"""
from __future__ import annotations

import numpy as np

from . import engine as E
from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .facts import GAME_FACTS, plays_dice
from .step_result import decode_step_compiled

track_dependencies(__file__, rule_sources())

# block ids, in layout order
B_HAND, B_OTHER_HANDS, B_TOP, B_COLOUR, B_PHASE, B_DIRECTION, B_HAND_SIZES, B_CALLED, B_DRAW_SIZE = range(9)
B_DISCARDED, B_BAG, B_PENDING, B_DRAWN, B_SCORES, B_ACTING, B_SHOWN_HAND, B_SHOWN_FROM = range(9, 17)
B_DIE_PLACE, B_DIE_FACE = 17, 18  # UNO Dice: every die, in die-id order (the play_die actions' order)
NUM_BLOCKS = 19


def observation_layout(game: str, num_players: int, kind_names: tuple[str, ...], num_dice: int,
                       shown_hand: bool = False):
    """Rows of (offset, length, meaning) plus the int64 offsets array the compiled encoder reads.

    ``shown_hand``: the rules allow a challenge whose loser shows the hand (card games with ``wd4_challenge``),
    so the two shown-hand blocks are present; they come last, so that without them the layout is unchanged.
    """
    k = len(kind_names)
    dice = GAME_FACTS[game].dice  # every hand is public, and each die's place and face
    n = num_players
    blocks = [
        ("hand", k, "own hand: count of each kind (action table order of kinds)"),
        ("other_hands", (n - 1) * k if dice else 0, "the other seats' hands, counts per kind, next seat first"),
        ("top", k, "one-hot kind on top of the discard pile (dice: the centre die's face)"),
        ("colour", 4, "one-hot current colour (red, yellow, green, blue)"),
        ("phase", E.NUM_PHASES, "one-hot phase: " + ", ".join(E.PHASE_NAMES)),
        ("direction", 1, "+1 clockwise, -1 counter-clockwise"),
        ("hand_sizes", n, "cards/dice held by each seat, the viewer first, then in seat order"),
        ("called_uno", n, "1 where that seat has called UNO and still holds one card (viewer first)"),
        ("draw_size", 1, "cards in the draw pile (dice: dice in the bag)"),
        ("discarded", 0 if dice else k, "count of each kind in the discard pile"),
        ("bag", num_dice if dice else 0, "1 where that die (by id) is in the bag"),
        ("pending", 1, "cards/dice the pending draw card makes its victim draw"),
        ("drawn", k, "one-hot kind the viewer drew this turn, in the drawn phase (playable or not)"),
        ("scores", n, "match scores divided by the target score (viewer first)"),
        ("acting", n, "one-hot seat to act (viewer first)"),
        ("shown_hand", k if shown_hand else 0,
         "the hand shown to the viewer by the seat it challenged (count per kind, as it was when challenged); "
         "kept until the viewer's next decision is taken, else zeros"),
        ("shown_from", n if shown_hand else 0,
         "one-hot seat that showed that hand (viewer first, so index 0 never set), else zeros"),
        ("die_place", num_dice * (n + 2) if dice else 0,
         f"per die (by id): one-hot place among {n + 2}: the seats (viewer first, then in seat order), the bag, "
         "the centre"),
        ("die_face", num_dice * 6 if dice else 0,
         "per die (by id): one-hot face index 0..5 shown (its kind: Game.dice[die, face]); all 0 in the bag"),
    ]
    rows = []
    offsets = np.zeros(NUM_BLOCKS + 1, dtype=np.int64)
    pos = 0
    for i, (name, length, meaning) in enumerate(blocks):
        offsets[i] = pos
        if length:  # blocks a game does not have keep their (empty) offset but get no row
            rows.append((pos, length, name, meaning))
        pos += length
    offsets[NUM_BLOCKS] = pos
    return rows, offsets


@njit(cache=True)
def observe_one(st, cfg, spec, offs, seat, out):
    """Write ``seat``'s observation of game ``st`` into ``out`` (float32, length D); True if ``seat`` acts now."""
    # Seats relative to the viewer are counted up with a wrap rather than with ``%``: an integer division per
    # die and per seat was a third of UNO Dice's observation time (benchmarks/bench_refactor.py, issue 11).
    out[:] = 0.0
    k = cfg[E.C_K]
    n = cfg[E.C_NP]
    hand = E.O_HAND + seat * E.MAX_KINDS
    base = offs[B_HAND]
    for kind in range(k):
        out[base + kind] = st[hand + kind]
    if plays_dice(cfg):
        base = offs[B_OTHER_HANDS]
        other = seat
        for _ in range(1, n):
            other = other + 1 if other + 1 < n else 0
            hand = E.O_HAND + other * E.MAX_KINDS
            for kind in range(k):
                out[base + kind] = st[hand + kind]
            base += k
        bag = offs[B_BAG]
        places = offs[B_DIE_PLACE]
        faces = offs[B_DIE_FACE]
        for die in range(cfg[E.C_NUM_DICE]):
            loc = st[E.O_DIE_LOC + die]
            if loc == E.LOC_BAG:
                out[bag + die] = 1.0
                place = n
            elif loc == E.LOC_CENTRE:
                place = n + 1
            else:
                place = loc - seat if loc >= seat else loc - seat + n
            out[places + die * (n + 2) + place] = 1.0
            if place != n:  # a die in the bag shows no face until it is rolled
                out[faces + die * 6 + st[E.O_DIE_FACE + die]] = 1.0
    else:
        base = offs[B_DISCARDED]
        for kind in range(k):
            out[base + kind] = st[E.O_DISC_COUNT + kind]
    out[offs[B_TOP] + st[E.S_TOP]] = 1.0
    out[offs[B_COLOUR] + st[E.S_COLOUR]] = 1.0
    out[offs[B_PHASE] + st[E.S_PHASE]] = 1.0
    out[offs[B_DIRECTION]] = st[E.S_DIR]
    target = cfg[E.C_TARGET]
    sizes, called, scores = offs[B_HAND_SIZES], offs[B_CALLED], offs[B_SCORES]
    other = seat
    for r in range(n):
        out[sizes + r] = st[E.O_HAND_N + other]
        out[called + r] = st[E.O_CALLED + other]
        out[scores + r] = E.get_wide(st, E.O_SCORES + 2 * other) / target
        other = other + 1 if other + 1 < n else 0
    out[offs[B_DRAW_SIZE]] = st[E.S_DRAW_N]
    out[offs[B_PENDING]] = st[E.S_PENDING]
    cur = st[E.S_CUR]
    if cur == seat and st[E.S_DRAWN] >= 0 and st[E.S_PHASE] == E.PH_DRAWN:
        out[offs[B_DRAWN] + st[E.S_DRAWN]] = 1.0
    if st[E.S_SHOWN_TO] == seat and offs[B_SHOWN_FROM] < offs[B_SHOWN_FROM + 1]:
        base = offs[B_SHOWN_HAND]
        for kind in range(k):
            out[base + kind] = st[E.O_SHOWN_HAND + kind]
        shown = st[E.S_SHOWN_FROM]
        out[offs[B_SHOWN_FROM] + (shown - seat if shown >= seat else shown - seat + n)] = 1.0
    if st[E.S_DONE] == 0:
        out[offs[B_ACTING] + (cur - seat if cur >= seat else cur - seat + n)] = 1.0
        return cur == seat
    return False


@njit(cache=True)
def step_and_observe(st, rng, cfg, spec, dice, offs, action, mask, rew, out):
    """``engine.step_masked``, then the observation of the seat to act next into ``out``: one call a step for
    the AEC env, whose next ``last()`` asks for exactly that observation."""
    code = E.step_masked(st, rng, cfg, spec, dice, action, mask, rew)
    status, _, _, _ = decode_step_compiled(code)
    if status == E.OK:
        observe_one(st, cfg, spec, offs, st[E.S_CUR], out)
    return code
