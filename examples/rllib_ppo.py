"""Ray RLlib multi-agent PPO on UNO with uno-env's action-masking RLModule: a learner against a random seat.

    python examples/rllib_ppo.py            # 30 iterations of 4,000 steps, 2 EnvRunners: some minutes
    python examples/rllib_ppo.py --quick    # two small iterations in the driver process (what the tests run)

The pieces are the project's own (``uno_env.training``, needs the ``rllib`` extra): ``UnoMultiAgentEnv`` runs
the AEC env through RLlib's PettingZoo wrapper; ``MaskedActorCriticModule`` is a PPO RLModule whose illegal
actions' logits are the most negative float, so they are never sampled; ``BaselineRLModule`` wraps a baseline
agent ("random" here) as a frozen RLModule. Seat player_0 is the learner, seat player_1 the random baseline,
and RLlib's per-module episode return of the learner is its win rate in disguise: with the win/loss reward
(+1 / -1) and no truncated games, win rate = (mean return + 1) / 2. For the full trainer (self-play pool,
arena evaluation, checkpoints, clusters) use ``uno-env train-rllib``.
"""
from __future__ import annotations

import argparse

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

import uno_env
from uno_env.agents.rllib_policy import MaskedActorCriticModule
from uno_env.training.rllib_adapter import UnoMultiAgentEnv
from uno_env.training.rllib_module import BaselineRLModule


def seat_to_module(agent_id: str, episode=None, **kwargs) -> str:
    return "learner" if agent_id == "player_0" else "random"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="classic", choices=uno_env.GAMES)
    parser.add_argument("--quick", action="store_true", help="two small iterations in the driver process")
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--batch", type=int, default=4000, help="env steps per PPO update")
    parser.add_argument("--env-runners", type=int, default=2, help="sampling processes (0: in the driver)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.quick:
        args.iterations, args.batch, args.env_runners = 2, 256, 0

    env_config = {"game": args.game, "num_players": 2, "rules": None}
    probe = UnoMultiAgentEnv(env_config)
    obs_space, act_space = probe.observation_spaces["player_0"], probe.action_spaces["player_0"]
    probe.close()
    modules = {
        "learner": RLModuleSpec(module_class=MaskedActorCriticModule, observation_space=obs_space,
                                action_space=act_space, model_config={"hiddens": [128, 128]}),
        "random": RLModuleSpec(module_class=BaselineRLModule, observation_space=obs_space, action_space=act_space,
                               model_config=dict(env_config, agent="random", seed=args.seed)),
    }
    config = (
        PPOConfig()
        # RLlib's env checker steps random actions, illegal ones included, which end a game early
        .environment(UnoMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=2)
        .multi_agent(policies=set(modules), policy_mapping_fn=seat_to_module, policies_to_train=["learner"])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
        .training(lr=3e-4, train_batch_size_per_learner=args.batch, minibatch_size=min(args.batch, 256),
                  num_epochs=1 if args.quick else 4, entropy_coeff=0.01)
        .debugging(seed=args.seed)
    )
    ray.init(include_dashboard=False, num_cpus=max(2, args.env_runners + 1), log_to_driver=False)
    try:
        algo = config.build_algo()
        for i in range(args.iterations):
            result = algo.train()
            returns = result["env_runners"].get("module_episode_returns_mean", {})
            if "learner" in returns:
                mean = returns["learner"]
                print(f"iteration {i + 1}: learner's mean return vs random {mean:+.3f} "
                      f"(win rate about {(mean + 1) / 2:.1%})")
            else:
                print(f"iteration {i + 1}: no finished game yet")
        algo.stop()
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
