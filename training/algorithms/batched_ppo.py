"""``algorithm: batched_ppo``: PPO in plain PyTorch on the batched simulator, one forward pass per step for all games.

Read it top to bottom like CleanRL's ``ppo.py``: the network, the environments, the rollout, the advantages, the
update.  What differs from a textbook PPO is only where the games come from:

* ``env.n_envs`` games run in one :class:`uno_env.vector.UnoSingleAgentVectorEnv`; a step of the learner is one
  forward pass over all of them (the legal mask sets the illegal logits to -inf before sampling).
* The other seats are drawn per game and episode from the opponent pool (:class:`training.pool.OpponentPool`):
  the baselines ``random``, ``greedy`` and ``heuristic`` are played inside the compiled kernel, frozen snapshots
  of the learner by a batched forward pass over the games that wait for them (numpy, in the same env step).
  With ``opponents.sampling: win_rate`` the pool draws each member in proportion to how often it beats the
  learner (the games' results are fed back to it).
* ``policy.advice: heuristic``: the network's input also holds the heuristic's choice (one-hot over the actions;
  the compiled heuristic computes it for every learner decision, the numpy player with agents/heuristic.py).
  With imitation first, the policy starts as the heuristic, and PPO only has to learn where departing pays.
  ``policy.advice_gain`` adds a fixed bonus to the advised action's logit (a residual policy): the policy plays
  the heuristic from the first step (its argmax is the heuristic's choice, its samples explore around it), so the
  imitation steps only warm up the critic.
* ``ppo.imitation_steps``: the run can start with behaviour cloning.  For its first steps the compiled heuristic
  plays the learner's seat; the update is the cross-entropy to its choices plus the value loss on its games (no
  policy gradient), so PPO starts from a policy that plays like the heuristic and a critic that already fits it.
  ``ppo.kickstart_coef`` keeps pulling the learner's own decisions towards the heuristic's afterwards, with a
  weight falling to 0 at ``kickstart_until``.
* Checkpoints hold the weights, the optimizer, the step count and the opponent pool's results; the run state
  (pool, schedule, evaluation history, RNGs) is :mod:`training.run_state`'s, as for the SB3 trainer.
"""
from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn as nn

from uno_env.agents.policy import NumpyPolicyAgent, PolicyWeights

from ..config import TrainConfig
from ..pool import SNAPSHOT_PREFIX, OpponentPool

__all__ = ["LABEL", "ActorCritic", "BatchedPoolEnv", "BatchedPPO", "Rollout", "advantages", "make_env", "build",
           "load", "learn", "num_steps", "save", "export"]

LABEL = "uno_env.batched_ppo"


# ---------------------------------------------------------------------------------------------- network
def symlog(x: torch.Tensor) -> torch.Tensor:
    """sign(x) * log(1 + |x|): counts of up to ~100 cards become 0..5 (what the numpy player computes too)."""
    return torch.sign(x) * torch.log1p(torch.abs(x))


def _mlp(sizes: list[int], activation: type[nn.Module], out: int, out_gain: float) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [_init(nn.Linear(a, b), np.sqrt(2)), activation()]
    layers.append(_init(nn.Linear(sizes[-1], out), out_gain))
    return nn.Sequential(*layers)


def _init(layer: nn.Linear, gain: float) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


#: the arrays of ``UnoSingleAgentVectorEnv.snapshot()``, in its order, as a checkpoint's ``games.npz`` names them
_SNAPSHOT_NAMES = ("states", "rngs", "opp", "seed_buf", "counters", "seed0", "blocks", "learner", "carry")


class ActorCritic(nn.Module):
    """MLPs over ``symlog(observation)`` (and the mask, with ``include_mask``, and the heuristic's choice, with
    ``advice``): action logits and a value.

    ``shared_trunk``: the hidden layers are shared and only the two output layers differ (half the compute of two
    MLPs: :meth:`heads` runs the trunk once for both; the actor is still a plain chain of layers, so it exports to
    the numpy format the same way).

    :meth:`act` and :meth:`evaluate` take the network's input, :meth:`features`, which the rollout computes once
    per step and the update reuses in every epoch.
    """

    def __init__(self, obs_dim: int, num_actions: int, net_arch: list[int], activation: str = "tanh",
                 obs_transform: str = "symlog", include_mask: bool = True, shared_trunk: bool = False,
                 advice: str = "none", advice_gain: float = 0.0):
        super().__init__()
        self.obs_transform, self.include_mask, self.activation = obs_transform, include_mask, activation
        self.shared_trunk, self.advice, self.num_actions = shared_trunk, advice, num_actions
        # residual policy: the advised action's logit gets a fixed bonus (the advice is the input's last A columns)
        self.advice_gain = float(advice_gain) if advice != "none" else 0.0
        act = nn.Tanh if activation == "tanh" else nn.ReLU
        extra = (num_actions if include_mask else 0) + (num_actions if advice != "none" else 0)
        sizes = [obs_dim + extra] + list(net_arch)
        self.actor = _mlp(sizes, act, num_actions, 0.01)  # small last layer: a near-uniform first policy
        if shared_trunk:
            self.critic = nn.Sequential(*list(self.actor)[:-1], _init(nn.Linear(sizes[-1], 1), 1.0))
        else:
            self.critic = _mlp(sizes, act, 1, 1.0)

    def features(self, obs: torch.Tensor, masks: torch.Tensor, advice: torch.Tensor | None = None) -> torch.Tensor:
        """The network's input: the transformed observation, then the mask (with ``include_mask``), then the
        advised actions one-hot (with ``advice``)."""
        x = symlog(obs) if self.obs_transform == "symlog" else obs
        parts = [x] + ([masks.float()] if self.include_mask else [])
        if self.advice != "none":
            assert advice is not None, "a network with advice needs the advised actions"
            parts.append(nn.functional.one_hot(advice, self.num_actions).float())
        return torch.cat(parts, dim=1) if len(parts) > 1 else x

    def value(self, obs: torch.Tensor, masks: torch.Tensor, advice: torch.Tensor | None = None) -> torch.Tensor:
        """The critic's value of each observation."""
        return self.critic(self.features(obs, masks, advice)).squeeze(-1)

    def heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits and values of the input ``x`` (a shared trunk is run once for both heads)."""
        if self.shared_trunk:
            h = self.hidden(x)
            logits, values = self.actor[-1](h), self.critic[-1](h).squeeze(-1)
        else:
            logits, values = self.actor(x), self.critic(x).squeeze(-1)
        if self.advice_gain:
            logits = logits + self.advice_gain * x[:, -self.num_actions:]
        return logits, values

    def hidden(self, x: torch.Tensor) -> torch.Tensor:
        """The actor's last hidden layer (after its activation) for the input ``x``."""
        h = x
        for layer in list(self.actor)[:-1]:
            h = layer(h)
        return h

    def act(self, x: torch.Tensor, masks: torch.Tensor):
        """Sampled actions, their log-probabilities and the values (one forward pass for the batch)."""
        logits, values = self.heads(x)
        logp_all = torch.log_softmax(logits.masked_fill(~masks, -1e9), dim=-1)
        actions = torch.multinomial(logp_all.exp(), 1).squeeze(-1)
        return actions, logp_all.gather(1, actions[:, None]).squeeze(-1), values

    def evaluate(self, x: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor, teacher: torch.Tensor):
        """Log-probabilities of ``actions`` and of the ``teacher``'s actions, entropies and values, for the update."""
        logits, values = self.heads(x)
        logp_all = torch.log_softmax(logits.masked_fill(~masks, -1e9), dim=-1)
        entropy = -(logp_all.exp() * logp_all).sum(-1)
        return (logp_all.gather(1, actions[:, None]).squeeze(-1), logp_all.gather(1, teacher[:, None]).squeeze(-1),
                entropy, values)

    def export(self) -> PolicyWeights:
        """The actor as numpy weights (the pickle-free policy format, played with numpy alone)."""
        lin = [m for m in self.actor if isinstance(m, nn.Linear)]
        with torch.no_grad():
            ws = [m.weight.detach().cpu().numpy().astype(np.float32).copy() for m in lin]
            bs = [m.bias.detach().cpu().numpy().astype(np.float32).copy() for m in lin]
        return PolicyWeights(ws, bs, self.activation, self.obs_transform, self.include_mask, self.advice,
                             self.advice_gain)


# ---------------------------------------------------------------------------------------------- environments
class BatchedPoolEnv:
    """``env.n_envs`` games of the batched simulator whose other seats are drawn from the opponent pool.

    Every game that starts an episode draws one pool member per other seat (:meth:`_draw`).  Baselines are pool
    entries of the simulator that its kernel plays; a snapshot is added to the simulator as a numpy policy the
    first time it is drawn.  ``env_method("set_pool", snapshots, selfplay_active)`` is how the run state pushes
    a new snapshot list (the SB3 VecEnv call it uses for the other trainer).
    """

    def __init__(self, cfg: TrainConfig, pool: OpponentPool, seed: int):
        from uno_env.config import make_rules
        from uno_env.vector import UnoSingleAgentVectorEnv

        e = cfg.env
        self.cfg = cfg
        self.pool = pool  # the run state's pool (its stream and results are checkpointed with the run)
        self.rules = make_rules(e.game, e.num_players, e.rules)
        self.num_envs = e.n_envs
        self.env = UnoSingleAgentVectorEnv(e.game, e.n_envs, rules=self.rules, learner_seat=e.learner_seat,
                                           seed=seed, num_threads=e.num_threads or None)
        self.game = self.env.game
        # pool specs -> the simulator's pool index (baselines first, snapshots as they are drawn)
        self._index: dict[str, int] = {}
        self.env.set_opponent_pool([self._opponent(s) for s in pool.baseline_names], sampler=self._draw)
        for i, name in enumerate(pool.baseline_names):
            self._index[name] = i
        self._specs: list[str] = list(pool.baseline_names)
        self._seed = seed
        self._episode_opponents = self.env.opponent_ids.copy()  # whom each game's current episode is against
        self.restored = False  # True after load_state: the games go on where the checkpoint left them
        from uno_env.players.parameters import baseline_weight_array

        self._weights = baseline_weight_array(self.game)
        self._no_shift = np.zeros(self.num_envs, dtype=np.int64)

    # -- exact resume: the games, their opponents and the snapshot players' streams ----------------------------
    def save_state(self, path: str) -> None:
        """Everything that decides the games' futures, as a pickle-free ``.npz``."""
        import json

        arrays: dict[str, Any] = dict(zip(_SNAPSHOT_NAMES, self.env.snapshot(), strict=True))
        players = [getattr(self.env._pool[i], "rng", None) for i in range(len(self._specs))]
        meta = {"specs": self._specs,
                "streams": [None if r is None else r.bit_generator.state for r in players]}
        np.savez(path, opponent_ids=self.env.opponent_ids, episode_opponents=self._episode_opponents,
                 meta=np.array(json.dumps(meta)), **arrays)

    def load_state(self, path: str) -> None:
        """Put the games back as :meth:`save_state` left them (the snapshot files must still exist)."""
        import json

        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            # checkpoints written before the carried rewards existed carried none
            snap = tuple(z[k].copy() if k in z.files else np.zeros(self.env.num_envs, dtype=np.float32)
                         for k in _SNAPSHOT_NAMES)
            ids, episode = z["opponent_ids"].copy(), z["episode_opponents"].copy()
        for spec, stream in zip(meta["specs"], meta["streams"]):
            if spec not in self._index:
                self._index[spec] = self.env.add_opponent(self._opponent(spec, seed=0))
                self._specs.append(spec)
            if stream is not None:
                self.env._pool[self._index[spec]].rng.bit_generator.state = stream
        sampler, self.env._sampler = self.env._sampler, None  # a reset that draws no opponents from the pool ...
        self.env.reset(0)
        self.env._sampler = sampler
        self.env.restore(snap)  # ... since restore() replaces every game
        self.env.opponent_ids[:] = ids
        self._episode_opponents = episode
        self.restored = True

    def _opponent(self, spec: str, seed: int | None = None) -> Any:
        if spec.startswith(SNAPSHOT_PREFIX):
            return NumpyPolicyAgent.load(spec[len(SNAPSHOT_PREFIX):], self.game,
                                         deterministic=self.cfg.opponents.deterministic,
                                         seed=int(self.pool.generator().integers(2**31)) if seed is None else seed)
        return spec

    def _draw(self, games: np.ndarray, env) -> np.ndarray:
        ids = np.empty((games.size, self.env.num_players - 1), dtype=np.int64)
        for i in range(games.size):
            for j in range(ids.shape[1]):
                spec = self.pool.draw()
                if spec not in self._index:
                    self._index[spec] = env.add_opponent(self._opponent(spec))
                    self._specs.append(spec)
                ids[i, j] = self._index[spec]
        return ids

    def teacher_actions(self, obs: np.ndarray, masks: np.ndarray, out: np.ndarray) -> None:
        """The teacher's choice for every learner decision (kickstarting): the compiled heuristic (UNO Dice's own
        in UNO Dice)."""
        from uno_env.players import baselines as BL

        g = self.game
        BL.baseline_actions(BL.KIND_HEURISTIC, obs, masks, g.cfg, g.spec, g.obs_offsets, self._weights,
                            self._no_shift, out)

    def seed(self, seed: int) -> None:
        """The seed of the next :meth:`reset` (game ``b`` gets ``seed + b``)."""
        self._seed = int(seed)

    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        """Start every game (from the seed of :meth:`seed`), or, after :meth:`load_state`, go on with them."""
        if self.restored:
            self.restored = False
            return self.env.observations, self.env.masks
        out = self.env.reset(self._seed)
        self._episode_opponents = self.env.opponent_ids.copy()
        return out

    def step(self, actions: np.ndarray):
        """The learners' actions; the simulator's ``(obs, masks, rewards, terminated, truncated, infos)``.
        Finished games report their result to the pool (with ``sampling: win_rate``)."""
        obs, masks, rew, term, trunc, info = self.env.step(actions)
        done = term | trunc
        if done.any() and self.pool.track_results:
            # the results teach the pool whom the learner loses to (every opponent seat of the game counts)
            ended = np.flatnonzero(done)
            won = info["winner"][ended] == info["final_seat"][ended]
            ids = self._episode_opponents[ended]
            for row, w in zip(ids.tolist(), won.tolist()):
                for pid in row:
                    self.pool.record_result(self._specs[pid], bool(w))
        self._episode_opponents = self.env.opponent_ids.copy()
        return obs, masks, rew, term, trunc, info

    def set_pool(self, snapshots: list[dict], selfplay_active: bool) -> None:
        """Replace the self-play snapshots the opponents are drawn from."""
        self.pool.snapshots = [dict(s) for s in snapshots]
        self.pool.selfplay_active = bool(selfplay_active)

    def env_method(self, name: str, *args, **kwargs):
        """Call a method of this env (the SB3 VecEnv call the run state uses), as a one-item list."""
        return [getattr(self, name)(*args, **kwargs)]

    def close(self) -> None:
        """Release the simulator."""
        self.env.close()


def make_env(cfg: TrainConfig, pool: OpponentPool, seed: int) -> BatchedPoolEnv:
    """The learner's games: the batched simulator with the pool's opponents."""
    return BatchedPoolEnv(cfg, pool, seed)


# ---------------------------------------------------------------------------------------------- the trainer
class BatchedPPO:
    """The network, its optimizer and the step count: what a checkpoint saves and :func:`learn` trains."""

    def __init__(self, cfg: TrainConfig, venv: BatchedPoolEnv, run_dir: str):
        p = cfg.policy
        self.cfg = cfg
        self.venv = venv
        self.net = ActorCritic(venv.game.obs_dim, venv.game.num_actions, list(p.net_arch), p.activation,
                               p.obs_transform, p.include_mask, p.shared_trunk, p.advice, p.advice_gain)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.ppo.learning_rate, eps=1e-5)
        self.num_timesteps = 0
        # where the last learn() left the games (observations, masks, each game's return so far): the next call
        # goes on with them, as MaskablePPO's does. None until then, and in a model loaded from a checkpoint,
        # whose games the env restores
        self.games: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.writer = None
        if cfg.tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(os.path.join(run_dir, "tb", "batched_ppo"))

    def record(self, key: str, value: Any) -> None:
        """Log a scalar to TensorBoard at the current step (nothing without ``tensorboard``)."""
        if self.writer is not None:
            self.writer.add_scalar(key, float(value), self.num_timesteps)


def build(cfg: TrainConfig, venv: BatchedPoolEnv, run_dir: str) -> BatchedPPO:
    """A new model (weights from the global torch generator, seeded by the trainer)."""
    return BatchedPPO(cfg, venv, run_dir)


def load(path: str, cfg: TrainConfig, venv: BatchedPoolEnv, run_dir: str) -> BatchedPPO:
    """The model of a checkpoint this run wrote (``torch.load`` with ``weights_only=True``: tensors, no code)."""
    model = BatchedPPO(cfg, venv, run_dir)
    state = torch.load(path, weights_only=True)
    model.net.load_state_dict(state["net"])
    model.optimizer.load_state_dict(state["optimizer"])
    model.num_timesteps = int(state["num_timesteps"])
    if os.path.exists(path + ENV_SUFFIX):
        try:
            venv.load_state(path + ENV_SUFFIX)
        except ValueError as e:  # a checkpoint of another uno-env version: its state rows no longer fit
            print(f"resume: the checkpoint's games cannot be restored ({e}); the run goes on with new games",
                  flush=True)
    return model


#: beside the model file: the games' state, so a resumed run plays on exactly as an uninterrupted one
ENV_SUFFIX = ".env.npz"


def save(model: BatchedPPO, path: str) -> None:
    """Weights, optimizer and step count (a torch file at ``path``; the checkpoint names it ``model.zip``) and the
    games' state beside it."""
    torch.save({"net": model.net.state_dict(), "optimizer": model.optimizer.state_dict(),
                "num_timesteps": model.num_timesteps}, path)
    if os.path.basename(path) == "model.zip":  # a checkpoint's (the final policy.zip needs no games)
        model.venv.save_state(path + ENV_SUFFIX)


def num_steps(model: BatchedPPO) -> int:
    """Learner steps trained on so far."""
    return model.num_timesteps


def export(model: BatchedPPO) -> PolicyWeights:
    """The actor as numpy weights."""
    return model.net.export()


def value_loss(values: torch.Tensor, returns: torch.Tensor) -> torch.Tensor:
    """The critic's loss: the mean squared error, which ``ppo.vf_coef`` weighs as it does in SB3's PPO and in
    MaskablePPO, so one config gives the critic the same weight in both trainers. (This trainer halved it, as
    CleanRL does, until the speed-of-learning benchmark showed it learning from scratch in more steps than
    MaskablePPO; the shipped configs set ``vf_coef: 0.25``, the weight they were made with.)"""
    return ((values - returns) ** 2).mean()


@dataclass
class Rollout:
    """One rollout's storage: a row per step, a column per game (torch tensors the update reads in minibatches)."""

    feat: torch.Tensor  # the network's input, computed once per step and reused by every epoch
    mask: torch.Tensor
    act: torch.Tensor
    logp: torch.Tensor
    rew: torch.Tensor
    done: torch.Tensor
    val: torch.Tensor
    teach: torch.Tensor  # the heuristic's choices (imitation, kickstarting, advice)

    @classmethod
    def allocate(cls, steps: int, games: int, features: int, actions: int) -> Rollout:
        """Zeroed buffers for ``steps`` x ``games`` decisions."""
        def zeros(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
            return torch.zeros((steps, games, *shape), dtype=dtype)
        return cls(zeros(features), zeros(actions, dtype=torch.bool), zeros(dtype=torch.long), zeros(), zeros(),
                   zeros(), zeros(), zeros(dtype=torch.long))


@dataclass
class _Games:
    """Where the games stand between two steps: the learners' observations and masks (numpy, and as tensors) and
    each game's return so far; plus the finished episodes' returns and results since the last log."""

    obs: np.ndarray
    masks: np.ndarray
    ep_return: np.ndarray
    finished: list[float] = field(default_factory=list)
    wins: list[bool] = field(default_factory=list)

    def tensors(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The observations and legal masks as torch tensors (copies: the simulator reuses its arrays)."""
        return torch.from_numpy(self.obs.copy()), torch.from_numpy(self.masks != 0)


@dataclass
class _Phase:
    """What this rollout does besides plain PPO, from the step count (see the module's docstring)."""

    imitate: bool  # behaviour cloning: the heuristic plays the learner's seat
    kick: float  # the kickstarting weight now
    advised: bool  # the heuristic's choice is an input of the network

    @property
    def needs_teacher(self) -> bool:
        """Whether the heuristic's choice is computed on every step."""
        return self.kick > 0 or self.imitate or self.advised


def _phase(model: BatchedPPO) -> _Phase:
    """Set the learning rate for this rollout and say what it trains (imitation, kickstarting, advice)."""
    p, total, step = model.cfg.ppo, model.cfg.total_steps, model.num_timesteps
    if p.lr_schedule == "linear":  # decays to 0 at total_steps
        for g in model.optimizer.param_groups:
            g["lr"] = p.learning_rate * max(0.0, 1.0 - step / total)
    kick_until = p.kickstart_until * total
    # kickstarting: imitate the heuristic, with a weight that decays to 0 at kickstart_until
    kick = p.kickstart_coef * max(0.0, 1.0 - step / kick_until) if kick_until > 0 else 0.0
    return _Phase(imitate=step < p.imitation_steps, kick=kick, advised=model.net.advice != "none")


def _collect(model: BatchedPPO, buf: Rollout, games: _Games, phase: _Phase, run) -> None:
    """Fill ``buf`` with ``n_steps`` steps of every game: one forward pass for all games per step."""
    env, net = model.venv, model.net
    teacher_np = np.zeros(env.num_envs, dtype=np.int64)
    next_obs, next_mask = games.tensors()
    for t in range(buf.act.shape[0]):
        buf.mask[t] = next_mask
        if phase.needs_teacher:
            env.teacher_actions(games.obs, games.masks, teacher_np)
            buf.teach[t] = torch.from_numpy(teacher_np)
        with torch.inference_mode():
            x = net.features(next_obs, next_mask, buf.teach[t] if phase.advised else None)
            if phase.imitate:
                action, value = buf.teach[t].clone(), net.heads(x)[1]
            else:
                action, logp, value = net.act(x, next_mask)
                buf.logp[t] = logp
        buf.feat[t], buf.act[t], buf.val[t] = x, action, value
        games.obs, games.masks, rew, term, trunc, info = env.step(action.numpy())
        done = term | trunc
        buf.rew[t] = torch.from_numpy(rew)
        buf.done[t] = torch.from_numpy(done.astype(np.float32))
        next_obs, next_mask = games.tensors()
        games.ep_return += rew
        if done.any():
            ended = np.flatnonzero(done)
            games.finished.extend(games.ep_return[ended].tolist())
            games.wins.extend((info["winner"][ended] == info["final_seat"][ended]).tolist())
            games.ep_return[ended] = 0.0
        model.num_timesteps += env.num_envs
        run.advance(env.num_envs)


def _bootstrap_value(model: BatchedPPO, games: _Games, phase: _Phase) -> torch.Tensor:
    """The critic's value of where every game stands after the rollout."""
    next_advice = None
    if phase.advised:
        teacher_np = np.zeros(model.venv.num_envs, dtype=np.int64)
        model.venv.teacher_actions(games.obs, games.masks, teacher_np)
        next_advice = torch.from_numpy(teacher_np)
    with torch.no_grad():
        return model.net.value(*games.tensors(), next_advice)


def advantages(buf: Rollout, next_value: torch.Tensor, gamma: float, lam: float) -> tuple[torch.Tensor, torch.Tensor]:
    """GAE(lambda) advantages and the returns the critic learns; an ended game's next observation is its next
    episode's, so a done step is not bootstrapped."""
    T, B = buf.rew.shape
    adv = torch.zeros((T, B))
    last = torch.zeros(B)
    for t in reversed(range(T)):
        nonterminal = 1.0 - buf.done[t]
        nv = next_value if t == T - 1 else buf.val[t + 1]
        delta = buf.rew[t] + gamma * nv * nonterminal - buf.val[t]
        last = delta + gamma * lam * nonterminal * last
        adv[t] = last
    return adv, adv + buf.val


#: rows of a rollout the hidden-layer diagnostics look at
HIDDEN_PROBE_ROWS = 2048


def hidden_diagnostics(net: ActorCritic, x: torch.Tensor) -> dict[str, float]:
    """How much the actor's last hidden layer still tells states apart, on the inputs ``x``: ``hidden_spread`` is
    the mean over its units of their standard deviation across the rows (near 0: every state gets the same hidden
    vector, so the policy is one fixed preference over the actions, whatever the state); ``hidden_stuck`` is the
    share of (unit, row) outputs that pass (almost) no gradient (tanh: beyond 0.99 in magnitude; relu: 0), and
    ``hidden_dead`` the share of units stuck so on every row."""
    with torch.no_grad():
        h = net.hidden(x)
        stuck = (h.abs() > 0.99) if net.activation == "tanh" else (h <= 0)
        return {"hidden_spread": float(h.std(0).mean()), "hidden_stuck": float(stuck.float().mean()),
                "hidden_dead": float(stuck.all(0).float().mean())}


def _update(model: BatchedPPO, buf: Rollout, adv: torch.Tensor, returns: torch.Tensor, phase: _Phase
            ) -> dict[str, float]:
    """``n_epochs`` over shuffled minibatches; the last minibatch's losses and the update's statistics."""
    p, net, opt = model.cfg.ppo, model.net, model.optimizer
    T, B, A = buf.mask.shape
    n = T * B
    b_feat, b_mask = buf.feat.reshape(n, -1), buf.mask.reshape(n, A)
    b_act, b_logp, b_teach = buf.act.reshape(-1), buf.logp.reshape(-1), buf.teach.reshape(-1)
    b_adv, b_ret = adv.reshape(-1), returns.reshape(-1)
    clipfracs, approx_kl = [], torch.tensor(0.0)
    for _epoch in range(p.n_epochs):
        order = torch.randperm(n)
        for start in range(0, n, p.batch_size):
            idx = order[start: start + p.batch_size]
            new_logp, teacher_logp, entropy, new_val = net.evaluate(b_feat[idx], b_mask[idx], b_act[idx],
                                                                    b_teach[idx])
            log_ratio = new_logp - b_logp[idx]
            ratio = log_ratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > p.clip_range).float().mean().item())
            mb_adv = b_adv[idx]
            if p.normalize_advantage:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - p.clip_range, 1 + p.clip_range)).mean()
            v_loss = value_loss(new_val, b_ret[idx])
            if phase.imitate and net.advice_gain:  # a residual policy already plays the heuristic: warm the critic
                loss = p.vf_coef * v_loss
            elif phase.imitate:  # the teacher's choices and the value of its games; no policy gradient
                loss = -teacher_logp.mean() + p.vf_coef * v_loss
            else:
                loss = pg_loss - p.ent_coef * entropy.mean() + p.vf_coef * v_loss
            if phase.kick > 0 and not phase.imitate:
                loss = loss - phase.kick * teacher_logp.mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), p.max_grad_norm)
            opt.step()
        if p.target_kl is not None and not phase.imitate and approx_kl > p.target_kl:
            break
    var_y = b_ret.var()
    stats = {"policy_loss": pg_loss.item(), "value_loss": v_loss.item(), "entropy": entropy.mean().item(),
             "approx_kl": approx_kl.item(), "clip_fraction": float(np.mean(clipfracs)),
             "explained_variance": float(1 - (b_ret - buf.val.reshape(-1)).var() / var_y) if var_y > 0 else 0.0}
    stats.update(hidden_diagnostics(net, b_feat[:HIDDEN_PROBE_ROWS]))
    if phase.imitate:
        stats["imitation_loss"] = -teacher_logp.mean().item()
    elif phase.kick > 0 or phase.advised:  # with advice: how often the policy follows the heuristic
        stats["teacher_agreement"] = float((b_act == b_teach).float().mean())
    return stats


def _log(model: BatchedPPO, stats: dict[str, float], phase: _Phase, games: _Games, rollout_s: float,
         update_s: float) -> None:
    """The rollout's statistics to TensorBoard."""
    for key, value in stats.items():
        model.record(f"train/{key}", value)
    model.record("train/learning_rate", model.optimizer.param_groups[0]["lr"])
    model.record("train/kickstart_coef", phase.kick)
    model.record("train/imitation", float(phase.imitate))
    steps = model.venv.num_envs * model.cfg.ppo.n_steps
    model.record("time/env_steps_per_s", steps / max(rollout_s + update_s, 1e-9))
    model.record("time/rollout_fraction", rollout_s / max(rollout_s + update_s, 1e-9))
    if games.finished:
        model.record("rollout/ep_rew_mean", float(np.mean(games.finished)))
        model.record("rollout/win_rate", float(np.mean(games.wins)))
        games.finished.clear()
        games.wins.clear()
    for name, rate in model.venv.pool.win_rates().items():
        model.record(f"pool/learner_win_rate/{name}", rate)


def blas_threads(threads: int) -> Any:
    """A context keeping numpy's BLAS to ``threads`` threads (0: as it is) while the games are played: the frozen
    snapshots in the opponents' seats are numpy networks over a few rows at a time, where OpenBLAS's threads gain
    nothing and, on a busy machine, spin against each other (the snapshots' moves took 10x the CPU time with 2
    BLAS threads on a loaded 2-core machine: 7.7k against 72k learner steps per CPU second)."""
    if not threads:
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - in the train extra
        return contextlib.nullcontext()
    return threadpool_limits(limits=threads, user_api="blas")


def learn(model: BatchedPPO, steps: int, run) -> None:
    """Train for ``steps`` more learner steps (whole rollouts), calling the run state between rollouts."""
    with blas_threads(model.cfg.torch_threads):
        _learn(model, steps, run)


def _learn(model: BatchedPPO, steps: int, run) -> None:
    p, env, net = model.cfg.ppo, model.venv, model.net
    A = env.game.num_actions
    F = env.game.obs_dim + (A if net.include_mask else 0) + (A if net.advice != "none" else 0)
    buf = Rollout.allocate(p.n_steps, env.num_envs, F, A)
    if model.games is None:
        obs, masks = env.reset()
        games = _Games(obs, masks, np.zeros(env.num_envs))
    else:
        games = _Games(*model.games)
    target = model.num_timesteps + steps
    while model.num_timesteps < target:
        run.between_rollouts(model, model.num_timesteps, model.record)
        phase = _phase(model)
        t0 = time.perf_counter()
        _collect(model, buf, games, phase, run)
        rollout_s = time.perf_counter() - t0
        adv, returns = advantages(buf, _bootstrap_value(model, games, phase), p.gamma, p.gae_lambda)
        t1 = time.perf_counter()
        stats = _update(model, buf, adv, returns, phase)
        _log(model, stats, phase, games, rollout_s, time.perf_counter() - t1)
    model.games = (games.obs.copy(), games.masks.copy(), games.ep_return)
    if model.writer is not None:
        model.writer.flush()
