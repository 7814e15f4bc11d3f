"""Can a network learn the flat search's departures from the heuristic?  A pilot of distillation (README, "Training").

``label``: the heuristic plays every seat; at each decision with a choice the flat search (agent ``ismcts``, its
default at the table) is asked too, and the observation, the legal mask, the heuristic's choice, the search's
choice and its per-action win rates and sample counts are saved (one ``.npz`` per chunk of games; each game and its
search are seeded from the game's index, so the labels do not depend on ``--workers``).

``fit``: the shipped policies' network (advice input, shared trunk) is fitted to the labels, either
``--target choice`` (cross-entropy to the search's choice) or ``--target advantage`` (weighted regression of each
sampled action's win rate minus the heuristic choice's, weighted by its samples; the export scales the last layer
by ``1/margin`` so that, with the advice bonus of 1, the policy leaves the heuristic's choice only where the
predicted gain is above ``margin``).  It prints held-out figures and writes policy files for ``uno-env evaluate``.

    python benchmarks/search_distill.py label --players 4 --games 2400 --workers 2 --out /tmp/labels
    python benchmarks/search_distill.py fit --labels /tmp/labels --target advantage --margins 0.02 0.04 --out /tmp/q
    uno-env evaluate /tmp/q_m0.04.npz heuristic -n 4 -g 4000 --seed 0 -w 2
"""
from __future__ import annotations

import argparse
import glob
import importlib
import multiprocessing
import os
import time

import numpy as np

CHUNK = 100  # games per labelled file


def _label_chunk(job: tuple[str, int, str, int, int, str]) -> str:
    from uno_env.agents.registry import load_agent

    game, players, spec, first, games, out = job
    env = importlib.import_module(f"uno_env.{game}_v0").env(num_players=players)
    env.reset(seed=first)
    u = env.unwrapped
    search = load_agent(spec, u.game, seed=0)
    heuristic = load_agent("heuristic", u.game, seed=0)
    cols: dict[str, list] = {k: [] for k in ("obs", "mask", "heur", "search", "q", "n")}
    for i in range(first, first + games):
        env.reset(seed=1_000_000 + i)
        search.reset(seed=10_000 + i)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            h = int(heuristic.act(obs["observation"], mask))
            if mask.sum() > 1:
                s = int(search.act_from_state(u.game_view.row))
                q = np.full(mask.shape[0], -1.0, np.float32)
                n = np.zeros(mask.shape[0], np.int16)
                for a, v in search.last_search["win_rate"].items():
                    q[a] = v
                for a, v in search.last_search["visits"].items():
                    n[a] = v
                for k, v in zip(cols, (obs["observation"], mask.astype(bool), h, s, q, n)):
                    cols[k].append(np.array(v, copy=True))
            env.step(h)  # the heuristic's game: the labels describe the states it reaches
    path = os.path.join(out, f"labels_{first:07d}.npz")
    np.savez_compressed(path, **{k: np.array(v) for k, v in cols.items()})
    return path


def label(args: argparse.Namespace) -> None:
    os.makedirs(args.out, exist_ok=True)
    jobs = [(args.game, args.players, args.search, first, min(CHUNK, args.games - first), args.out)
            for first in range(0, args.games, CHUNK)]
    t0 = time.time()
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        for k, path in enumerate(pool.imap(_label_chunk, jobs), 1):
            print(f"{k}/{len(jobs)} {path} ({time.time() - t0:.0f} s)", flush=True)


def _load(pattern: str) -> dict[str, np.ndarray]:
    files = sorted(glob.glob(os.path.join(pattern, "labels_*.npz")) if os.path.isdir(pattern) else glob.glob(pattern))
    if not files:
        raise SystemExit(f"no label files at {pattern}")
    parts = [np.load(f) for f in files]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0].files}


def fit(args: argparse.Namespace) -> None:
    import torch

    from uno_env.agents.policy import save_policy_files
    from uno_env.config import make_rules
    from uno_env.core.game import Game
    from uno_env.training.algorithms.batched_ppo import ActorCritic

    torch.manual_seed(args.seed)
    d = _load(args.labels)
    heur = d["heur"].astype(np.int64)
    rows = np.arange(len(heur))
    keep = d["n"][rows, heur] > 0  # the heuristic's choice was sampled (it always is, unless it was forced)
    d = {k: v[keep] for k, v in d.items()}
    heur, rows = heur[keep], np.arange(int(keep.sum()))
    n = d["n"].astype(np.float32)
    adv = np.where(n > 0, d["q"] - d["q"][rows, heur][:, None], 0.0).astype(np.float32)
    weight = np.where(n > 0, np.minimum(n, n[rows, heur][:, None]), 0.0).astype(np.float32)
    weight[rows, heur] = 0.0
    label_ = d["search"].astype(np.int64)
    print(f"{len(heur):,} decisions; the search departs from the heuristic on {np.mean(label_ != heur):.2%}")
    order = np.random.default_rng(args.seed).permutation(len(heur))
    cut = int(len(order) * 0.9)
    train_ix, val_ix = torch.from_numpy(order[:cut]), torch.from_numpy(order[cut:])

    rules = make_rules(args.game, args.players, "standard")
    game = Game(rules)
    net = ActorCritic(game.obs_dim, game.num_actions, args.net_arch, "relu", "symlog", True, True, "heuristic",
                      1.0 if args.target == "choice" else 0.0)
    obs, mask, H = torch.from_numpy(d["obs"].astype(np.float32)), torch.from_numpy(d["mask"]), torch.from_numpy(heur)
    X = net.features(obs, mask, H)
    L, ADV, W = torch.from_numpy(label_), torch.from_numpy(adv), torch.from_numpy(weight)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=args.weight_decay)

    def loss_of(ix: torch.Tensor) -> torch.Tensor:
        logits, _ = net.heads(X[ix])
        if args.target == "choice":
            return torch.nn.functional.cross_entropy(logits.masked_fill(~mask[ix], -1e9), L[ix])
        rel = logits - logits.gather(1, H[ix][:, None])
        return ((rel - ADV[ix]) ** 2 * W[ix]).sum() / W[ix].sum().clamp(min=1e-6)

    def held_out() -> str:
        with torch.no_grad():
            logits, _ = net.heads(X[val_ix])
            m, h = mask[val_ix], H[val_ix]
            if args.target == "choice":
                pred = logits.masked_fill(~m, -1e9).argmax(-1)
                departs, wanted = pred != h, L[val_ix] != h
                hit = pred == L[val_ix]
                precision = (hit & departs).sum() / departs.sum().clamp(min=1)
                recall = (hit & wanted).sum() / wanted.sum().clamp(min=1)
                return f"departs {departs.float().mean():.2%}, precision {precision:.2f}, recall {recall:.2f}"
            rel = (logits - logits.gather(1, h[:, None])).masked_fill(~m | (W[val_ix] == 0), -1e9)
            best, arg = rel.max(-1)
            gain = ADV[val_ix].gather(1, arg[:, None]).squeeze(-1)  # the search's own estimate: unbiased here
            parts = []
            for margin in args.margins:
                go = best > margin
                parts.append(f"margin {margin:g}: departs {go.float().mean():.2%}, mean gain "
                             f"{(gain[go].mean() if go.any() else torch.tensor(0.0)):+.4f}")
            return "; ".join(parts)

    for epoch in range(args.epochs):
        shuffled = train_ix[torch.randperm(cut)]
        for b in range(0, cut, args.batch_size):
            loss = loss_of(shuffled[b:b + args.batch_size])
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            print(f"epoch {epoch + 1}: held-out loss {loss_of(val_ix):.5f}; {held_out()}", flush=True)

    meta = {"algorithm": "search_distill (pilot)", "game": args.game, "num_players": args.players,
            "rules": rules.to_dict(), "obs_dim": game.obs_dim, "num_actions": game.num_actions,
            "policy": {"net_arch": args.net_arch, "activation": "relu", "obs_transform": "symlog",
                       "include_mask": True, "advice": "heuristic", "advice_gain": 1.0}, "steps": 0, "seed": args.seed}
    weights = net.export()
    if args.target == "choice":
        print(save_policy_files(weights, f"{args.out}.npz", dict(meta, name="distill_choice")))
        return
    for margin in args.margins:
        scaled = net.export()
        scaled.weights[-1], scaled.biases[-1] = weights.weights[-1] / margin, weights.biases[-1] / margin
        scaled.advice_gain = 1.0
        print(save_policy_files(scaled, f"{args.out}_m{margin:g}.npz", dict(meta, name=f"distill_m{margin:g}")))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    lab = sub.add_parser("label", help="label decisions with the search")
    lab.add_argument("--game", default="classic", choices=("classic", "pocket"))
    lab.add_argument("--players", type=int, default=4)
    lab.add_argument("--games", type=int, default=2400)
    lab.add_argument("--search", default="ismcts", help="the teacher's agent spec (default: ismcts at the table)")
    lab.add_argument("--workers", type=int, default=2)
    lab.add_argument("--out", required=True, help="directory for the label files")
    ft = sub.add_parser("fit", help="fit the advice network to the labels; write policy files")
    ft.add_argument("--labels", required=True, help="a directory of label files (or a glob)")
    ft.add_argument("--game", default="classic", choices=("classic", "pocket"))
    ft.add_argument("--players", type=int, default=4)
    ft.add_argument("--target", choices=("choice", "advantage"), default="advantage")
    ft.add_argument("--margins", type=float, nargs="+", default=[0.02, 0.04, 0.06, 0.1])
    ft.add_argument("--net-arch", type=int, nargs="+", default=[128, 128])
    ft.add_argument("--epochs", type=int, default=3)
    ft.add_argument("--lr", type=float, default=3e-4)
    ft.add_argument("--weight-decay", type=float, default=1e-4)
    ft.add_argument("--batch-size", type=int, default=256)
    ft.add_argument("--seed", type=int, default=0)
    ft.add_argument("--out", required=True, help="policy file prefix")
    args = ap.parse_args()
    label(args) if args.command == "label" else fit(args)


if __name__ == "__main__":
    main()
