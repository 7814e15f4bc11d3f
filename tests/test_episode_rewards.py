"""A single-agent step's reward and infos belong to one episode of the learner's.

When a game ends, the single-agent faces deal the next episode and let the opponents play until the learner's turn.
What happens there belongs to the new episode: a deal that ends before the learner acts is replaced, unscored (in
the batch as in the Gymnasium env), and a round scored before the learner's first action (match mode) is paid with
that action, not added to the step that ended the previous episode nor dropped.
"""
from __future__ import annotations

import numpy as np
import pytest

from uno_env.gym_env import UnoGymEnv
from uno_env.vector import UnoSingleAgentVectorEnv


def test_batch_terminal_rewards_and_infos_are_the_learners_episode_only():
    # seed 0 reaches, at step 419, a deal that the heuristic wins before the learner's first action
    env = UnoSingleAgentVectorEnv("dice", num_envs=1, num_players=2, opponents="heuristic", learner_seat=1, seed=0,
                                  num_threads=1)
    obs, masks = env.reset()
    skipped = 0
    for _ in range(1000):
        episode = int(env.episode_index[0])
        obs, masks, reward, terminated, truncated, info = env.step([int(np.flatnonzero(masks[0])[0])])
        if terminated[0]:
            assert reward[0] in (1.0, -1.0)
            assert info["episode"][0] == episode  # not the void deal's
            skipped += int(env.episode_index[0]) - episode - 1
        else:
            assert reward[0] == 0.0 and not truncated[0]
    assert skipped >= 1  # the case this test is about happened


def test_batch_state_dict_carries_a_reward_earned_before_the_learner_acted():
    rules = {"episode": "match", "reward": "points", "target_score": 100_000, "max_turns": 200}
    env = UnoSingleAgentVectorEnv("dice", num_envs=16, num_players=2, rules=rules, opponents="heuristic",
                                  learner_seat=1, seed=0, num_threads=1)
    obs, masks = env.reset()
    carried = [b for b in range(16) if env.state_dict(b)["env"]["carried_reward"] != 0.0]
    for _ in range(400):
        if carried:
            break
        obs, masks, *_ = env.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        carried = [b for b in range(16) if env.state_dict(b)["env"]["carried_reward"] != 0.0]
    assert carried, "no round was scored before a learner's first action"
    b = carried[0]
    d = env.state_dict(b)
    twin = UnoSingleAgentVectorEnv("dice", num_envs=16, num_players=2, rules=rules, opponents="heuristic",
                                   learner_seat=1, seed=5, num_threads=1)
    twin.reset()
    twin.load_state_dict(b, d)
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    twin_actions = np.array([np.flatnonzero(m)[0] for m in twin.masks])
    twin_actions[b] = actions[b]
    reward = env.step(actions)[2][b]
    assert reward != 0.0 or d["env"]["carried_reward"] == 0.0
    assert twin.step(twin_actions)[2][b] == reward  # the carry was saved and paid the same


def test_gymnasium_env_pays_a_round_scored_before_the_learner_acted():
    target = 100_000
    env = UnoGymEnv("dice", num_players=2, rules=dict(episode="match", reward="points", target_score=target,
                                                      max_turns=200), opponents="heuristic", learner_seat=1)
    obs, info = env.reset(seed=28)  # the heuristic wins round 1 before the learner's first action
    assert env.state_dict()["scores"][0] > 0
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        total += reward
        done = terminated or truncated
    scores = info["scores"]
    assert np.isclose(total, (scores[1] - scores[0]) / target, atol=1e-6)


def test_gymnasium_random_seat_is_redrawn_when_its_deals_end_before_it_acts():
    env = UnoGymEnv("classic", num_players=5, rules={"max_turns": 1}, learner_seat="random")
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        assert obs["action_mask"].any()


def _trajectory(env, steps: int) -> list:
    obs, masks = env.reset(seeds=list(range(env.num_envs)))
    out = []
    for _ in range(steps):
        obs, masks, reward, terminated, truncated, info = env.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        out.append((reward.copy(), terminated.copy(), truncated.copy(), env.episode_index.copy(), obs.copy(),
                    np.array([env.state_dict(b)["env"]["carried_reward"] for b in range(env.num_envs)])))
    return out


@pytest.mark.parametrize("case", ["void deals", "carried rewards"])
def test_batch_accounting_is_the_same_whether_opponents_play_in_the_kernel_or_around_it(case):
    """The kernel keeps the rewards before a learner's first action, and voids a deal that ends before it, alike
    when it plays the opponents through (compiled opponents), when it stops at each episode's start for a sampler
    to draw them, and when it stops at each opponent's move (a policy played from Python)."""
    from uno_env.agents.policy import compiled_heuristic

    rules = {"episode": "match", "reward": "points", "target_score": 300, "max_turns": 300} \
        if case == "carried rewards" else None

    def make():
        return UnoSingleAgentVectorEnv("dice", num_envs=16, num_players=2, rules=rules, opponents="heuristic",
                                       learner_seat=1, num_threads=1)

    in_kernel = _trajectory(make(), 400)
    if case == "void deals":
        assert sum(int((b[3] - a[3] > 1).sum()) for a, b in zip(in_kernel, in_kernel[1:]))
    else:
        assert sum(int(np.count_nonzero(step[5])) for step in in_kernel)
    sampled = make()
    sampled.set_opponent_pool(["heuristic"], sampler=lambda games, env: np.zeros((games.size, 1), dtype=np.int64))
    around = make()
    advice = compiled_heuristic(around.game)

    class PythonHeuristic:
        def act_batch(self, observations, masks):
            return advice(observations, masks)

    around.set_opponent_pool([PythonHeuristic()])
    for other in (_trajectory(sampled, 400), _trajectory(around, 400)):
        for i, (a, b) in enumerate(zip(in_kernel, other)):
            for x, y in zip(a, b):
                np.testing.assert_array_equal(x, y, err_msg=f"step {i}")
