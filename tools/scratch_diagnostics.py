"""What a trained policy has and has not learned: its decisions by kind, its last hidden layer, and what naming the
colour at random would cost it.

    python benchmarks/scratch_diagnostics.py runs/NAME/policy.npz [--games 4000] [--decisions 100000]
    python benchmarks/scratch_diagnostics.py runs/NAME                # also the run's PPO statistics over time

Printed, on the learner's decisions of games against ``greedy`` (the policy's most likely action, as the arena plays
it, and its sampled distribution for the entropies):

* per kind of decision (a turn with a play and the draw both legal, naming a colour after a wild, the drawn card
  playable or kept): how often the policy takes the compiled heuristic's choice, and the policy's mean entropy;
  for the colour, how often it names the colour it holds most cards of, where one colour leads;
* the actor's last hidden layer: the mean over its units of their spread across states (near 0: the same hidden
  vector for every state, so one fixed preference over the actions whatever the state) and the share of outputs
  that pass no gradient (tanh beyond 0.99 in magnitude, relu 0);
* in card games, the duplicate arena against ``greedy`` (``--games`` games) as trained and with every colour named
  at random instead: what the colour choice is worth;
* given a run directory (its ``policy.npz`` is profiled), its PPO statistics from TensorBoard (entropy, approximate
  KL, clip fraction, explained variance, the hidden layer's spread and stuck share), each averaged over the first,
  middle and last tenth of the run's rollouts.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

COLOURS = ("red", "yellow", "green", "blue")


class RandomColour:
    """``inner``'s choices, but a uniformly random legal colour whenever a colour is named (its own seeded stream)."""

    def __init__(self, inner: Any, colour_actions: np.ndarray, seed: int = 0):
        self.inner, self.colour_actions = inner, colour_actions
        self.name, self.num_actions = f"{inner.name}+random colour", inner.num_actions
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        out = np.asarray(self.inner.act_batch(observations, action_masks)).copy()
        legal = np.asarray(action_masks) != 0
        for r in np.flatnonzero(legal[:, self.colour_actions].any(1)):
            out[r] = self.rng.choice(np.flatnonzero(legal[r] & self.colour_actions))
        return out


def hidden_layer(weights: Any, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The actor's last hidden layer (after its activation) on a batch, in numpy."""
    x = np.asarray(obs, dtype=np.float32)
    if weights.obs_transform == "symlog":
        x = np.sign(x) * np.log1p(np.abs(x))
    if weights.include_mask:
        x = np.concatenate([x, np.asarray(masks, dtype=np.float32)], axis=1)
    for w, b in zip(weights.weights[:-1], weights.biases[:-1]):
        x = x @ w.T + b
        x = np.tanh(x) if weights.activation == "tanh" else np.maximum(x, 0.0)
    return x


def _entropy(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    z = np.where(legal, logits, -np.inf)
    z = z - z.max(1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(1, keepdims=True)
    return -(p * np.log(np.where(p > 0, p, 1.0))).sum(1)


def decision_profile(agent: Any, game: Any, decisions: int, seed: int) -> dict[str, Any]:
    """The policy's decisions against greedy by kind, beside the compiled heuristic's."""
    from uno_env.agents.policy import compiled_heuristic
    from uno_env.vector import UnoSingleAgentVectorEnv

    names = game.action_names
    draw, keep = names.index("draw"), names.index("keep drawn card")
    colour = np.array([a.startswith("choose colour") for a in names])
    plays = np.array([a.startswith("play ") for a in names])
    kinds = [a[5:] for a in names if a.startswith("play ") and "UNO" not in a and not a.startswith("play die")]
    colour_of = np.array([[k.startswith(c) for c in COLOURS] for k in kinds], dtype=np.float32)
    heuristic = compiled_heuristic(game)
    env = UnoSingleAgentVectorEnv(game.name, 512, rules=game.rules, opponents="greedy", learner_seat="rotate",
                                  seed=seed, num_threads=1)
    obs, masks = env.reset(seed)
    tally: dict[str, list[float]] = {}
    spread, stuck, seen = [], [], 0
    while seen < decisions:
        legal = masks != 0
        mine, theirs = agent.act_batch(obs, masks), heuristic(obs, masks)
        ent = _entropy(agent.weights.logits(obs, masks), legal)
        kinds_now = {"turn": legal[:, draw] & (legal & plays).any(1), "colour": legal[:, colour].any(1),
                     "drawn card": legal[:, keep] & (legal.sum(1) > 1)}
        for kind, rows in kinds_now.items():
            t = tally.setdefault(kind, [0, 0, 0.0])
            t[0] += int(rows.sum())
            t[1] += int((mine == theirs)[rows].sum())
            t[2] += float(ent[rows].sum())
        rows = kinds_now["colour"]
        if rows.any() and kinds:
            held = obs[rows][:, :len(kinds)] @ colour_of
            lead = (held == held.max(1, keepdims=True)).sum(1) == 1
            chosen = mine[rows] - int(np.flatnonzero(colour)[0])
            t = tally.setdefault("most-held colour", [0, 0, 0.0])
            t[0] += int(lead.sum())
            t[1] += int((held.argmax(1) == chosen)[lead].sum())
        h = hidden_layer(agent.weights, obs, masks)
        spread.append(float(h.std(0).mean()))
        stuck.append(float(((np.abs(h) > 0.99) if agent.weights.activation == "tanh" else (h <= 0)).mean()))
        seen += int((legal.sum(1) > 1).sum())
        obs, masks, *_ = env.step(mine)
    env.close()
    return {"kinds": {k: {"decisions": v[0], "as_heuristic": v[1] / max(v[0], 1),
                          **({"entropy": v[2] / max(v[0], 1)} if k != "most-held colour" else {})}
                      for k, v in tally.items()},
            "hidden_spread": float(np.mean(spread)), "hidden_stuck": float(np.mean(stuck))}


def colour_worth(path: str, game: Any, games: int, seed: int) -> dict[str, dict[str, float]]:
    """The duplicate arena against greedy, as trained and naming colours at random."""
    from uno_env.agents.policy import NumpyPolicyAgent
    from uno_env.training.evaluate import against_baselines

    colour = np.array([a.startswith("choose colour") for a in game.action_names])
    out = {}
    for label in ("as trained", "random colour"):
        agent: Any = NumpyPolicyAgent.load(path, game.rules, deterministic=True)
        if label == "random colour":
            agent = RandomColour(agent, colour, seed)
        (row,) = against_baselines(agent, ["greedy"], game.name, game.num_players, game.rules, games, seed,
                                   workers=1, duplicate=True)
        out[label] = {k: row[k] for k in ("win_rate", "ci_low", "ci_high", "games")}
    return out


TB_KEYS = ("entropy", "approx_kl", "clip_fraction", "explained_variance", "hidden_spread", "hidden_stuck",
           "hidden_dead")


def training_statistics(run_dir: str) -> dict[str, dict[str, float]]:
    """The run's ``train/*`` scalars (:data:`TB_KEYS`) averaged over the first, middle and last tenth of its
    rollouts, from its TensorBoard log."""
    from pathlib import Path

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    logs = sorted(Path(run_dir, "tb").glob("*"))
    if not logs:
        raise SystemExit(f"scratch_diagnostics: {run_dir} has no TensorBoard log (tb/)")
    acc = EventAccumulator(str(logs[0]), size_guidance={"scalars": 0})
    acc.Reload()
    out: dict[str, dict[str, float]] = {}
    for key in TB_KEYS:
        if f"train/{key}" not in acc.Tags()["scalars"]:
            continue
        values = [e.value for e in acc.Scalars(f"train/{key}")]
        tenth = max(1, len(values) // 10)
        mid = len(values) // 2
        out[key] = {"first": float(np.mean(values[:tenth])), "middle": float(np.mean(values[mid: mid + tenth])),
                    "last": float(np.mean(values[-tenth:]))}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("policy", help="a policy .npz, or a run directory (its policy.npz and TensorBoard log)")
    ap.add_argument("--games", type=int, default=4000, help="duplicate-arena games against greedy (even)")
    ap.add_argument("--decisions", type=int, default=100_000, help="learner decisions with a choice to profile")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.games < 2 or args.games % 2:
        ap.error("--games must be even and positive")
    import os

    from uno_env.agents.policy import NumpyPolicyAgent
    from uno_env.config import RuleConfig
    from uno_env.core.game import Game

    run_dir = args.policy if os.path.isdir(args.policy) else None
    if run_dir is not None:
        args.policy = os.path.join(run_dir, "policy.npz")
    agent = NumpyPolicyAgent.load(args.policy, deterministic=True)
    game = Game(RuleConfig.from_dict(agent.meta["rules"]))
    if agent.weights.advice != "none":
        print("scratch_diagnostics: this policy takes the heuristic's advice; it profiles policies that play from "
              "the observation alone", file=sys.stderr)
        return 2
    prof = decision_profile(agent, game, args.decisions, args.seed)
    print(f"{args.policy}: {game.name}, {game.num_players} players; decisions against greedy")
    for kind, v in prof["kinds"].items():
        ent = f", entropy {v['entropy']:.3f}" if "entropy" in v else ""
        what = "names it" if kind == "most-held colour" else "as the heuristic"
        print(f"  {kind:<17} {v['decisions']:>8,} decisions: {100 * v['as_heuristic']:5.1f}% {what}{ent}")
    print(f"  last hidden layer: spread across states {prof['hidden_spread']:.4f}, outputs passing no gradient "
          f"{100 * prof['hidden_stuck']:.1f}%")
    if game.name != "dice":
        for label, r in colour_worth(args.policy, game, args.games, args.seed).items():
            print(f"  vs greedy, {label:<13} {100 * r['win_rate']:5.1f}% [{100 * r['ci_low']:.1f}, "
                  f"{100 * r['ci_high']:.1f}] ({r['games']:,} games, duplicate)")
    if run_dir is not None:
        print("  PPO statistics over the run's rollouts (first tenth / middle / last tenth):")
        for key, v in training_statistics(run_dir).items():
            print(f"    {key:<19} {v['first']:9.4f} {v['middle']:9.4f} {v['last']:9.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
