"""state()/state_space (global state for centralised critics), end-of-episode infos, and no reward_range."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import uno_env
from uno_env.gym_env import UnoGymEnv

from conftest import make_env, random_play, scenario

GAMES = ["classic", "pocket", "dice"]


@pytest.mark.parametrize("game", GAMES)
def test_state_is_in_state_space_and_follows_its_layout(game, rng):
    env = make_env(game, num_players=3)
    layout = env.state_layout
    assert [off for off, _, _, _ in layout] == list(np.cumsum([0] + [ln for _, ln, _, _ in layout])[:-1])
    assert layout[-1][0] + layout[-1][1] == env.state_space.shape[0]
    g = env.game
    for _ in random_play(env, rng, 300):
        s = env.state()
        assert s.dtype == np.float32 and env.state_space.contains(s)
        block = {name: s[off: off + ln] for off, ln, name, _ in layout}
        d = env.state_dict()
        for seat, hand in enumerate(d["hands"]):
            counts = block["hands"][seat * g.num_kinds: (seat + 1) * g.num_kinds]
            assert counts.sum() == len(hand)
            assert all(counts[g.kinds.index(name)] == hand.count(name) for name in hand)
        assert block["top"][g.kinds.index(d["top"])] == 1 and block["top"].sum() == 1
        if d["done"]:
            assert not block["current_seat"].any()
        else:
            assert block["current_seat"].argmax() == d["current_seat"] and block["current_seat"].sum() == 1
        drawn = block["drawn"]
        assert drawn.sum() == (d["phase"] == "drawn") and (not drawn.any() or drawn[g.kinds.index(d["drawn"])])
        assert np.allclose(block["scores"], np.asarray(d["scores"]) / g.rules.target_score)
        assert block["direction"][0] == d["direction"] and block["pending"][0] == d["pending_draw"]
        if game != "dice":
            for pile in ("draw_pile", "discard_pile"):
                counts = np.zeros(g.num_kinds)
                for name in d[pile]:
                    counts[g.kinds.index(name)] += 1
                assert np.array_equal(block[pile], counts)
        else:
            for i, die in enumerate(d["dice"]):
                loc = die["location"]
                assert block["bag"][i] == (loc == "bag") and block["centre_die"][i] == (loc == "centre")
                assert block["die_seat"][i * 3: i * 3 + 3].tolist() == [float(loc == s) for s in range(3)]


def test_state_sees_hidden_cards_the_observations_do_not():
    hands = [["red 1", "red 2"], ["blue 3", "blue 4"]]
    a = scenario("classic", hands=hands, top="red 5", draw=["green 1", "green 2"])
    hands_b = [["red 1", "red 2"], ["blue 3", "green 7"]]
    b = scenario("classic", hands=hands_b, top="red 5", draw=["green 1", "green 2"])
    # seat 0 cannot tell the two apart (same sizes, same public fields) ...
    assert np.array_equal(a.observe("player_0")["observation"], b.observe("player_0")["observation"])
    # ... the state can
    assert not np.array_equal(a.state(), b.state())
    b2 = scenario("classic", hands=hands, top="red 5", draw=["green 1", "green 2"])
    assert np.array_equal(a.state(), b2.state())


@pytest.mark.parametrize("game", GAMES)
def test_identical_states_give_identical_vectors(game, rng):
    a, b = make_env(game, seed=3), make_env(game, seed=3)
    other = np.random.default_rng(12345)
    for _ in zip(random_play(a, rng, 200), random_play(b, other, 200)):
        assert np.array_equal(a.state(), b.state())


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_state_test(game):
    import importlib
    import warnings

    # pettingzoo.test re-exports a function named state_test, which hides the module of that name
    pz = importlib.import_module("pettingzoo.test.state_test")

    env = uno_env.env(game, num_players=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pz.test_state_space(env)
        pz.test_state(env, num_cycles=50)
    assert not [w for w in caught if "tate" in str(w.message)], [str(w.message) for w in caught]


def test_state_before_reset_is_an_order_error():
    with pytest.raises(uno_env.OrderError, match="reset"):
        uno_env.raw_env("classic").state()


def _play_to_end(env, seed=0):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            return env
        assert info == {}  # nothing before the end
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env


@pytest.mark.parametrize("game", GAMES)
def test_infos_carry_winner_and_round_points_at_the_end(game):
    env = _play_to_end(uno_env.env(game, num_players=3))
    d = env.unwrapped.state_dict()
    assert d["done"] == "terminated"
    for agent in env.possible_agents:
        info = env.infos[agent]
        assert info["winner"] == d["match_winner"] == d["round_winner"]
        assert info["round_points"] == d["round_points"] == d["scores"][info["winner"]] > 0
        assert info["turns"] == d["turns"] and "scores" not in info
    assert env.cumulative_rewards[f"player_{d['match_winner']}"] == 1.0


def test_match_infos_carry_scores():
    env = uno_env.env("classic", rules={"episode": "match", "target_score": 60})
    _play_to_end(env)
    d = env.unwrapped.state_dict()
    for agent in env.possible_agents:
        assert env.infos[agent]["scores"] == d["scores"] and max(d["scores"]) >= 60
        assert env.infos[agent]["winner"] == int(np.argmax(d["scores"]))


def test_truncated_and_illegal_ends_have_no_winner():
    env = _play_to_end(uno_env.env("classic", rules={"max_turns": 5}))
    assert all(env.truncations.values()) and all(i["winner"] == -1 for i in env.infos.values())
    env = uno_env.env("classic")
    env.reset(seed=0)
    bad = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    acting = env.agent_selection
    env.step(bad)  # PettingZoo's logger warns
    assert all(i["winner"] == -1 and i["illegal_action"] == acting for i in env.infos.values())
    env.reset(seed=1)
    assert all(i == {} for i in env.infos.values())


def test_gym_info_at_the_end_and_no_reward_range():
    env = UnoGymEnv("classic", opponents="random")
    assert "reward_range" not in vars(env) and "reward_range" not in vars(env.game)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        _, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if term or trunc:
            break
        assert "winner" not in info
    assert info["winner"] in (0, 1) and info["round_points"] > 0 and (reward > 0) == (info["winner"] == 0)


# ---------------------------------------------------------------------------------------------- flat observations
@pytest.mark.parametrize("game", ["Classic", "Pocket", "Dice"])
def test_flat_obs_passes_check_env_and_matches_the_dict(game):
    from gymnasium.utils.env_checker import check_env

    flat = gymnasium.make(f"uno_env/{game}-v0", flat_obs=True, opponents="heuristic")
    check_env(flat.unwrapped, skip_render_check=True)
    full = gymnasium.make(f"uno_env/{game}-v0", opponents="heuristic")
    assert flat.observation_space == full.observation_space["observation"]
    (fo, fi), (do, di) = flat.reset(seed=4), full.reset(seed=4)
    for _ in range(30):
        assert isinstance(fo, np.ndarray) and np.array_equal(fo, do["observation"])
        assert np.array_equal(fi["action_mask"], do["action_mask"])
        assert np.array_equal(flat.unwrapped.action_masks(), do["action_mask"] != 0)
        a = int(np.flatnonzero(fi["action_mask"])[-1])
        fo, _, term, trunc, fi = flat.step(a)
        do, _, _, _, di = full.step(a)
        if term or trunc:
            break


def test_flat_obs_make_vec():
    venv = gymnasium.make_vec("uno_env/Classic-v0", num_envs=3, vectorization_mode="vector_entry_point",
                              flat_obs=True, seed=0)
    obs, infos = venv.reset(seed=0)
    assert obs.shape == (3, venv.single_observation_space.shape[0]) and venv.observation_space.contains(obs)
    assert np.array_equal(infos["action_mask"] != 0, venv.action_masks())
    for _ in range(5):
        actions = np.array([np.flatnonzero(m)[0] for m in infos["action_mask"]])
        obs, _, _, _, infos = venv.step(actions)
        assert venv.observation_space.contains(obs) and np.array_equal(infos["action_mask"] != 0,
                                                                       venv.action_masks())
    with pytest.raises(TypeError, match="flat_obs"):
        gymnasium.make_vec("uno_env/Classic-v0", num_envs=2, vectorization_mode="vector_entry_point", flat_obs=1)
