"""TorchRL's PettingZooWrapper over the AEC env, with action masks: a shared masked policy learns by self-play.

    python examples/torchrl_pettingzoo.py            # 300 updates of 8 games each: some minutes on a CPU
    python examples/torchrl_pettingzoo.py --quick    # a few seconds: the whole pipeline, not a trained agent

``PettingZooWrapper(..., use_mask=True)`` puts every seat in one group ``agents``: ``("agents", "action_mask")``
is the legal-action mask of the seat to act (all True for the others, whose actions the wrapper ignores) and
``("agents", "mask")`` marks the seat that acts. The policy samples from TorchRL's ``MaskedCategorical``, so it
never picks an illegal action (the env is ``uno_env.raw_env``, which would raise). Every seat shares the policy,
which learns with REINFORCE on the steps its seat acted, from TorchRL's reward-to-go of that seat's reward.
At the end the policy (greedy) plays seat 0 against uniformly random legal play in seat 1.
"""
from __future__ import annotations

import argparse

import torch
from tensordict.nn import TensorDictModule
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import ExplorationType, MarlGroupMapType, set_exploration_type
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor
from torchrl.objectives.value.functional import reward2go

import uno_env

GROUP = "agents"
OBS = (GROUP, "observation", "observation")  # the AEC observation dict minus its action_mask, which TorchRL lifts
MASK = (GROUP, "action_mask")


def make_env(game: str, seed: int, max_turns: int) -> PettingZooWrapper:
    # an untrained policy draws a lot, so games can run long: max_turns truncates them
    env = uno_env.raw_env(game, num_players=2, rules={"max_turns": max_turns})
    return PettingZooWrapper(env, use_mask=True, categorical_actions=True,
                             group_map=MarlGroupMapType.ALL_IN_ONE_GROUP, seed=seed)


def make_policy(env: PettingZooWrapper) -> ProbabilisticActor:
    obs_dim = env.observation_spec[OBS].shape[-1]
    num_actions = env.full_action_spec[GROUP, "action"].space.n
    net = TensorDictModule(MLP(in_features=obs_dim, out_features=num_actions, num_cells=[128, 128]),
                           in_keys=[OBS], out_keys=[(GROUP, "logits")])
    return ProbabilisticActor(net, in_keys={"logits": (GROUP, "logits"), "mask": MASK},
                              out_keys=[(GROUP, "action")], distribution_class=MaskedCategorical,
                              return_log_prob=True, log_prob_key=(GROUP, "log_prob"))


def play(env: PettingZooWrapper, policy: ProbabilisticActor, max_steps: int):
    """One whole game; the rollout stops when it ends."""
    return env.rollout(max_steps=max_steps, policy=policy, break_when_any_done=True)


def reinforce_loss(games, gamma: float) -> torch.Tensor:
    """REINFORCE over the acting seat's steps, with each seat's reward-to-go minus the batch mean."""
    terms = []
    for game in games:
        acting = game[GROUP, "mask"]                                      # (T, seats)
        reward = game["next", GROUP, "reward"]                            # (T, seats, 1)
        done = game["next", GROUP, "done"]
        returns = reward2go(reward.transpose(0, 1), done.transpose(0, 1), gamma).transpose(0, 1).squeeze(-1)
        terms.append((game[GROUP, "log_prob"][acting], returns[acting]))
    log_prob = torch.cat([lp for lp, _ in terms])
    ret = torch.cat([r for _, r in terms])
    return -(log_prob * (ret - ret.mean())).mean()


def win_rate_vs_random(env: PettingZooWrapper, policy: ProbabilisticActor, games: int, max_steps: int) -> float:
    """Seat 0: the policy's most likely legal action; seat 1: a uniformly random legal action."""
    wins = 0
    for _ in range(games):
        td = env.reset()
        for _ in range(max_steps):
            with torch.no_grad(), set_exploration_type(ExplorationType.MODE):
                td = policy(td)
            random_action = torch.multinomial(td[MASK][1].float(), 1).squeeze(-1)
            td[GROUP, "action"][1] = random_action
            td = env.step(td)
            if td["next", "done"].item():
                wins += int(td["next", GROUP, "reward"][0].item() > 0)
                break
            td = td["next"]
    return wins / games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="classic", choices=uno_env.GAMES)
    parser.add_argument("--quick", action="store_true", help="a seconds-long run (what the tests use)")
    parser.add_argument("--updates", type=int, default=300)
    parser.add_argument("--games-per-update", type=int, default=8)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--max-turns", type=int, default=1000, help="decisions before a game is truncated")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.quick:
        args.updates, args.games_per_update, args.eval_games, args.max_turns = 2, 2, 3, 100
    max_steps = args.max_turns + 1

    torch.set_num_threads(1)  # small networks: more threads only contend with the env for the CPU
    torch.manual_seed(args.seed)
    env = make_env(args.game, args.seed, args.max_turns)
    policy = make_policy(env)
    optim = torch.optim.Adam(policy.parameters(), lr=3e-4)
    for update in range(args.updates):
        games = [play(env, policy, max_steps) for _ in range(args.games_per_update)]
        loss = reinforce_loss(games, gamma=0.99)
        optim.zero_grad()
        loss.backward()
        optim.step()
        if update % 50 == 0 or update == args.updates - 1:
            steps = sum(g.batch_size[0] for g in games)
            print(f"update {update}: {args.games_per_update} games, {steps} steps, loss {loss.item():+.4f}")
    rate = win_rate_vs_random(env, policy, args.eval_games, max_steps)
    print(f"{args.game}: TorchRL policy vs random, {args.eval_games} games: win rate {rate:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
