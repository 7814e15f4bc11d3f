"""The batched simulator (``uno_env.vector``): equivalence with the AEC env, invariants, privacy, bad input, faces.

Equivalence works on digests: every record a game produces (observation of the seat to act, mask, seat, every
seat's reward, the end flags; at an episode's end the last actor's final observation instead) is hashed exactly
(bit patterns, uint64 arithmetic) into one running digest per game and episode.  The same games played alone
through ``uno_env.raw_env`` with the same seeds must give the same digests, in batches of 1, 7 and 64.  Actions
come from a deterministic function of the observation and mask (:func:`choose`), so a game's actions do not
depend on which batch it is in; it prefers non-draw actions so that games are short and reach their ends.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest

import uno_env
from uno_env import vector as V
from uno_env.core import batch as KB
from uno_env.core import engine as E
from uno_env.core.layout import BatchView, StateView

M64 = (1 << 64) - 1
_W = np.random.default_rng(2024).integers(1, 2**63, size=(4, 1024), dtype=np.uint64) | np.uint64(1)
_P = np.uint64(0x100000001B3)

CONFIGS = {
    "classic2": ("classic", {"num_players": 2}),
    "classic4-house": ("classic", {"num_players": 4, "stacking": True, "seven_zero": True, "jump_in": True,
                                   "uno_catch_probability": 0.5}),
    "classic3-points-trunc": ("classic", {"num_players": 3, "episode": "match", "reward": "points",
                                          "max_turns": 90}),
    "pocket3": ("pocket", {"num_players": 3}),
    "dice2": ("dice", {"num_players": 2}),
    "dice4-bluff": ("dice", {"num_players": 4, "dice_wd4_bluff": True}),
}


# ---------------------------------------------------------------------------------------------- helpers
def _mix(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _rows_hash(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Exact hash of each row's bit pattern (uint64 wrap-around sums are order independent)."""
    bits = a.view(np.uint32) if a.dtype == np.float32 else a.astype(np.int64)
    with np.errstate(over="ignore"):
        return (bits.astype(np.uint64) * w[: a.shape[1]]).sum(axis=1, dtype=np.uint64)


def record(obs, masks, seats, rewards, term, trunc) -> np.ndarray:
    """One uint64 per row for (observation, mask, seat, rewards, terminated, truncated)."""
    rew = np.asarray(rewards, dtype=np.float32) + np.float32(0.0)  # -0.0 -> 0.0
    with np.errstate(over="ignore"):
        h = _rows_hash(obs, _W[0]) + _rows_hash(masks, _W[1]) * np.uint64(3) + _rows_hash(rew, _W[2])
        h += (np.asarray(seats, dtype=np.int64) + 7).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        h += np.asarray(term, dtype=np.uint64) * np.uint64(0xD6E8FEB86659FD93)
        h += np.asarray(trunc, dtype=np.uint64) * np.uint64(0xA0761D6478BD642F)
    return _mix(h)


def _draw_action(num_actions: int) -> int:
    return 2 * ((num_actions - 19) // 3) + 4


def choose(obs: np.ndarray, masks: np.ndarray, salt: int = 0) -> np.ndarray:
    """A legal action per row, a deterministic function of (observation, mask, salt); prefers non-draw actions.

    Row hash h = crc32 of the observation's bytes: with h % 8 != 0 it picks among the legal non-draw actions
    (when there are any), else among all legal ones, the ((h >> 3) % count)-th in action order.
    """
    h = np.array([zlib.crc32(row.tobytes(), salt) for row in obs], dtype=np.int64)
    m = masks.astype(np.int64)
    pref = m.copy()
    pref[:, _draw_action(masks.shape[1])] = 0
    use_pref = (pref.sum(axis=1) > 0) & ((h & 7) != 0)
    m = np.where(use_pref[:, None], pref, m)
    j = (h >> 3) % m.sum(axis=1)
    return np.argmax(np.cumsum(m, axis=1) > j[:, None], axis=1).astype(np.int64)


def choose_one(obs: np.ndarray, mask: np.ndarray, salt: int = 0) -> int:
    """:func:`choose` for one row, without the per-call cost of a dozen numpy operations."""
    h = zlib.crc32(obs.tobytes(), salt)
    legal = np.flatnonzero(mask).tolist()
    draw = _draw_action(mask.shape[0])
    pref = [a for a in legal if a != draw]
    pool = pref if pref and h & 7 else legal
    return pool[(h >> 3) % len(pool)]


def _update(dig: np.ndarray, rows: np.ndarray, cols: np.ndarray, h: np.ndarray) -> None:
    with np.errstate(over="ignore"):
        dig[rows, cols] = dig[rows, cols] * _P + h


def _seeds(n: int, base: int = 0) -> np.ndarray:
    return (np.arange(n, dtype=np.int64) + base) * 7919 + 11


class HashPolicy:
    """A batched policy whose choice depends only on the observation and mask (so on no batch composition)."""

    def __init__(self, salt: int):
        self.salt = salt

    def act_batch(self, observations, masks):
        return choose(observations, masks, self.salt)


# ---------------------------------------------------------------------------------------------- multi-agent digests
def fold(records: list[np.ndarray]) -> np.uint64:
    """The running digest of a sequence of records: ``d = h0; d = d * P + h`` for each later ``h``."""
    h = np.concatenate(records).astype(np.uint64)
    powers = np.cumprod(np.concatenate([[1], np.full(h.size - 1, _P)]).astype(np.uint64), dtype=np.uint64)
    with np.errstate(over="ignore"):
        return (h * powers[::-1]).sum(dtype=np.uint64)


class _Trace:
    """Rows of one episode's records, hashed in one go at the end (per-step numpy calls are the slow part)."""

    def __init__(self):
        self.rows: list[tuple] = []

    def add(self, obs, mask, seat, rewards, term, trunc):
        self.rows.append((obs, mask, seat, np.asarray(rewards, np.float32), term, trunc))

    def digest(self) -> np.uint64:
        cols = list(zip(*self.rows))
        h = record(np.stack(cols[0]), np.stack(cols[1]), np.array(cols[2]), np.stack(cols[3]),
                   np.array(cols[4]), np.array(cols[5]))
        return fold([h])


def aec_digests(game, rules, seeds, episodes: int) -> np.ndarray:
    env = uno_env.raw_env(game, rules=rules)
    n = env.game.num_players
    agents = env.possible_agents
    zero_mask = np.zeros(env.game.num_actions, np.int8)
    out = np.zeros((len(seeds), episodes), dtype=np.uint64)
    for i, s in enumerate(seeds):
        for e in range(episodes):
            env.reset(seed=int(s)) if e == 0 else env.reset()
            trace = _Trace()
            o = env.observe(env.agent_selection)
            trace.add(o["observation"], o["action_mask"], agents.index(env.agent_selection), np.zeros(n), 0, 0)
            while True:
                actor = env.agent_selection
                env.step(choose_one(o["observation"], o["action_mask"]))
                rew = [env.rewards[a] for a in agents]
                term, trunc = env.terminations[actor], env.truncations[actor]
                if term or trunc:
                    trace.add(env.observe(actor)["observation"], zero_mask, -1, rew, term, trunc)
                    break
                o = env.observe(env.agent_selection)
                trace.add(o["observation"], o["action_mask"], agents.index(env.agent_selection), rew, 0, 0)
            out[i, e] = trace.digest()
    return out


def batch_digests(game, rules, seeds, batch: int, episodes: int) -> np.ndarray:
    env = V.UnoVectorEnv(game, batch, rules=rules)
    out = np.zeros((len(seeds), episodes), dtype=np.uint64)
    rows = np.arange(batch)
    zero = np.zeros((batch, env.num_players), np.float32)
    for start in range(0, len(seeds), batch):
        chunk = np.asarray(seeds[start: start + batch])
        real = chunk.size
        padded = np.concatenate([chunk, 10**12 + np.arange(batch - real)])  # filler games, not compared
        obs, masks, seats = env.reset(seeds=padded)
        dig = np.zeros((batch, episodes + 1), dtype=np.uint64)
        dig[:, 0] = record(obs, masks, seats, zero, np.zeros(batch), np.zeros(batch))
        ep = np.zeros(batch, dtype=np.int64)
        while (ep[:real] < episodes).any():
            obs, masks, seats, rew, term, trunc, info = env.step(choose(obs, masks))
            ended = term | trunc
            live = record(obs, masks, seats, rew, np.zeros(batch), np.zeros(batch))
            final = record(info["final_observation"], np.zeros_like(masks), np.full(batch, -1), rew, term, trunc)
            col = np.minimum(ep, episodes)
            _update(dig, rows, col, np.where(ended, final, live))
            ep += ended
            fresh = ended & (ep < episodes)
            init = record(obs, masks, seats, zero, np.zeros(batch), np.zeros(batch))
            dig[fresh, ep[fresh]] = init[fresh]  # the new episode's first record
            assert (env.episode_index == ep).all()
        out[start: start + real] = dig[:real, :episodes]
    return out


@pytest.fixture(scope="module")
def aec_reference():
    cache = {}

    def get(name, n_games, episodes=1):
        key = (name, n_games, episodes)
        if key not in cache:
            game, rules = CONFIGS[name]
            cache[key] = aec_digests(game, rules, _seeds(n_games), episodes)
        return cache[key]

    return get


# ---------------------------------------------------------------------------------------------- equivalence
@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("batch", [1, 7, 64])
def test_batched_games_equal_the_same_games_alone(aec_reference, name, batch):
    game, rules = CONFIGS[name]
    n_games = 40 if batch == 1 else 64
    expected = aec_reference(name, 64)[:n_games]
    got = batch_digests(game, rules, _seeds(n_games), batch, episodes=1)
    bad = np.flatnonzero(got[:, 0] != expected[:, 0])
    assert bad.size == 0, f"{bad.size} games differ from the AEC env, first seed {_seeds(n_games)[bad[0]]}"


@pytest.mark.parametrize("name", ["classic2", "classic3-points-trunc", "dice2"])
def test_auto_reset_continues_like_aec_reset_without_seed(aec_reference, name):
    """Episodes 2 and 3 of a batched game equal ``reset(seed=s); reset(); reset()`` of the AEC env."""
    game, rules = CONFIGS[name]
    expected = aec_reference(name, 16, episodes=3)
    got = batch_digests(game, rules, _seeds(16), 5, episodes=3)
    assert np.array_equal(got, expected)


def test_episode_seeds_follow_the_aec_derivation():
    """Episode e's core seed is the e-th output of a splitmix64 stream seeded with the game's seed, halved."""
    for seed in (0, 77, 2**64 - 1):
        nxt = _splitmix_words(seed - 0x9E3779B97F4A7C15)  # undo the helper's own first advance
        expected = [nxt() >> 1 for _ in range(40)]
        assert V.game_seed(seed) == expected[0]
        assert V.episode_seeds(seed, 40).tolist() == expected
        env = uno_env.raw_env("classic")
        env.reset(seed=seed)
        for e in range(3):
            g = env.game
            st, rng = g.new_states(1)
            E.reset_one(st[0], rng[0], g.cfg, g.spec, g.dice, expected[e])
            assert np.array_equal(st[0], env.game_state.row)
            env.reset()


@pytest.mark.parametrize("seeds", [-1, 2**64 - 3, [0, -5, 1, 2]])
def test_seeds_out_of_range_are_rejected(seeds):
    env = V.UnoVectorEnv("classic", 4, seed=3)
    env.reset()
    before = env.states.copy()
    with pytest.raises(ValueError, match=r"seeds.*2\*\*64"):
        env.reset(seeds=seeds)
    assert np.array_equal(env.states, before)


def test_seed_lists_refill_after_many_auto_resets():
    """With ``max_turns=3`` every game restarts every few steps: far past one seed list of 32 episodes."""
    env = V.UnoVectorEnv("pocket", 9, rules={"max_turns": 3}, seed=5)
    obs, masks, seats = env.reset()
    seen = [[int(s)] for s in env.episode_seed]
    pol = V.RandomLegalPolicy(0)
    for _ in range(150):
        obs, masks, seats, rew, term, trunc, info = env.step(pol.act_batch(obs, masks))
        for b in np.flatnonzero(term | trunc):
            seen[b].append(int(env.episode_seed[b]))
        assert env.check_invariants().size == 0
    assert min(len(s) for s in seen) > V.SEEDS_PER_REFILL + 5
    for b in range(9):
        assert seen[b] == V.episode_seeds(5 + b, len(seen[b])).tolist()
    assert (env.episode_index == np.array([len(s) - 1 for s in seen])).all()


# ---------------------------------------------------------------------------------------------- single-agent face
def _splitmix_words(seed: int):
    state = [seed & M64]

    def nxt():
        state[0] = (state[0] + 0x9E3779B97F4A7C15) & M64
        z = state[0]
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    nxt()  # seed_rng advances once
    return nxt


def _core_random_legal(mask: np.ndarray, nxt) -> int:
    legal = np.flatnonzero(mask)
    j = ((nxt() >> 32) * len(legal)) >> 32
    return int(legal[j])


def single_agent_aec(game, rules, seeds, learner, opponents, episodes: int):
    """The single-agent face's semantics replayed on the AEC env.

    ``opponents``: ``"random"`` (the in-kernel stream, replayed in Python), a :class:`HashPolicy`, or a function
    of the episode's core seed giving one HashPolicy per relative seat (a sampled pool).  ``learner``: a seat or
    ``"random"`` (the first draw of the episode's opponent stream).  Learner actions come from :func:`choose`.
    """
    env = uno_env.raw_env(game, rules=rules)
    n = env.game.num_players
    out = np.zeros((len(seeds), episodes), dtype=np.uint64)
    zero_mask = np.zeros(env.game.num_actions, np.int8)
    for i, s in enumerate(seeds):
        for e in range(episodes):
            env.reset(seed=int(s)) if e == 0 else env.reset()
            core_seed = int(V.episode_seeds(int(s), e + 1)[e])
            nxt = _splitmix_words(core_seed ^ int(KB.OPP_SALT))
            seat = ((nxt() >> 32) * n) >> 32 if learner == "random" else learner
            me = env.possible_agents[seat]
            if callable(opponents) and not isinstance(opponents, HashPolicy):
                per_seat = opponents(core_seed)
            else:
                per_seat = [opponents] * (n - 1)
            trace = _Trace()
            reward = 0.0
            while True:
                while env.agent_selection != me and not (env.terminations[me] or env.truncations[me]):
                    cur = env.agent_selection
                    o = env.observe(cur)
                    opp = per_seat[(env.possible_agents.index(cur) - seat) % n - 1]
                    if opp == "random":
                        env.step(_core_random_legal(o["action_mask"], nxt))
                    else:
                        env.step(choose_one(o["observation"], o["action_mask"], opp.salt))
                    reward += env.rewards[me]
                if env.terminations[me] or env.truncations[me]:
                    trace.add(env.observe(me)["observation"], zero_mask, seat, [reward], env.terminations[me],
                              env.truncations[me])
                    break
                o = env.observe(me)
                trace.add(o["observation"], o["action_mask"], seat, [reward if trace.rows else 0.0], 0, 0)
                env.step(choose_one(o["observation"], o["action_mask"]))
                reward = env.rewards[me]
            out[i, e] = trace.digest()
    return out


def single_agent_batch(game, rules, seeds, batch: int, learner, opponents, episodes: int, pool=None, sampler=None):
    env = V.UnoSingleAgentVectorEnv(game, batch, rules=rules, opponents=opponents, learner_seat=learner)
    if pool is not None:
        env.set_opponent_pool(pool, sampler)
    out = np.zeros((len(seeds), episodes), dtype=np.uint64)
    rows = np.arange(batch)
    zeros = np.zeros(batch)
    for start in range(0, len(seeds), batch):
        chunk = np.asarray(seeds[start: start + batch])
        real = chunk.size
        obs, masks = env.reset(seeds=np.concatenate([chunk, 10**12 + np.arange(batch - real)]))
        assert (env.seats == env.learner_seat).all()
        dig = np.zeros((batch, episodes + 1), dtype=np.uint64)
        dig[:, 0] = record(obs, masks, env.learner_seat, zeros[:, None], zeros, zeros)
        ep = np.zeros(batch, dtype=np.int64)
        while (ep[:real] < episodes).any():
            obs, masks, rew, term, trunc, info = env.step(choose(obs, masks))
            assert (env.seats == env.learner_seat).all()
            ended = term | trunc
            live = record(obs, masks, env.learner_seat, rew[:, None], zeros, zeros)
            final = record(info["final_observation"], np.zeros_like(masks), info["final_seat"], rew[:, None],
                           term, trunc)
            _update(dig, rows, np.minimum(ep, episodes), np.where(ended, final, live))
            ep += ended
            fresh = ended & (ep < episodes)
            dig[fresh, ep[fresh]] = record(obs, masks, env.learner_seat, zeros[:, None], zeros, zeros)[fresh]
        out[start: start + real] = dig[:real, :episodes]
    return out


@pytest.mark.parametrize("name,learner", [("classic2", 1), ("classic4-house", "random"), ("dice4-bluff", 0)])
def test_single_agent_random_opponents_equal_the_aec_game(name, learner):
    game, rules = CONFIGS[name]
    seeds = _seeds(14, base=500)
    expected = single_agent_aec(game, rules, seeds, learner, "random", episodes=2)
    for batch in (1, 5, 14):
        got = single_agent_batch(game, rules, seeds, batch, learner, "random", episodes=2)
        assert np.array_equal(got, expected), f"batch {batch}"


@pytest.mark.parametrize("name,learner", [("classic4-house", 3), ("pocket3", 0), ("classic3-points-trunc", 1)])
def test_single_agent_policy_opponents_equal_the_aec_game(name, learner):
    game, rules = CONFIGS[name]
    seeds = _seeds(12, base=900)
    policy = HashPolicy(salt=99)
    expected = single_agent_aec(game, rules, seeds, learner, policy, episodes=2)
    for batch in (1, 12):
        got = single_agent_batch(game, rules, seeds, batch, learner, policy, episodes=2)
        assert np.array_equal(got, expected), f"batch {batch}"


def test_single_agent_sampled_opponent_pool_equals_the_aec_game():
    """Opponents drawn per game and episode by a sampler that grows the pool, and a random learner seat."""
    game, rules = CONFIGS["pocket3"]

    def salts(core_seed):
        return [11 + (core_seed >> (8 * r)) % 3 for r in range(2)]

    def make_sampler():
        index = {11: 0}

        def sampler(games, env):
            out = []
            for b in games.tolist():
                row = []
                for salt in salts(int(env.episode_seed[b])):
                    if salt not in index:
                        index[salt] = env.add_opponent(HashPolicy(salt))
                    row.append(index[salt])
                out.append(row)
            return np.array(out, dtype=np.int64).reshape(-1, 2)

        return sampler

    seeds = _seeds(12, base=4000)
    expected = single_agent_aec(game, rules, seeds, "random", lambda cs: [HashPolicy(x) for x in salts(cs)], 3)
    for batch in (1, 12):
        got = single_agent_batch(game, rules, seeds, batch, "random", "random", 3, pool=[HashPolicy(11)],
                                 sampler=make_sampler())
        assert np.array_equal(got, expected), f"batch {batch}"


def test_single_agent_per_seat_policies_and_rotating_learner():
    n = 4
    calls = []
    acting = {}

    class Recorder(HashPolicy):
        def __init__(self, rel):
            super().__init__(rel)
            self.rel = rel

        def act_batch(self, observations, masks):
            # an opponent sees its own observation: the "acting" block (relative to the viewer) says "you act"
            assert (observations[:, acting["off"]] == 1).all()
            calls.append((self.rel, len(masks)))
            return super().act_batch(observations, masks)

    env = V.UnoSingleAgentVectorEnv("classic", 10, num_players=n, opponents=[Recorder(r) for r in (1, 2, 3)],
                                    learner_seat="rotate", seed=3)
    acting["off"] = _block(env, "acting")[0]
    obs, masks = env.reset()
    assert env.learner_seat.tolist() == [b % n for b in range(10)]
    for _ in range(60):
        obs, masks, rew, term, trunc, info = env.step(choose(obs, masks))
        assert (env.seats == env.learner_seat).all()
        assert (masks.sum(axis=1) > 0).all()
        assert env.check_invariants().size == 0
    assert {r for r, _ in calls} == {1, 2, 3}


def test_single_agent_baseline_names_as_opponents():
    pytest.importorskip("uno_env.agents.registry")
    env = V.UnoSingleAgentVectorEnv("classic", 16, num_players=3, opponents=["greedy", "random"], seed=0,
                                    learner_seat="random")
    obs, masks = env.reset()
    assert env.opponents == ["greedy", "random"] and env.opponents_in_kernel  # both compiled into the kernel
    for name in ("greedy", "heuristic"):  # UNO Dice's players are compiled too (uno_env/players)
        assert V.UnoSingleAgentVectorEnv("dice", 4, opponents=name, seed=0).opponents_in_kernel
    for _ in range(40):
        obs, masks, *_ = env.step(choose(obs, masks))
        assert (env.seats == env.learner_seat).all() and env.check_invariants().size == 0


def test_single_agent_rewards_are_the_learners():
    env = V.UnoSingleAgentVectorEnv("pocket", 32, num_players=3, learner_seat="rotate", seed=11)
    obs, masks = env.reset()
    pol = V.RandomLegalPolicy(2)
    finished = 0
    for _ in range(400):
        obs, masks, rew, term, trunc, info = env.step(pol.act_batch(obs, masks))
        ended = term | trunc
        # win_loss: the learner gets +1 when it wins the game that just ended, -1/2 otherwise, 0 meanwhile
        assert (rew[~ended] == 0).all()
        won = info["winner"][ended] == env.learner_seat[ended]
        assert np.allclose(rew[ended], np.where(won, 1.0, -0.5))
        finished += int(ended.sum())
    assert finished > 10


# ---------------------------------------------------------------------------------------------- invariants
def _block(env, name):
    for off, length, block, _ in env.observation_layout:
        if block == name:
            return off, length
    raise KeyError(name)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_invariants_hold_over_the_batch(name):
    game, rules = CONFIGS[name]
    env = V.UnoVectorEnv(game, 48, rules=rules, seed=1)
    obs, masks, seats = env.reset()
    n, k = env.num_players, env.game.num_kinds
    hand_off, _ = _block(env, "hand")
    acting_off, _ = _block(env, "acting")
    sizes_off, _ = _block(env, "hand_sizes")
    pol = V.RandomLegalPolicy(7)
    rng = np.random.default_rng(0)
    ends = 0
    for step in range(300):
        assert env.check_invariants().size == 0
        assert ((seats >= 0) & (seats < n)).all()
        assert (masks.sum(axis=1) > 0).all(), "a game's acting seat has no legal action"
        assert (obs[:, acting_off] == 1).all(), "the observation is not the acting seat's"
        st = BatchView(env.states)
        own = st.hand[np.arange(48), seats, :k]
        assert np.array_equal(obs[:, hand_off: hand_off + k], own)
        assert np.array_equal(obs[:, sizes_off], st.hand_n[np.arange(48), seats])
        if step % 25 == 0:  # the Python checker on a few games too
            for b in rng.choice(48, 4, replace=False):
                assert env.game.check_invariants(env.states[b]) == ""
                full = np.zeros(env.num_actions, np.int8)
                E.legal_mask(env.states[b], env.game.cfg, env.game.spec, env.game.dice, full)
                assert np.array_equal(full, masks[b])
        obs, masks, seats, rew, term, trunc, info = env.step(pol.act_batch(obs, masks))
        ended = term | trunc
        assert not (term & trunc).any()
        assert (rew[~ended] == 0).all() or rules.get("reward") == "points"
        if rules.get("reward") != "points":
            assert np.allclose(rew.sum(axis=1), 0.0, atol=1e-5)
        ends += int(ended.sum())
        assert (info["winner"][trunc] == -1).all()
        assert ((info["winner"][term] >= 0) & (info["winner"][term] < n)).all()
    assert ends > 0


# ---------------------------------------------------------------------------------------------- prefetch
def _trajectory_digest(env, steps: int) -> tuple[int, int]:
    """A digest of everything ``steps`` random-policy steps return, and how many episodes ended."""
    single = isinstance(env, V.UnoSingleAgentVectorEnv)
    out = env.reset()
    obs, masks = out[0], out[1]
    pol = V.RandomLegalPolicy(11)
    crc, ends = 0, 0
    for _ in range(steps):
        out = env.step(pol.act_batch(obs, masks))
        obs, masks, info = out[0], out[1], out[-1]
        term, trunc = out[-3], out[-2]
        for a in (*out[:-1], info["final_observation"], info["winner"], info["episode_turns"]):
            crc = zlib.crc32(np.ascontiguousarray(a).tobytes(), crc)
        ends += int((term | trunc).sum())
        assert single or env.check_invariants().size == 0
    return crc, ends


@pytest.mark.parametrize("name", list(CONFIGS))
def test_prefetching_changes_no_result(name):
    """The kernel's software prefetch (on for batches over ``PREFETCH_MIN_BYTES``, off below) only asks for memory
    early: forced on or off, 64 games give the same observations, masks, rewards and episode results."""
    game, rules = CONFIGS[name]
    runs = []
    for on in (False, True):
        env = V.UnoVectorEnv(game, 64, rules=rules, seed=3)
        env.prefetch = on
        runs.append(_trajectory_digest(env, 250))
    assert runs[0] == runs[1]
    assert runs[0][1] > 0, "no episode ended: the auto-reset path went untested"


def test_prefetching_changes_no_result_with_compiled_opponents():
    runs = []
    for on in (False, True):
        env = V.UnoSingleAgentVectorEnv("dice", 64, num_players=3, opponents=["heuristic", "greedy"], seed=4,
                                        learner_seat="random")
        env.prefetch = on
        runs.append(_trajectory_digest(env, 150))
    assert runs[0] == runs[1] and runs[0][1] > 0


def test_prefetch_is_on_only_for_batches_bigger_than_the_caches():
    small = V.UnoVectorEnv("classic", 64)
    per_game = small.states[0].nbytes + small.observations[0].nbytes + small.masks[0].nbytes
    assert small.prefetch is False
    edge = V.PREFETCH_MIN_BYTES // per_game
    assert V.UnoVectorEnv("classic", edge).prefetch is False
    assert V.UnoSingleAgentVectorEnv("classic", edge + 1).prefetch is True


# ---------------------------------------------------------------------------------------------- privacy
def _perturb_hidden(game, st: np.ndarray, viewer: int, rng: np.random.Generator) -> None:
    """Change what ``viewer`` may not know: card games, another seat's hand and the draw order; dice, the rolls."""
    n = game.num_players
    v = StateView(st)
    draw_n = v.draw_n
    if game.name == "dice":
        v.draw[:draw_n] = rng.permutation(v.draw[:draw_n])
        return
    others = [s for s in range(n) if s != viewer and v.hand_n[s] > 0]
    if others and draw_n > 0:
        o = others[rng.integers(len(others))]
        hand = v.hand[o, : game.num_kinds]
        give = rng.choice(np.flatnonzero(hand))
        j = rng.integers(draw_n)
        take = v.draw[j]
        hand[give] -= 1
        hand[take] += 1
        v.draw[j] = give
    v.draw[:draw_n] = rng.permutation(v.draw[:draw_n])


@pytest.mark.parametrize("name", ["classic2", "classic4-house", "pocket3", "dice4-bluff"])
def test_batched_observer_hides_what_the_seat_may_not_know(name):
    game, rules = CONFIGS[name]
    env = V.UnoVectorEnv(game, 32, rules=rules, seed=4)
    obs, masks, seats = env.reset()
    pol = V.RandomLegalPolicy(1)
    rng = np.random.default_rng(9)
    changed_other = 0
    for _round in range(6):
        for _ in range(7):
            obs, masks, seats, *_ = env.step(pol.act_batch(obs, masks))
        seen = env.observe(seats)
        assert np.array_equal(seen, obs)
        snap = env.snapshot()
        others = (seats + 1) % env.num_players
        before_other = env.observe(others)
        for b in range(32):
            _perturb_hidden(env.game, env.states[b], int(seats[b]), rng)
            assert env.game.check_invariants(env.states[b]) == ""
        env.prng_states[:] = rng.integers(0, 2**63, size=env.prng_states.shape, dtype=np.uint64)  # future draws/rolls
        assert np.array_equal(env.observe(seats), obs), "the acting seat's observation saw hidden information"
        changed_other += int((env.observe(others) != before_other).any(axis=1).sum())
        env.restore(snap)
        assert np.array_equal(env.observations, obs) and np.array_equal(env.masks, masks)
    if game != "dice":
        assert changed_other > 0, "the perturbation changed nothing: the test would prove nothing"


# ---------------------------------------------------------------------------------------------- bad input, API
def test_illegal_action_names_the_game_and_steps_no_game():
    env = V.UnoVectorEnv("classic", 8, seed=0)
    obs, masks, seats = env.reset()
    before = env.snapshot()
    actions = choose(obs, masks)
    illegal = int(np.flatnonzero(masks[5] == 0)[0])
    actions[5] = illegal
    with pytest.raises(uno_env.IllegalActionError, match=rf"illegal action {illegal} .* in game 5 "):
        env.step(actions)
    for a, b in zip(before, env.snapshot()):
        assert np.array_equal(a, b)
    actions[5] = env.num_actions
    with pytest.raises(uno_env.ActionOutOfRangeError, match="game 5 is out of range"):
        env.step(actions)
    actions[5] = -1
    with pytest.raises(ValueError, match="game 5"):
        env.step(actions)
    with pytest.raises(uno_env.ActionOutOfRangeError, match="8 integers"):
        env.step(actions[:7])
    with pytest.raises(uno_env.ActionOutOfRangeError):
        env.step(actions.astype(np.float64))
    for a, b in zip(before, env.snapshot()):
        assert np.array_equal(a, b)


def test_opponent_policy_illegal_action_is_reported():
    class Bad:
        def act_batch(self, observations, masks):
            return np.argmin(masks, axis=1)

    env = V.UnoSingleAgentVectorEnv("classic", 4, opponents=Bad(), learner_seat=1, seed=0)
    with pytest.raises(uno_env.IllegalActionError, match="opponent policy: illegal action"):
        env.reset()


def test_step_before_reset_and_bad_arguments():
    env = V.UnoVectorEnv("dice", 2)
    with pytest.raises(uno_env.OrderError):
        env.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="unknown game"):
        V.UnoVectorEnv("poker", 2)
    with pytest.raises(ValueError, match="num_envs"):
        V.UnoVectorEnv("classic", 0)
    with pytest.raises(ValueError, match="seeds"):
        env.reset(seeds=[1, 2, 3])
    with pytest.raises(ValueError, match="learner_seat"):
        V.UnoSingleAgentVectorEnv("classic", 2, learner_seat=2)
    with pytest.raises(TypeError, match="act_batch"):
        V.UnoSingleAgentVectorEnv("classic", 2, opponents=object())


def test_subset_step_moves_only_those_games():
    env = V.UnoVectorEnv("pocket", 6, num_players=3, seed=2)
    obs, masks, seats = env.reset()
    before = env.states.copy()
    rows = np.array([4, 1])
    acts = choose(obs[rows], masks[rows])
    env.step(acts, rows=rows)
    moved = (env.states != before).any(axis=1)
    assert moved.tolist() == [False, True, False, False, True, False]
    with pytest.raises(ValueError, match="distinct"):
        env.step(acts, rows=np.array([1, 1]))


def test_reset_reproduces_and_next_reset_moves_on():
    env = V.UnoVectorEnv("classic", 5)
    a = env.reset(seeds=123)[0].copy()
    b = env.reset(seeds=123 + np.arange(5))[0].copy()
    assert np.array_equal(a, b)
    seeds_first = env.episode_seed.copy()
    env.reset()
    assert (env.episode_index == 1).all()
    assert [int(x) for x in env.episode_seed] == [int(V.episode_seeds(123 + i, 2)[1]) for i in range(5)]
    assert (env.episode_seed != seeds_first).all()
    one = V.UnoVectorEnv("classic", 1)
    one.reset(seeds=[125])
    assert np.array_equal(one.observations[0], a[2])


@pytest.mark.parametrize("game,rules", [("dice", {"num_players": 3}), ("pocket", {"max_turns": 2})])
def test_snapshot_restore_replays_exactly(game, rules):
    """Rewinding replays the same futures, also past seed-list refills (``max_turns=2``: an episode every two
    steps, so 120 steps use more than one list of 32 episode seeds)."""
    env = V.UnoVectorEnv(game, 16, rules=rules, seed=8)
    obs, masks, seats = env.reset()
    pol = V.RandomLegalPolicy(3)
    for _ in range(5):
        obs, masks, *_ = env.step(pol.act_batch(obs, masks))
    snap = env.snapshot()
    acts, first = [], []
    for _ in range(120):
        acts.append(pol.act_batch(env.observations, env.masks))
        first.append(env.step(acts[-1])[0].copy())
    if "max_turns" in rules:
        assert env.episode_index.min() > V.SEEDS_PER_REFILL
    env.restore(snap)
    for a, o in zip(acts, first):
        assert np.array_equal(env.step(a)[0], o)


def test_random_policy_is_legal_and_uniform():
    pol = V.RandomLegalPolicy(0)
    masks = np.zeros((20000, 10), np.int8)
    masks[:, [2, 5, 7]] = 1
    acts = pol.act_batch(None, masks)
    assert set(np.unique(acts).tolist()) == {2, 5, 7}
    counts = np.bincount(acts, minlength=10)[[2, 5, 7]]
    assert (abs(counts - 20000 / 3) < 400).all()
    assert pol.act(None, masks[0].astype(bool)) in (2, 5, 7)
    with pytest.raises(ValueError, match="no legal action"):
        pol.act_batch(None, np.zeros((2, 10), np.int8))


# ---------------------------------------------------------------------------------------------- Gymnasium, SB3
def test_gymnasium_make_vec_vector_entry_point():
    gymnasium = pytest.importorskip("gymnasium")
    envs = gymnasium.make_vec("uno_env/Classic-v0", num_envs=8, vectorization_mode="vector_entry_point")
    assert isinstance(envs, gymnasium.vector.VectorEnv)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, info = envs.reset(seed=3)
    assert obs["observation"].shape == (8, envs.single_observation_space["observation"].shape[0])
    assert obs["action_mask"].shape == (8, envs.single_action_space.n)
    assert envs.observation_space.contains(obs)
    pol = V.RandomLegalPolicy(0)
    ended = 0
    for _ in range(3000):
        masks = envs.action_masks()
        assert masks.dtype == bool and np.array_equal(masks, obs["action_mask"].astype(bool))
        obs, rew, term, trunc, info = envs.step(pol.act_batch(obs["observation"], obs["action_mask"]))
        assert rew.shape == (8,) and term.dtype == bool
        if (term | trunc).any():
            assert np.array_equal(info["_final_obs"], term | trunc)
            assert info["final_obs"]["observation"].shape == obs["observation"].shape
            ended += int((term | trunc).sum())
    assert ended > 0
    envs.close()
    dice = gymnasium.make_vec("uno_env/Dice-v0", num_envs=3, vectorization_mode="vector_entry_point",
                              num_players=4, learner_seat="rotate")
    obs, _ = dice.reset(seed=0)
    assert dice.unwrapped.env.num_players == 4 and obs["observation"].shape[0] == 3


def test_sb3_vec_env_with_maskable_ppo():
    pytest.importorskip("stable_baselines3")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecEnv

    venv = V.make_sb3_vec_env("pocket", 16, seed=0, dict_obs=False)
    assert isinstance(venv, VecEnv) and is_masking_supported(venv)
    obs = venv.reset()
    assert get_action_masks(venv).shape == (16, venv.action_space.n)
    assert np.array_equal(venv.env_method("action_masks", indices=[3])[0], venv.action_masks()[3])
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, n_epochs=1, seed=0,
                                    policy_kwargs={"net_arch": [32]})
    model.learn(2048)
    assert len(model.ep_info_buffer) > 0
    venv.seed(5)
    obs = venv.reset()
    assert obs.shape == (16, venv.observation_space.shape[0])
    dvenv = V.make_sb3_vec_env("classic", 4, seed=0)
    obs = dvenv.reset()
    assert set(obs) == {"observation", "action_mask"}
