"""Hand edits, broken steps and odd arguments never reach compiled code or leave an env half-changed.

Each test is a case an audit found to crash the process, corrupt a state or be silently fixed up: an edited row
stepped without a check, an opponent policy failing after the learners moved, counters too large for their
arithmetic, seeds checked only when first used.
"""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import uno_env
from uno_env import _threads
from uno_env.aec import ActionOutOfRangeError, OrderError
from uno_env.vector import RandomLegalPolicy, UnoSingleAgentVectorEnv, UnoVectorEnv


def _first_legal(masks: np.ndarray) -> np.ndarray:
    return np.array([np.flatnonzero(m)[0] for m in masks])


def _same(a: tuple, b: tuple) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b))


# ------------------------------------------------------------------------------------------------ AEC
def test_aec_an_edited_row_out_of_range_is_refused_until_fixed():
    env = uno_env.raw_env("classic")
    env.reset(seed=1)
    draw_n = env.game_state.draw_n
    env.game_state.draw_n = -30000
    with pytest.raises(ValueError, match="draw_n"):
        env.sync_state()
    # not synced, not fixed: every call that would run compiled code on it refuses
    with pytest.raises(ValueError, match="draw_n"):
        env.step(0)
    with pytest.raises(ValueError, match="draw_n"):
        env.observe("player_0")
    with pytest.raises(ValueError, match="draw_n"):
        env.state()
    env.game_state.draw_n = draw_n
    env.sync_state()
    env.step(int(np.flatnonzero(env.action_mask())[0]))


def test_aec_an_edit_without_sync_state_is_checked_and_read_at_the_next_step():
    env = uno_env.raw_env("classic", num_players=3)
    env.reset(seed=2)
    other = (env.game_view.cur + 1) % 3
    env.game_state.cur = other  # a valid edit, sync_state() forgotten
    obs = env.observe(f"player_{other}")
    assert env.agent_selection == f"player_{other}" and obs["action_mask"].any()


def test_aec_game_view_is_a_copy_that_marks_nothing():
    env = uno_env.raw_env("classic")
    env.reset(seed=3)
    view = env.game_view
    view.draw_n = -30000  # writes go to the copy only
    assert env.game_view.draw_n != -30000
    env.step(int(np.flatnonzero(env.action_mask())[0]))


def _finish(env) -> None:
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(int(np.flatnonzero(env.action_mask())[0]))


def test_aec_a_partial_edit_that_restarts_a_finished_game_rebuilds_the_shell():
    env = uno_env.raw_env("classic", rules={"max_turns": 3})
    env.reset(seed=1)
    _finish(env)
    assert all(env.truncations.values())
    env.load_state_dict({"done": "", "phase": "turn"})
    assert not any(env.truncations.values()) and not any(env.terminations.values())
    assert env.agents == env.possible_agents
    env.step(int(np.flatnonzero(env.action_mask())[0]))
    # and the other way: an edit that ends a running game ends it for the shell too
    env.reset(seed=1)
    env.load_state_dict({"done": "truncated", "phase": "over"})
    assert all(env.truncations.values()) and not env.action_mask().any()
    with pytest.raises(OrderError):
        env.step(0)


def test_aec_order_errors_before_reset_and_after_every_agent_left():
    env = uno_env.raw_env("classic")
    with pytest.raises(OrderError):
        list(env.agent_iter(2))
    with pytest.raises(OrderError):
        env.action_mask()
    env = uno_env.raw_env("classic", rules={"max_turns": 3})
    env.reset(seed=1)
    _finish(env)
    while env.agents:
        env.step(None)
    with pytest.raises(OrderError, match="removed"):
        env.last()


@pytest.mark.parametrize("key, value", [("rewards", 10**400), ("infos", {"x": object()})])
def test_aec_a_shell_value_json_cannot_hold_is_refused_and_nothing_changes(key, value):
    env = uno_env.raw_env("classic")
    env.reset(seed=4)
    d = env.state_dict()
    before = env.state_dict()
    d["env"][key]["player_0"] = value
    with pytest.raises(ValueError, match=f"env.{key}"):
        env.load_state_dict(d)
    assert env.state_dict() == before


def test_aec_called_uno_takes_booleans_not_floats():
    env = uno_env.raw_env("classic")
    env.reset(seed=5)
    with pytest.raises(ValueError, match="called_uno"):
        env.load_state_dict({"called_uno": [1.0, 0.0]})
    env.load_state_dict({"called_uno": [False, 0]})


# ------------------------------------------------------------------------------------------------ vector
def test_vector_a_refused_refresh_keeps_refusing_steps_until_reset():
    env = UnoVectorEnv("classic", num_envs=2, seed=0, num_threads=1)
    env.reset()
    env.state_view.cur[:] = 30000
    with pytest.raises(ValueError, match="cur"):
        env.refresh()
    with pytest.raises(ValueError, match="cur"):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="cur"):
        env.observe(0)
    env.reset()
    env.step(_first_legal(env.masks))


def test_vector_rows_edited_without_refresh_are_checked_and_nothing_is_stepped():
    env = UnoVectorEnv("classic", num_envs=3, seed=0, num_threads=1)
    env.reset()
    env.step(_first_legal(env.masks))
    actions = _first_legal(env.masks)
    env.states[1, 0] = 30000  # the row's first entry is the seat to act
    snap = env.snapshot()
    with pytest.raises(ValueError, match="game 1"):
        env.step(actions)
    assert _same(snap, env.snapshot())


def test_vector_a_valid_edit_without_refresh_is_read_before_the_step():
    env = UnoVectorEnv("classic", num_envs=2, num_players=3, seed=0, num_threads=1)
    env.reset()
    seat = (env.seats[0] + 1) % 3
    env.state_view.cur[0] = seat  # refresh() forgotten
    env.observe(0)  # checks the rows and recomputes seats, masks and observations first
    assert env.seats[0] == seat
    env.step(_first_legal(env.masks))
    assert env.check_invariants().size == 0


def test_vector_seed_blocks_too_large_for_the_episode_index_are_refused_and_nothing_changes():
    env = UnoVectorEnv("classic", num_envs=4, seed=0, num_threads=1)
    env.reset()
    d = env.state_dict(1)
    d["env"]["seed_blocks"] = 2**62
    snap = env.snapshot()
    with pytest.raises(ValueError, match="seed_blocks"):
        env.load_state_dict(1, d)
    assert _same(snap, env.snapshot())


class _FailsOnSecondCall:
    calls = 0

    def act_batch(self, observations, masks):
        self.calls += 1
        if self.calls == 2:
            raise RuntimeError("policy crashed")
        return _first_legal(masks)


def test_single_agent_an_opponent_failing_after_the_learners_moved_stops_the_env_until_reset():
    env = UnoSingleAgentVectorEnv("classic", num_envs=4, opponents=_FailsOnSecondCall(), seed=0, num_threads=1)
    env.reset()
    env.step(_first_legal(env.masks))
    with pytest.raises(RuntimeError, match="policy crashed"):
        env.step(_first_legal(env.masks))
    with pytest.raises(OrderError, match="reset"):  # the learners' next actions would go to the opponents' seats
        env.step(_first_legal(env.masks))
    env.reset()
    env.step(_first_legal(env.masks))
    assert (env.seats == env.learner_seat).all()


class _Returns:
    def __init__(self, shift: float, shape: tuple | None = None):
        self.shift, self.shape = shift, shape

    def act_batch(self, observations, masks):
        out = _first_legal(masks) + self.shift
        return out.reshape(self.shape) if self.shape else out


@pytest.mark.parametrize("policy, error", [(_Returns(0.7), TypeError), (_Returns(0, (-1, 1)), TypeError),
                                           (_Returns(10_000), ActionOutOfRangeError)])
def test_single_agent_an_opponent_s_bad_actions_are_refused_not_truncated(policy, error):
    env = UnoSingleAgentVectorEnv("classic", num_envs=4, opponents=policy, seed=0, num_threads=1)
    env.reset()
    with pytest.raises(error) as info:
        env.step(_first_legal(env.masks))
    assert "no game was stepped" not in str(info.value)


@pytest.mark.parametrize("seed", [-1, 1.5, True, 2**64, "abc", 2**64 - 2])
def test_vector_seed_is_checked_when_the_env_is_made(seed):
    with pytest.raises((TypeError, ValueError), match="seed"):
        UnoVectorEnv("classic", num_envs=4, seed=seed)


def test_thread_counts_are_bounded(monkeypatch):
    with pytest.raises(ValueError, match="num_threads"):
        UnoVectorEnv("classic", num_envs=4, num_threads=10**6)
    monkeypatch.setenv(_threads.ENV_VAR, str(10**6))
    with pytest.raises(ValueError, match=_threads.ENV_VAR):
        UnoVectorEnv("classic", num_envs=4)


def test_vector_actions_bools_and_huge_unsigned_values_are_refused_by_their_value():
    env = UnoVectorEnv("classic", num_envs=4, seed=0, num_threads=1)
    env.reset()
    with pytest.raises(ActionOutOfRangeError, match="True/False"):
        env.step([True, 3, 4, 5])
    with pytest.raises(ActionOutOfRangeError, match=str(2**63)):
        env.step(np.array([2**63, 1, 1, 1], dtype=np.uint64))


def test_learner_seats_of_the_wrong_length_are_named():
    with pytest.raises(ValueError, match="learner_seat"):
        UnoSingleAgentVectorEnv("classic", num_envs=4, learner_seat=[0, 1])


@pytest.mark.parametrize("seed", [1.5, True, 2**64, "x", -1])
def test_random_legal_policy_seeds_are_checked(seed):
    with pytest.raises((TypeError, ValueError), match="seed"):
        RandomLegalPolicy(seed)


def test_random_legal_policy_masks_hold_zeros_and_ones_only():
    with pytest.raises(ValueError, match="0 and 1"):
        RandomLegalPolicy(0).act_batch(None, np.array([[256, 1]], dtype=np.int64))
    assert RandomLegalPolicy(0).act_batch(None, np.array([[0, 1]], dtype=np.int64))[0] == 1


def test_gymnasium_vector_reset_takes_a_list_of_seeds():
    env = gymnasium.make_vec("uno_env/Classic-v0", num_envs=3, vectorization_mode="vector_entry_point")
    listed, _ = env.reset(seed=[5, 6, 7])
    one, _ = env.reset(seed=np.int64(5))
    assert np.array_equal(listed["observation"], one["observation"])
    other, _ = env.reset(seed=[6, 6, 7])
    assert np.array_equal(other["observation"][1:], one["observation"][1:])
    assert np.array_equal(other["observation"][0], one["observation"][1])


def test_sb3_vec_env_a_refused_seed_does_not_stick():
    pytest.importorskip("stable_baselines3")
    from uno_env.vector import make_sb3_vec_env

    with pytest.raises(TypeError, match="dict_obs"):
        make_sb3_vec_env("classic", 2, dict_obs="no")
    env = make_sb3_vec_env("classic", 2)
    env.seed(2**64)
    with pytest.raises(ValueError, match="seed"):
        env.reset()
    env.reset()  # the refused seed is gone
    env.seed(3)
    first = env.reset()["observation"]
    env.seed(3)
    assert np.array_equal(env.reset()["observation"], first)
