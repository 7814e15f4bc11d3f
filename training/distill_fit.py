"""The fit of ``uno-env distill`` (torch): the shipped policies' network fitted to the labelled decisions.

:func:`uno_env.training.distill.fit_policy` prepares the targets from the labels (:data:`FIT_ARRAYS`) and saves the
policy; this module builds the network, runs the epochs and reports the held-out figures.  ``fit.target: advantage``
regresses each sampled action's win rate minus the heuristic choice's, weighted by its samples; ``choice`` is
cross-entropy to the teacher's choice.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch

from uno_env.agents.policy import PolicyWeights

from .algorithms.batched_ppo import ActorCritic
from .config import DistillFitConfig

__all__ = ["FIT_ARRAYS", "fit_network"]

#: the held-out figures summed over slices (:meth:`_Fit.held_out`)
_SUMS = ("loss", "weight", "departs", "wanted", "hit_departs", "hit_wanted", "gain")


#: the arrays of the decisions a fit learns from, one row each (:func:`uno_env.training.distill.fit_policy` builds
#: them): the observation (int8 or float32, as loaded), the legal mask, the heuristic's and the teacher's choices and,
#: for the advantage target, each action's gain over the heuristic's choice and its weight (empty for the choice fit)
FIT_ARRAYS = ("obs", "mask", "heur", "teacher", "adv", "weight")


class _Fit:
    """The network, its optimiser and learning-rate schedule, and the decisions as tensors (no copy of the labels)."""

    def __init__(self, f: DistillFitConfig, game: Any, data: dict[str, np.ndarray], batches: int):
        self.choice = f.target == "choice"
        self.margin = f.margin
        self.net = ActorCritic(game.obs_dim, game.num_actions, f.net_arch, "relu", "symlog", True, True, "heuristic",
                               1.0 if self.choice else 0.0)
        self.mask = torch.from_numpy(data["mask"])
        self.H = torch.from_numpy(data["heur"])
        self.OBS = torch.from_numpy(np.asarray(data["obs"]))  # as loaded (int8 or float32): no copy of the labels
        self.L, self.ADV, self.W = (torch.from_numpy(data["teacher"]), torch.from_numpy(data["adv"]),
                                    torch.from_numpy(data["weight"]))
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=f.learning_rate, weight_decay=f.weight_decay)
        # linear: the last batch steps at 1/batches of the rate (it reaches 0 only after the fit)
        decay = (lambda done: 1.0 - done / batches) if f.lr_schedule == "linear" else (lambda done: 1.0)
        self.schedule = torch.optim.lr_scheduler.LambdaLR(self.opt, decay)

    def inputs(self, ix: torch.Tensor) -> torch.Tensor:
        # the network's input built per batch, not for every decision at once (row-wise: the same values either way)
        return self.net.features(self.OBS[ix].float(), self.mask[ix], self.H[ix])

    def loss(self, ix: torch.Tensor) -> torch.Tensor:
        logits, _ = self.net.heads(self.inputs(ix))
        if self.choice:
            return torch.nn.functional.cross_entropy(logits.masked_fill(~self.mask[ix], -1e9), self.L[ix])
        rel = logits - logits.gather(1, self.H[ix][:, None])
        return ((rel - self.ADV[ix]) ** 2 * self.W[ix]).sum() / self.W[ix].sum().clamp(min=1e-6)

    def step(self, ix: torch.Tensor) -> float:
        """One optimiser step on the decisions ``ix``; returns the batch's loss."""
        loss = self.loss(ix)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.schedule.step()
        return loss.item()

    def held_out(self, val_ix: torch.Tensor, slice_size: int) -> dict[str, float]:
        """The loss and the departures from the heuristic over the held-out decisions, a slice at a time: one pass
        over all of them at once held their float32 inputs and every layer's activations (several GB at 4-player
        UNO Dice's label counts), more than the labels themselves."""
        sums: dict[str, float] = dict.fromkeys(_SUMS, 0.0)
        add = self._add_choice if self.choice else self._add_advantage
        for lo in range(0, len(val_ix), slice_size):
            ix = val_ix[lo:lo + slice_size]
            logits, _ = self.net.heads(self.inputs(ix))
            add(sums, ix, logits)
        total = len(val_ix)
        if self.choice:
            return {"held_out_loss": sums["loss"] / total, "departs": sums["departs"] / total,
                    "precision": sums["hit_departs"] / max(sums["departs"], 1),
                    "recall": sums["hit_wanted"] / max(sums["wanted"], 1)}
        return {"held_out_loss": sums["loss"] / max(sums["weight"], 1e-6), "departs": sums["departs"] / total,
                "mean_gain": sums["gain"] / sums["departs"] if sums["departs"] else 0.0}

    def _add_choice(self, sums: dict[str, float], ix: torch.Tensor, logits: torch.Tensor) -> None:
        h, teacher = self.H[ix], self.L[ix]
        masked = logits.masked_fill(~self.mask[ix], -1e9)
        sums["loss"] += float(torch.nn.functional.cross_entropy(masked, teacher, reduction="sum"))
        pred = masked.argmax(-1)
        departs, wanted, hit = pred != h, teacher != h, pred == teacher
        sums["departs"] += int(departs.sum())
        sums["wanted"] += int(wanted.sum())
        sums["hit_departs"] += int((hit & departs).sum())
        sums["hit_wanted"] += int((hit & wanted).sum())

    def _add_advantage(self, sums: dict[str, float], ix: torch.Tensor, logits: torch.Tensor) -> None:
        rel = logits - logits.gather(1, self.H[ix][:, None])
        sums["loss"] += float(((rel - self.ADV[ix]) ** 2 * self.W[ix]).sum())
        sums["weight"] += float(self.W[ix].sum())
        best, arg = rel.masked_fill(~self.mask[ix] | (self.W[ix] == 0), -1e9).max(-1)
        gain = self.ADV[ix].gather(1, arg[:, None]).squeeze(-1)  # the teacher's own estimate of a departure's gain
        go = best > self.margin
        sums["departs"] += int(go.sum())
        sums["gain"] += float(gain[go].sum())

    def weights(self) -> PolicyWeights:
        """The fitted actor, as the policy plays it."""
        weights = self.net.export()
        if not self.choice:
            # fitted without the bonus (the regression is of gains relative to the heuristic's choice); played with a
            # bonus of 1 on that choice and the gains in units of the margin, a predicted gain wins once above the
            # margin
            margin = self.margin
            weights.weights[-1], weights.biases[-1] = weights.weights[-1] / margin, weights.biases[-1] / margin
            weights.advice_gain = 1.0
        return weights


def fit_network(f: DistillFitConfig, game: Any, data: dict[str, np.ndarray], train_ix: np.ndarray,
                val_ix: np.ndarray, seed: int, torch_threads: int, held_out_slice: int,
                log_dir: str | None = None) -> tuple[PolicyWeights, list[dict[str, float]], float]:
    """Fit the network to ``data`` (:data:`FIT_ARRAYS`; ``train_ix`` the decisions trained on, ``val_ix`` those
    reported on); returns the policy's weights, the held-out figures of every epoch and the seconds the epochs took.
    With ``log_dir`` the training loss of every batch and the held-out figures of every epoch go to a TensorBoard log
    there, against the labelled decisions trained on so far."""
    if torch_threads:
        torch.set_num_threads(torch_threads)
    torch.manual_seed(seed)
    train, held = torch.from_numpy(train_ix), torch.from_numpy(val_ix)
    fit = _Fit(f, game, data, f.epochs * -(-len(train) // f.batch_size))
    writer = None
    if log_dir is not None:
        from torch.utils.tensorboard import SummaryWriter  # needs tensorboard besides torch: only when logging

        writer = SummaryWriter(log_dir)
    t0 = time.time()
    epochs = []
    seen = 0
    try:
        for epoch in range(f.epochs):
            shuffled = train[torch.randperm(len(train))]
            for b in range(0, len(shuffled), f.batch_size):
                batch = shuffled[b:b + f.batch_size]
                loss = fit.step(batch)
                seen += len(batch)
                if writer is not None:
                    writer.add_scalar("fit/train_loss", loss, seen)
            with torch.no_grad():
                row = {"epoch": epoch + 1, **fit.held_out(held, held_out_slice)}
            epochs.append(row)
            print(f"fit epoch {row['epoch']}: " + ", ".join(f"{k} {v:.4g}" for k, v in row.items() if k != "epoch"),
                  flush=True)
            if writer is not None:
                for k, v in row.items():
                    if k != "epoch":
                        writer.add_scalar(f"fit/{k}", v, seen)
                writer.add_scalar("fit/learning_rate", fit.opt.param_groups[0]["lr"], seen)  # the next batch's
    finally:
        if writer is not None:
            writer.close()
    return fit.weights(), epochs, time.time() - t0
