"""The OpenSpiel games (uno_env.openspiel): the same games as the AEC environment, OpenSpiel's API kept, bad input
refused with the state intact, resampling consistent with what the seat sees, and OpenSpiel's own ISMCTS playing."""
from __future__ import annotations

import base64
import copy
import pickle
import random

import numpy as np
import pytest

import uno_env

pyspiel = pytest.importorskip("pyspiel")
uno_openspiel = pytest.importorskip("uno_env.openspiel")

TABLES = [("classic", 2, "standard"), ("classic", 4, "official"), ("classic", 3, "rlcard"), ("pocket", 2, "standard"),
          ("pocket", 5, "standard"), ("dice", 2, "standard"), ("dice", 4, "standard")]


def load(game: str, players: int = 2, rules: str = "standard"):
    return pyspiel.load_game(f"uno_env_{game}(players={players},rules={rules})")


def play_random(state, rng: random.Random, max_steps: int = 100_000) -> None:
    for _ in range(max_steps):
        if state.is_terminal():
            return
        state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError("the game did not end")


def test_the_three_games_are_registered_with_their_parameters():
    names = set(pyspiel.registered_names())
    assert {"uno_env_classic", "uno_env_pocket", "uno_env_dice"} <= names
    game = pyspiel.load_game("uno_env_pocket(players=3)")
    assert game.get_parameters() == {"players": 3, "rules": "standard"}
    assert game.num_players() == 3
    env = uno_env.raw_env("pocket", num_players=3)
    assert game.num_distinct_actions() == env.game.num_actions
    assert game.observation_tensor_shape() == [env.game.obs_dim]
    assert game.action_names == env.game.action_names
    gtype = game.get_type()
    assert gtype.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert gtype.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert gtype.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert gtype.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert not gtype.provides_information_state_string and gtype.provides_observation_string
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-0.5, 1.0, 0.0)
    assert game.max_game_length() == 5000


def test_a_points_match_is_general_sum_and_its_returns_are_the_environments(tmp_path):
    rules = tmp_path / "points_match.yaml"
    rules.write_text("game: classic\nnum_players: 3\nepisode: match\nreward: points\ntarget_score: 300\n")
    game = pyspiel.load_game(f"uno_env_classic(rules={rules})")  # the file's three players
    assert game.num_players() == 3 and game.get_parameters()["players"] == 3
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert game.get_type().reward_model == pyspiel.GameType.RewardModel.REWARDS  # paid every round
    env = uno_env.raw_env("classic", num_players=3, rules=str(rules))
    rng = random.Random(0)
    for seed in range(3):
        env.reset(seed=seed)
        state = game.new_initial_state(seed)
        paid_before_the_end = False
        returns = np.zeros(3)
        while not state.is_terminal():
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            env.step(action)
            returns += [env.rewards[a] for a in env.possible_agents]
            paid_before_the_end |= any(state.rewards()) and not state.is_terminal()
        assert state.returns() == pytest.approx(returns.tolist())
        assert all(game.min_utility() <= r <= game.max_utility() for r in state.returns())
    assert paid_before_the_end  # a match pays every round: rewards, not only returns at the end


@pytest.mark.parametrize("name, message", [
    ("uno_env_classic(players=11)", "num_players"),
    ("uno_env_classic(players=1)", "num_players"),
    ("uno_env_dice(players=5)", "num_players"),
    ("uno_env_pocket(rules=official)", "unknown preset 'official'"),
    ("uno_env_classic(seed=2)", "Unknown parameter 'seed'"),
    ("uno_env_classic(rules=3)", "Wrong type for parameter rules"),
    ("uno_env_classic(colour=red)", "Unknown parameter 'colour'"),
])
def test_bad_parameters_are_named(name, message):
    with pytest.raises((ValueError, TypeError, pyspiel.SpielError), match=message):
        pyspiel.load_game(name)


@pytest.mark.parametrize("game, players, rules", TABLES)
def test_a_trajectory_is_the_aec_environments_step_for_step(game, players, rules):
    """Seeded alike, the OpenSpiel state and the AEC env show every seat the same observation, the same legal actions,
    rewards and end, whatever the actions."""
    rng = random.Random(players)
    for seed in (3, 11):
        env = uno_env.raw_env(game, num_players=players, rules=rules)
        env.reset(seed=seed)
        state = load(game, players, rules).new_initial_state(seed)
        returns = np.zeros(players)
        for _ in range(6000):  # max_turns is 5000
            for seat, agent in enumerate(env.possible_agents):
                np.testing.assert_array_equal(np.asarray(state.observation_tensor(seat), dtype=np.float32),
                                              env.observe(agent)["observation"])
            if state.is_terminal():
                break
            assert env.agent_selection == f"player_{state.current_player()}"
            legal = state.legal_actions()
            assert legal == np.flatnonzero(env.action_mask()).tolist()
            action = rng.choice(legal)
            state.apply_action(action)
            env.step(action)
            rewards = [env.rewards[a] for a in env.possible_agents]
            assert state.rewards() == pytest.approx(rewards)
            returns += rewards
            assert state.returns() == pytest.approx(returns.tolist())
        assert state.is_terminal()
        assert all(env.terminations.values()) or all(env.truncations.values())
        assert state.current_player() == pyspiel.PlayerId.TERMINAL and state.legal_actions() == []


def test_the_deal_is_four_chance_bytes_and_is_the_environments_seeded_deal():
    game = load("classic", 3)
    state = game.new_initial_state()
    deal = 0x01020304
    for byte in (1, 2, 3, 4):
        assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
        assert state.chance_outcomes() == [(b, 1 / 256) for b in range(256)]
        assert state.observation_tensor(0) == [0.0] * game.observation_tensor_size()  # nothing dealt, nothing seen
        with pytest.raises(ValueError, match=r"chance outcome 256 is out of range \[0, 256\)"):
            state.apply_action(256)
        state.apply_action(byte)
    assert not state.is_chance_node()
    env = uno_env.raw_env("classic", num_players=3)
    env.reset(seed=deal)
    for seat in range(3):
        np.testing.assert_array_equal(np.asarray(state.observation_tensor(seat), dtype=np.float32),
                                      env.observe(f"player_{seat}")["observation"])
    shortcut = game.new_initial_state(deal)
    assert shortcut.history() == state.history() == [1, 2, 3, 4]
    assert shortcut.observation_string(2) == state.observation_string(2)
    with pytest.raises(ValueError, match=r"deal must be an int in \[0, 2\*\*32\)"):
        game.new_initial_state(2**32)
    with pytest.raises(ValueError, match="nothing is dealt yet"):
        game.new_initial_state().resample_from_infostate(0, random.Random(0))


def test_openspiel_samples_the_deals():
    """OpenSpiel's own chance sampling deals: different deals, the same ones again from the same seed."""
    from open_spiel.python import rl_environment

    def first_observations(seed):
        env = rl_environment.Environment(load("pocket"),
                                         chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed),
                                         observation_type=rl_environment.ObservationType.OBSERVATION)
        return [tuple(env.reset().observations["info_state"][0]) for _ in range(4)]

    a, b = first_observations(1), first_observations(1)
    assert a == b and len(set(a)) == 4 and first_observations(2) != a


def test_a_clone_is_independent():
    state = load("pocket", 3).new_initial_state(5)
    before = state.observation_string(0)
    copy_ = state.clone()
    copy_.apply_action(copy_.legal_actions()[-1])
    assert state.observation_string(0) == before and len(state.history()) == 4
    assert copy_.history()[:4] == state.history() and len(copy_.history()) == 5


@pytest.mark.parametrize("bad, error", [(10_000, ValueError), (-2, ValueError), (2**40, ValueError),
                                        (-1, pyspiel.SpielError)])  # -1 is OpenSpiel's kInvalidAction: it refuses it
def test_a_bad_action_raises_and_leaves_the_state_as_it_was(bad, error):
    state = load("classic").new_initial_state(1)
    snapshot = (state.observation_tensor(0), state.observation_tensor(1), state.legal_actions(), state.history())
    with pytest.raises(error, match="out of range|kInvalidAction"):
        state.apply_action(bad)
    illegal = next(a for a in range(state.num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises(ValueError, match="is not legal for player"):
        state.apply_action(illegal)
    assert (state.observation_tensor(0), state.observation_tensor(1), state.legal_actions(),
            state.history()) == snapshot


def test_a_finished_game_takes_no_action():
    state = load("dice").new_initial_state(2)
    play_random(state, random.Random(0))
    with pytest.raises(ValueError, match="the game is over"):
        state.apply_action(0)


@pytest.mark.parametrize("game, players, rules", TABLES)
def test_a_resample_is_what_the_seat_sees_and_redraws_the_rest(game, players, rules):
    """Every sample shows the resampling seat exactly its observation; what it cannot see changes: the other hands
    (card games) and the future draws or rolls (the same actions then lead to different games)."""
    rng = random.Random(5)
    state = load(game, players, rules).new_initial_state(4)
    for _ in range(12):
        state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal():
            break
    assert not state.is_terminal()
    sampler = pyspiel.UniformProbabilitySampler(3, 0.0, 1.0)
    for player in range(players):
        others_seen, futures = set(), set()
        for _ in range(20):
            sample = state.resample_from_infostate(player, sampler)
            assert sample.observation_string(player) == state.observation_string(player)
            assert sample.observation_tensor(player) == state.observation_tensor(player)
            assert sample.current_player() == state.current_player()
            if player == state.current_player():
                assert sample.legal_actions() == state.legal_actions()
            assert sample.returns() == state.returns()
            others_seen.add(sample.observation_string((player + 1) % players))
            play_random(sample, random.Random(0))  # the same random choices from every sample
            futures.add((tuple(sample.history()), tuple(sample.returns())))
        if game != "dice":  # a card game hides the other hands; in UNO Dice every die on the table is public
            assert len(others_seen) > 1
        assert len(futures) > 1


@pytest.mark.parametrize("game, players, rules", TABLES)
def test_what_a_seat_sees_never_changes_with_what_it_cannot_see_in_any_phase(game, players, rules):
    """At every decision of a game, whatever phase it is in, a state resampled for a seat (its hidden part redrawn)
    gives that seat the same observation and, when it acts, the same legal actions and the same turn."""
    rng = random.Random(players)
    sampler = random.Random(1)
    state = load(game, players, rules).new_initial_state(6)
    phases = set()
    for _ in range(300):
        if state.is_terminal():
            break
        acting = state.current_player()
        phases.add(state.observation_string(acting).split("phase[", 1)[1].split("]", 1)[0])
        for player in {acting, (acting + 1) % players}:
            sample = state.resample_from_infostate(player, sampler)
            assert sample.observation_string(player) == state.observation_string(player)
            assert sample.current_player() == acting
            if player == acting:
                assert sample.legal_actions() == state.legal_actions()
        state.apply_action(rng.choice(state.legal_actions()))
    assert len(phases) >= 2  # more than the plain turn was seen


def test_resampling_is_repeatable_with_a_seeded_sampler_and_refuses_bad_samplers():
    state = load("classic", 3).new_initial_state(8)
    state.apply_action(state.legal_actions()[0])
    a = [state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)).observation_string(1)
         for _ in range(3)]
    b = [state.resample_from_infostate(0, random.Random(7)).observation_string(1) for _ in range(2)]
    assert a[0] == a[1] == a[2] and b[0] == b[1]
    with pytest.raises(TypeError, match="sampler must be callable"):
        state.resample_from_infostate(0, 3)
    with pytest.raises(ValueError, match=r"floats in \[0, 1\)"):
        state.resample_from_infostate(0, lambda: 1.0)
    with pytest.raises(ValueError, match=r"player must be an int in \[0, 3\)"):
        state.resample_from_infostate(3, random.Random(0))


def test_observation_strings_tell_observations_apart():
    game = load("classic", 2)
    seen: dict[str, tuple] = {}
    rng = random.Random(1)
    for seed in range(3):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            for player in range(2):
                key, tensor = state.observation_string(player), tuple(state.observation_tensor(player))
                assert seen.setdefault(key, tensor) == tensor
            state.apply_action(rng.choice(state.legal_actions()))
    assert len(seen) > 100


def test_information_states_are_refused_with_the_reason():
    state = load("classic").new_initial_state(0)
    with pytest.raises(ValueError, match="There is no information state"):
        state.information_state_string(0)
    with pytest.raises(ValueError, match="take no parameters"):
        load("classic").make_py_observer(None, {"x": 1})


def test_states_copy_pickle_and_serialize():
    game = load("pocket", 2)
    state = game.new_initial_state(3)
    state.apply_action(state.legal_actions()[0])
    _, restored = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    for copied in (restored, copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        assert copied.history() == state.history()
        for player in range(2):
            assert copied.observation_string(player) == state.observation_string(player)
        rng = random.Random(0)
        play_random(copied, rng)  # the same random stream too: the same actions give the same game
        original = state.clone()
        rng = random.Random(0)
        play_random(original, rng)
        assert copied.history() == original.history() and copied.returns() == original.returns()


def test_openspiels_ismcts_plays_a_game():
    from open_spiel.python.algorithms import ismcts, mcts

    game = load("dice", 2)
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, max_simulations=20, random_state=rng,
                           use_observation_string=True)
    state = game.new_initial_state(1)
    moves = 0
    while not state.is_terminal():
        if state.current_player() == 0:
            action = bot.step(state)
        else:
            action = random.Random(moves).choice(state.legal_actions())
        state.apply_action(action)
        moves += 1
    assert sorted(state.returns()) == [-1.0, 1.0]


def test_openspiels_mcts_bot_and_evaluate_bots_play_a_game():
    from open_spiel.python.algorithms import evaluate_bots, mcts

    game = load("pocket")
    bot = mcts.MCTSBot(game, 2.0, 10, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                       random_state=np.random.RandomState(0))
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), [bot, pyspiel.make_uniform_random_bot(1, 0)],
                                          np.random.RandomState(1))
    assert sorted(returns) == [-1.0, 1.0]


def test_openspiels_rl_environment_runs_a_game():
    from open_spiel.python import rl_environment

    # no information state: rl_environment gives its agents the observation tensor by itself
    env = rl_environment.Environment(load("classic", 2), chance_event_sampler=rl_environment.ChanceEventSampler(2))
    step = env.reset()
    rng = random.Random(0)
    total = np.zeros(2)
    while not step.last():
        player = step.observations["current_player"]
        assert len(step.observations["info_state"][player]) == env.observation_spec()["info_state"][0]
        step = env.step([rng.choice(step.observations["legal_actions"][player])])
        total += step.rewards
    assert sorted(total.tolist()) == [-1.0, 1.0]


def test_a_sampled_state_copies_and_deserializes_though_it_has_no_history():
    game = load("dice", 3)
    state = game.new_initial_state(4)
    for _ in range(5):
        state.apply_action(state.legal_actions()[-1])
    sample = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(7, 0.0, 1.0))
    assert sample.history() == []
    _, restored = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, sample))
    for copied in (restored, copy.deepcopy(sample), pickle.loads(pickle.dumps(sample)), sample.clone()):
        assert copied.legal_actions() == sample.legal_actions() and copied.returns() == sample.returns()
        assert [copied.observation_string(p) for p in range(3)] == [sample.observation_string(p) for p in range(3)]


def test_a_serialized_state_with_an_attribute_of_another_version_is_refused():
    game = load("classic")
    state = game.new_initial_state(3)
    text = pyspiel.serialize_game_and_state(game, state)
    head, _, encoded = text.rpartition("__dict__=")
    attrs = pickle.loads(base64.b64decode(encoded))
    for extra in ({"_mask": np.ones(game.num_distinct_actions(), dtype=np.int8)}, {"_row": None}):
        blob = base64.b64encode(pickle.dumps({**attrs, **extra})).decode()
        with pytest.raises(ValueError, match="one attribute"):
            pyspiel.deserialize_game_and_state(head + "__dict__=" + blob)
