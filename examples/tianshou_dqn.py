"""Masked DQN with Tianshou on the PettingZoo AEC env: one learning seat against a random seat.

    python examples/tianshou_dqn.py            # 20 epochs of 2,000 steps: a few minutes on a laptop CPU
    python examples/tianshou_dqn.py --quick    # a few seconds: the whole pipeline, not a trained agent

Tianshou's ``PettingZooEnv`` turns each observation ``{"observation", "action_mask"}`` of the AEC env into
``{"obs", "mask", "agent_id"}``; its DQN policy gives illegal actions the lowest Q-value and its epsilon-greedy
exploration draws legal actions only. The env is ``uno_env.raw_env``, which raises on an illegal action instead
of ending the game, so a masking mistake stops the run rather than hiding in the rewards.
"""
from __future__ import annotations

import argparse

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import uno_env


def make_env(game: str, max_turns: int) -> PettingZooEnv:
    # an untrained greedy Q-network can draw for ever: max_turns truncates such games
    return PettingZooEnv(uno_env.raw_env(game, num_players=2, rules={"max_turns": max_turns}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="classic", choices=uno_env.GAMES)
    parser.add_argument("--quick", action="store_true", help="a seconds-long run (what the tests use)")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--steps-per-epoch", type=int, default=2000)
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--test-episodes", type=int, default=100)
    parser.add_argument("--max-turns", type=int, default=1000, help="decisions before a game is truncated")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.quick:
        args.epochs, args.steps_per_epoch, args.envs, args.test_episodes, args.max_turns = 1, 200, 2, 2, 100

    torch.set_num_threads(1)  # a small network: more threads only contend with the env for the CPU
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    env = make_env(args.game, args.max_turns)
    obs_dim = env.observation_space["observation"].shape[0]
    num_actions = int(env.action_space.n)

    # seat player_0 learns; seat player_1 plays uniformly random legal actions
    net = Net(state_shape=obs_dim, action_shape=num_actions, hidden_sizes=[256, 256])
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1,
                                       eps_inference=0.0),
        optim=AdamOptimizerFactory(lr=1e-4),
        gamma=0.99,
        n_step_return_horizon=1,
        target_update_freq=500,
    )
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)

    train_envs = DummyVectorEnv([lambda: make_env(args.game, args.max_turns) for _ in range(args.envs)])
    test_envs = DummyVectorEnv([lambda: make_env(args.game, args.max_turns) for _ in range(args.envs)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1)
    train_collector = Collector[CollectStats](algorithm, train_envs, VectorReplayBuffer(50_000, args.envs),
                                              exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    train_collector.reset()
    train_collector.collect(n_step=64 * args.envs)

    algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train_collector,
        test_collector=test_collector,
        max_epochs=args.epochs,
        epoch_num_steps=args.steps_per_epoch,
        collection_step_num_env_steps=10 * args.envs,
        test_step_num_episodes=args.test_episodes,
        batch_size=64,
        update_step_num_gradient_steps_per_sample=0.1,
        test_in_training=False,
        show_progress=False,
        multi_agent_return_reduction=lambda rewards: rewards[:, 0],  # the learner's return
    ))

    # the learner's win rate against random, greedy (eps_inference 0) and measured on fresh games
    algorithm.eval()
    test_collector.reset()
    stats = test_collector.collect(n_episode=args.test_episodes, reset_before_collect=True)
    returns = np.asarray(stats.returns)[:, 0]
    print(f"{args.game}: DQN learner vs random, {len(returns)} games: win rate {np.mean(returns > 0):.1%}, "
          f"mean return {returns.mean():+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
