"""The batched kernel's speed-ups keep their results: the compiled observer against a plain-Python encoder written
from the observation layout's own descriptions, and the compiled random legal action against the plain scan.

The observer counts seats relative to the viewer without integer division and the random action skips groups of
illegal actions (issue 11); both must give exactly what the straightforward code gives, for every seat, game and
table size (2-5 players; UNO Dice 2-4) on states met in play.  And the core is compiled without numba's reference
counting (``uno_env.core._jit``) in every function, whichever compiles first.
"""
from __future__ import annotations

import importlib
import pkgutil

import numpy as np
import pytest
from numba.core.registry import CPUDispatcher

import uno_env.core
import uno_env.players
from uno_env.core import batch as K
from uno_env.core.layout import LOC_BAG, LOC_CENTRE, BatchView
from uno_env.vector import RandomLegalPolicy, UnoVectorEnv

M64 = (1 << 64) - 1


def reference_observation(env: UnoVectorEnv, b: int, seat: int) -> np.ndarray:
    """Seat ``seat``'s observation of game ``b``, block by block as ``observation_layout`` describes it."""
    v = BatchView(env.states)
    g = env.game
    n, k = g.num_players, g.num_kinds
    rel = [(seat + r) % n for r in range(n)]  # viewer first, then in seat order
    target = float(env.rules.target_score)
    blocks: dict[str, np.ndarray] = {}
    blocks["hand"] = v.hand[b, seat, :k]
    blocks["other_hands"] = np.concatenate([v.hand[b, s, :k] for s in rel[1:]])
    blocks["top"] = np.eye(k)[v.top[b]]
    blocks["colour"] = np.eye(4)[v.colour[b]]
    blocks["phase"] = np.eye(len(np.eye(9)))[v.phase[b]]
    blocks["direction"] = np.array([v.dir[b]])
    blocks["hand_sizes"] = v.hand_n[b, rel]
    blocks["called_uno"] = v.called[b, rel]
    blocks["draw_size"] = np.array([v.draw_n[b]])
    blocks["discarded"] = v.disc_count[b, :k]
    blocks["pending"] = np.array([v.pending[b]])
    drawn = np.zeros(k)
    if v.cur[b] == seat and v.drawn[b] >= 0 and v.phase[b] == 2:  # phase "drawn"
        drawn[v.drawn[b]] = 1
    blocks["drawn"] = drawn
    blocks["scores"] = np.array([v.scores[b, s] / target for s in rel])
    acting = np.zeros(n)
    if v.done[b] == 0:
        acting[rel.index(v.cur[b])] = 1
    blocks["acting"] = acting
    shown, shown_from = np.zeros(k), np.zeros(n)
    if v.shown_to[b] == seat:
        shown = v.shown_hand[b, :k]
        shown_from[rel.index(v.shown_from[b])] = 1
    blocks["shown_hand"], blocks["shown_from"] = shown, shown_from
    nd = g.num_dice
    bag, place, face = np.zeros(nd), np.zeros((nd, n + 2)), np.zeros((nd, 6))
    for die in range(nd):
        loc = v.die_loc[b, die]
        where = n if loc == LOC_BAG else n + 1 if loc == LOC_CENTRE else rel.index(loc)
        place[die, where] = 1
        if loc == LOC_BAG:
            bag[die] = 1
        else:
            face[die, v.die_face[b, die]] = 1
    blocks["bag"], blocks["die_place"], blocks["die_face"] = bag, place.ravel(), face.ravel()
    out = np.zeros(g.obs_dim, dtype=np.float32)
    for off, length, name, _ in g.observation_layout:
        out[off: off + length] = blocks[name]
    return out


@pytest.mark.parametrize("game,players", [("dice", 2), ("dice", 3), ("dice", 4), ("classic", 2), ("classic", 5),
                                          ("pocket", 3)])
def test_observer_matches_the_layout(game, players):
    env = UnoVectorEnv(game, 16, num_players=players, seed=3, num_threads=1)
    policy = RandomLegalPolicy(5)
    obs, masks, _ = env.reset()
    checked = 0
    for step in range(60):
        if step % 6 == 0:  # every seat's view, not only the seat to act
            for seat in range(players):
                got = env.observe(np.full(16, seat))
                for b in range(16):
                    want = reference_observation(env, b, seat)
                    assert np.array_equal(got[b], want), (game, players, step, b, seat)
                    checked += 1
        obs, masks, *_ = env.step(policy.act_batch(obs, masks))
    assert checked == 10 * 16 * players


def _splitmix(word: int):
    state = [word]

    def nxt() -> int:
        state[0] = (state[0] + 0x9E3779B97F4A7C15) & M64
        z = state[0]
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    return nxt


@pytest.mark.parametrize("width", [1, 7, 16, 17, 33, 133, 181, 200])
def test_random_legal_is_the_plain_scan(width):
    """The j-th legal action with j = the PRNG's multiply-shift draw, whatever the mask's width and density
    (legal actions only at the end, as in UNO Dice; only at the start; scattered; a single one)."""
    rng = np.random.default_rng(width)
    rows = []
    for density in (0.02, 0.1, 0.5, 1.0):
        rows += [(rng.random(width) < density) for _ in range(40)]
    tail = np.zeros(width, dtype=bool)
    tail[-max(1, width // 5):] = True
    rows += [tail, tail[::-1].copy(), np.eye(width, dtype=bool)[width - 1]]
    masks = np.array([r if r.any() else np.eye(width, dtype=bool)[0] for r in rows]).astype(np.int8)
    words = np.arange(1, masks.shape[0] + 1, dtype=np.uint64).reshape(-1, 1) * np.uint64(0x1234567)
    out = np.empty(masks.shape[0], dtype=np.int64)
    expect = []
    for i, m in enumerate(masks):
        legal = np.flatnonzero(m)
        draw = _splitmix(int(words[i, 0]))()
        expect.append(int(legal[((draw >> 32) * len(legal)) >> 32]))
    assert K.random_actions(masks, words, out) == -1
    assert out.tolist() == expect


@pytest.mark.parametrize("package", [uno_env.core, uno_env.players], ids=lambda p: p.__name__)
def test_every_compiled_function_states_its_reference_counting(package):
    """numba compiles a function that leaves ``_nrt`` unset with the setting of whichever caller compiled it first
    (``uno_env.core._jit``), so each compiled function of the core and of the players it is compiled into must come
    from ``_jit.njit`` or ``_jit.njit_refcounted``, never from ``numba.njit`` directly."""
    unset = []
    compiled = 0
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.__module__ == module.__name__:
                compiled += 1
                if "_nrt" not in obj.targetoptions:
                    unset.append(f"{module.__name__}.{name}")
    assert compiled > 20
    assert not unset, f"compiled with numba.njit instead of uno_env.core._jit: {unset}"
