"""CleanRL-style PPO with action masking on the Gymnasium id ``uno_env/Classic-v0``, in one file.

The environment is used as is: ``flat_obs=True`` makes the observation the float32 vector, and the legal-action
mask comes with every step in ``infos["action_mask"]``.  Illegal actions get a logit of -1e8, so the policy
never picks one and their probability does not enter the loss.

    python examples/cleanrl_masked_ppo.py --total-timesteps 200000 --opponents heuristic

Needs torch (``pip install 'uno-env[train]'``).  Follows CleanRL's ppo.py (GAE, clipped objective, value
clipping, entropy bonus, minibatch epochs); the win rate against the opponents is printed per iteration.
"""
from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import torch
import torch.nn as nn
from torch.distributions.categorical import Categorical

import uno_env  # noqa: F401  (registers the Gymnasium ids)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env-id", default="uno_env/Classic-v0")
    p.add_argument("--num-players", type=int, default=2)
    p.add_argument("--opponents", default="random", help="a baseline name for the other seats")
    p.add_argument("--total-timesteps", type=int, default=500_000)
    p.add_argument("--learning-rate", type=float, default=2.5e-4)
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--num-steps", type=int, default=128, help="steps per env per rollout")
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--torch-threads", type=int, default=1,
                   help="a 256-wide MLP gains nothing from more threads, and they fight the envs for cores")
    p.add_argument("--save-path", default=None, help="save the final state_dict of the agent here")
    args = p.parse_args(argv)
    args.batch_size = args.num_envs * args.num_steps
    args.minibatch_size = args.batch_size // args.num_minibatches
    args.num_iterations = max(1, args.total_timesteps // args.batch_size)
    return args


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_dim: int, num_actions: int):
        super().__init__()
        self.critic = nn.Sequential(layer_init(nn.Linear(obs_dim, 256)), nn.Tanh(),
                                    layer_init(nn.Linear(256, 256)), nn.Tanh(), layer_init(nn.Linear(256, 1), 1.0))
        self.actor = nn.Sequential(layer_init(nn.Linear(obs_dim, 256)), nn.Tanh(),
                                   layer_init(nn.Linear(256, 256)), nn.Tanh(),
                                   layer_init(nn.Linear(256, num_actions), 0.01))

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(self, x, mask, action=None):
        logits = torch.where(mask, self.actor(x), torch.tensor(-1e8))
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(x)


def main(argv=None) -> dict[str, float]:
    args = parse_args(argv)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    envs = gymnasium.make_vec(args.env_id, num_envs=args.num_envs, vectorization_mode="vector_entry_point",
                              flat_obs=True, num_players=args.num_players, opponents=args.opponents)
    obs_dim = envs.single_observation_space.shape[0]
    num_actions = envs.single_action_space.n
    agent = Agent(obs_dim, num_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((args.num_steps, args.num_envs, obs_dim))
    masks = torch.zeros((args.num_steps, args.num_envs, num_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    global_step, start = 0, time.time()
    next_obs, infos = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs)
    next_mask = torch.as_tensor(infos["action_mask"] != 0)
    next_done = torch.zeros(args.num_envs)
    stats = {"episodes": 0, "win_rate": float("nan")}
    for iteration in range(1, args.num_iterations + 1):
        optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - (iteration - 1.0) / args.num_iterations)
        wins = games = 0
        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step] = value.flatten()
            actions[step], logprobs[step] = action, logprob
            next_obs, reward, terminated, truncated, infos = envs.step(action.numpy())
            done = np.logical_or(terminated, truncated)
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs = torch.as_tensor(next_obs)
            next_mask = torch.as_tensor(infos["action_mask"] != 0)
            next_done = torch.as_tensor(done, dtype=torch.float32)
            games += int(done.sum())
            wins += int((reward[done] > 0).sum())

        with torch.no_grad():  # GAE
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                nextnonterminal = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                nextvalues = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values

        b_obs, b_masks = obs.reshape(-1, obs_dim), masks.reshape(-1, num_actions)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns, b_values = advantages.reshape(-1), returns.reshape(-1), values.reshape(-1)
        b_inds = np.arange(args.batch_size)
        for _ in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for lo in range(0, args.batch_size, args.minibatch_size):
                mb = b_inds[lo: lo + args.minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                mb_adv = b_advantages[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio,
                                    -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()
                newvalue = newvalue.view(-1)
                v_clipped = b_values[mb] + torch.clamp(newvalue - b_values[mb], -args.clip_coef, args.clip_coef)
                v_loss = 0.5 * torch.max((newvalue - b_returns[mb]) ** 2, (v_clipped - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        stats = {"episodes": stats["episodes"] + games, "win_rate": wins / games if games else float("nan")}
        print(f"iteration {iteration}/{args.num_iterations}  global_step={global_step}  games={games}  "
              f"win_rate={stats['win_rate']:.3f}  SPS={int(global_step / (time.time() - start))}", flush=True)
    envs.close()
    if args.save_path:
        torch.save(agent.state_dict(), args.save_path)
    stats["global_step"] = global_step
    return stats


if __name__ == "__main__":
    main()
