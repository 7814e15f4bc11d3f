"""Trained policies in a pickle-free format, played with numpy alone (no torch needed to play them).

A saved policy is two files: ``<stem>.npz`` holds the actor's layers (``W0, b0, ... Wn, bn``, plain float32
arrays, read with ``allow_pickle=False``) and a JSON string ``meta`` with the architecture (activation, input
transform, whether the mask is an input) and what it was trained for (game, players, rules, sizes);
``<stem>.json`` beside it repeats that metadata for people and tools.  Loading runs no code from the file,
unlike Stable-Baselines3 zips and RLlib checkpoints, which unpickle Python objects.

* :class:`PolicyWeights`: the network (an MLP over ``symlog(observation)`` and, optionally, the action mask and
  the heuristic's suggestion, ``advice``).
* :func:`save_policy_files` / :func:`load_weights`: write and read the two files.
* :class:`NumpyPolicyAgent`: a policy as an agent (``act``, ``act_batch``, ``reset``): the most likely legal
  action, or a sample from the masked softmax with its own seeded stream.
* :func:`heuristic_advisor`: the heuristic's choice for a batch of decisions, the ``advice`` input (the compiled
  heuristic of :mod:`uno_env.players.card_heuristic`: numba, a core dependency, so still no torch).
"""
from __future__ import annotations

import json
import math
import os
import zipfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .base import NoLegalActionError, resolve_game, split_observation

__all__ = ["PolicyWeights", "save_weights", "save_policy_files", "load_weights", "NumpyPolicyAgent",
           "heuristic_advisor", "compiled_heuristic", "PolicyFormatError", "POLICY_FORMAT"]

#: the ``format`` field of a policy's metadata
POLICY_FORMAT = "uno-env policy v1"
_ACTIVATIONS = ("tanh", "relu")
_TRANSFORMS = ("symlog", "none")
#: what a policy may be told besides the observation: nothing, or the heuristic's choice (a one-hot over the
#: actions, computed from the same observation and mask by :func:`heuristic_advisor`)
ADVICE = ("none", "heuristic")


class PolicyFormatError(ValueError):
    """A policy file that is not a readable uno-env policy (missing arrays, bad metadata, wrong shapes)."""


@dataclass
class PolicyWeights:
    """The actor of an MLP policy as numpy arrays: input transform, hidden layers, logits layer."""

    weights: list[np.ndarray]  # (out, in) per layer, the last one gives the logits
    biases: list[np.ndarray]
    activation: str  # "tanh" | "relu"
    obs_transform: str  # "symlog" | "none"
    include_mask: bool
    advice: str = "none"  # "heuristic": the heuristic's choice, one-hot, follows the observation (and mask)
    advice_gain: float = 0.0  # added to the advised action's logit: the policy is the heuristic until it learns not to

    @property
    def obs_dim(self) -> int:
        """The observation length the network takes (the mask and the advice excluded)."""
        extra = (self.num_actions if self.include_mask else 0) + (self.num_actions if self.advice != "none" else 0)
        return self.weights[0].shape[1] - extra

    @property
    def num_actions(self) -> int:
        """The number of logits, A."""
        return self.weights[-1].shape[0]

    def logits(self, obs: np.ndarray, masks: np.ndarray, advice: np.ndarray | None = None) -> np.ndarray:
        """The action logits (B, A) of observations (B, D) with legal masks (B, A), in numpy; a policy with
        ``advice`` also takes the advised action of every row (B,)."""
        x = np.asarray(obs, dtype=np.float32)
        if self.obs_transform == "symlog":
            x = np.sign(x) * np.log1p(np.abs(x))
        if self.include_mask:
            x = np.concatenate([x, np.asarray(masks, dtype=np.float32)], axis=1)
        if self.advice != "none":
            if advice is None:
                raise ValueError(f"this policy takes the {self.advice}'s suggested actions as an input (advice)")
            hint = np.zeros((x.shape[0], self.num_actions), dtype=np.float32)
            hint[np.arange(x.shape[0]), np.asarray(advice, dtype=np.int64)] = 1.0
            x = np.concatenate([x, hint], axis=1)
        last = len(self.weights) - 1
        inp = x
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w.T + b
            if i < last:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0, out=x)
        if self.advice != "none" and self.advice_gain:
            x = x + np.float32(self.advice_gain) * inp[:, -self.num_actions:]
        return x


def _network_meta(pw: PolicyWeights, meta: Mapping[str, Any]) -> dict[str, Any]:
    """``meta`` plus what :func:`load_weights` needs to rebuild the network (the .npz and the .json say the same)."""
    return {**meta, "activation": pw.activation, "obs_transform": pw.obs_transform, "include_mask": pw.include_mask,
            "advice": pw.advice, "advice_gain": pw.advice_gain, "layers": len(pw.weights)}


def save_weights(pw: PolicyWeights, path: str, meta: Mapping[str, Any] | None = None,
                 dtype: Any = np.float32) -> None:
    """Write ``pw`` as an ``.npz`` (``W0, b0, ... W{n}, b{n}`` and a JSON ``meta`` string), atomically.

    ``dtype=np.float16`` halves the file (the shipped policies); loading always gives float32."""
    # Any: numpy's stub types np.savez's **kwds beside its bool allow_pickle keyword, so an ndarray dict clashes
    arrays: dict[str, Any] = {}
    for i, (w, b) in enumerate(zip(pw.weights, pw.biases)):
        arrays[f"W{i}"] = np.asarray(w, dtype=dtype)
        arrays[f"b{i}"] = np.asarray(b, dtype=dtype)
    info = _network_meta(pw, meta or {})
    tmp = path + ".tmp.npz"
    np.savez(tmp, meta=np.array(json.dumps(info)), **arrays)
    os.replace(tmp, path)


def save_policy_files(pw: PolicyWeights, path: str, meta: Mapping[str, Any], dtype: Any = np.float32) -> str:
    """``<stem>.npz`` (weights + metadata) and ``<stem>.json`` (the metadata) for ``path`` (``.npz`` or a stem)."""
    stem = path[:-4] if path.endswith(".npz") else path
    info = {"format": POLICY_FORMAT, **meta}
    save_weights(pw, stem + ".npz", info, dtype)
    tmp = stem + ".json.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(_network_meta(pw, info), f, indent=2)
        f.write("\n")
    os.replace(tmp, stem + ".json")
    return stem + ".npz"


#: the most bytes the arrays of a policy file may declare, together (the .npy headers are read before any array is):
#: the shipped policies hold a few hundred KB, so this leaves room for far larger networks while a crafted header or
#: a zip bomb cannot make the loader allocate gigabytes
MAX_POLICY_BYTES = 64 * 2**20


def _member(zf: zipfile.ZipFile, key: str) -> zipfile.ZipInfo | None:
    """The zip member numpy's ``np.load(...)[key]`` would read (a member named ``key`` itself first)."""
    names = zf.namelist()
    for name in (key, key + ".npy"):
        if name in names:
            return zf.getinfo(name)
    return None


def _declared_bytes(zf: zipfile.ZipFile, path: str, info: zipfile.ZipInfo, key: str, kinds: str) -> int:
    """The bytes array ``key`` of the policy ``path`` declares in its .npy header, which must give a dtype of
    ``kinds``; nothing past the header is read."""
    fmt = np.lib.format
    with zf.open(info) as f:
        if f.read(len(fmt.MAGIC_PREFIX)) != fmt.MAGIC_PREFIX:
            raise PolicyFormatError(f"policy {path!r}: entry {key!r} is not a .npy array")
        f.seek(0)
        version = fmt.read_magic(f)
        if version == (1, 0):
            shape, _, dtype = fmt.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, _, dtype = fmt.read_array_header_2_0(f)
        else:
            raise PolicyFormatError(f"policy {path!r}: entry {key!r} has .npy format version {version}; expected "
                                    f"1.0 or 2.0 (what numpy writes)")
    if dtype.kind not in kinds:
        what = "real numbers" if kinds == "fiu" else "a text string"
        raise PolicyFormatError(f"policy {path!r}: not a pickle-free uno-env policy .npz (entry {key!r} holds "
                                f"{dtype}, not {what})")
    if any(d < 0 for d in shape):
        raise PolicyFormatError(f"policy {path!r}: entry {key!r} declares the shape {shape}")
    return math.prod(shape) * dtype.itemsize


def _checked_members(zf: zipfile.ZipFile, path: str, members: dict[str, zipfile.ZipInfo], kinds: str,
                     budget: int) -> int:
    """The bytes left of ``budget`` once every member's declared size is taken; refuses the member that passes it
    before any array is read."""
    for key, info in members.items():
        size = _declared_bytes(zf, path, info, key, kinds)
        if size > budget:
            raise PolicyFormatError(
                f"policy {path!r}: entry {key!r} declares {size} bytes, more than is left of the "
                f"{MAX_POLICY_BYTES} bytes a policy file may hold; refused (not a uno-env policy)")
        budget -= size
    return budget


def _read(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
    with zf.open(info) as f:
        return np.lib.format.read_array(f, allow_pickle=False)


def load_weights(path: str | os.PathLike) -> tuple[PolicyWeights, dict[str, Any]]:
    """The network and metadata of a policy ``.npz``; never unpickles, and refuses a file whose arrays' headers
    declare more than :data:`MAX_POLICY_BYTES` in all before reading any of them."""
    path = os.fspath(path)
    try:
        with zipfile.ZipFile(path) as zf:
            meta = _member(zf, "meta")
            if meta is None:
                raise PolicyFormatError(f"policy {path!r}: no 'meta' entry; not a uno-env policy .npz")
            budget = _checked_members(zf, path, {"meta": meta}, "US", MAX_POLICY_BYTES)
            text = _read(zf, meta)
            if text.shape != ():
                raise PolicyFormatError(f"policy {path!r}: 'meta' must be one JSON string, got an array of shape "
                                        f"{text.shape}")
            try:
                info = json.loads(str(text))
            except RecursionError:
                raise PolicyFormatError(f"policy {path!r}: 'meta' nests too deeply to read; not a uno-env policy "
                                        f"(its metadata is a flat JSON object)") from None
            if not isinstance(info, dict):
                raise PolicyFormatError(f"policy {path!r}: 'meta' is not a JSON object")
            n = info.get("layers")
            if type(n) is not int or not 1 <= n <= 64:  # the exact type: JSON true is a bool, an int subclass
                raise PolicyFormatError(f"policy {path!r}: meta 'layers' must be an integer in 1..64, got {n!r}")
            found = {k: _member(zf, k) for i in range(n) for k in (f"W{i}", f"b{i}")}
            missing = [k for k, m in found.items() if m is None]
            if missing:
                raise PolicyFormatError(f"policy {path!r}: missing arrays {missing}")
            members = {k: m for k, m in found.items() if m is not None}
            _checked_members(zf, path, members, "fiu", budget)
            ws = [np.asarray(_read(zf, members[f"W{i}"]), dtype=np.float32) for i in range(n)]
            bs = [np.asarray(_read(zf, members[f"b{i}"]), dtype=np.float32) for i in range(n)]
    except PolicyFormatError:
        raise
    except RecursionError:
        raise PolicyFormatError(f"policy {path!r}: nests too deeply to read; not a uno-env policy .npz") from None
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError) as e:
        # RuntimeError: an encrypted member; NotImplementedError: an unknown compression method
        raise PolicyFormatError(f"policy {path!r}: cannot read it as an .npz: {e}") from None
    except (ValueError, SyntaxError) as e:  # object arrays (pickles), malformed headers, zips or JSON
        raise PolicyFormatError(f"policy {path!r}: not a pickle-free uno-env policy .npz ({e})") from None
    for key, allowed in (("activation", _ACTIVATIONS), ("obs_transform", _TRANSFORMS)):
        if info.get(key) not in allowed:
            raise PolicyFormatError(f"policy {path!r}: meta {key!r} must be one of {allowed}, got {info.get(key)!r}")
    if not isinstance(info.get("include_mask"), bool):
        raise PolicyFormatError(f"policy {path!r}: meta 'include_mask' must be true or false")
    advice = info.get("advice", "none")  # files written before the advice input have none
    if advice not in ADVICE:
        raise PolicyFormatError(f"policy {path!r}: meta 'advice' must be one of {ADVICE}, got {advice!r}")
    gain = info.get("advice_gain", 0.0)
    if isinstance(gain, bool) or not isinstance(gain, (int, float)) or not 0.0 <= gain <= 100.0:
        raise PolicyFormatError(f"policy {path!r}: meta 'advice_gain' must be a number in 0..100, got {gain!r}")
    prev = None
    for i, (w, b) in enumerate(zip(ws, bs)):
        if w.ndim != 2 or b.shape != (w.shape[0],) or (prev is not None and w.shape[1] != prev):
            raise PolicyFormatError(f"policy {path!r}: layer {i} has weights {w.shape} and biases {b.shape}, "
                                    f"which do not chain")
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise PolicyFormatError(f"policy {path!r}: layer {i} holds NaN or infinite values")
        prev = w.shape[0]
    pw = PolicyWeights(ws, bs, info["activation"], info["obs_transform"], info["include_mask"], advice, float(gain))
    if pw.obs_dim < 1:
        raise PolicyFormatError(f"policy {path!r}: the first layer is too narrow for its mask and advice inputs")
    return pw, info


def compiled_heuristic(game: Any, weights: Mapping[str, float] | None = None
                       ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``f(observations (B, D), masks (B, A)) -> (B,) int64``: the compiled heuristic, the code
    :class:`~uno_env.agents.heuristic.HeuristicAgent` plays, with the same ``weights`` (in UNO Dice its dice player
    with the default dice weights, as the agent plays), with its inputs checked
    (:class:`~uno_env.agents.compiled.CompiledPlayer`)."""
    from uno_env.players.baselines import KIND_HEURISTIC
    from uno_env.players.parameters import baseline_weight_array

    from .compiled import CompiledPlayer

    g = resolve_game(game)
    return CompiledPlayer(g, KIND_HEURISTIC, baseline_weight_array(g, dict(weights or {})), "heuristic advice")


def heuristic_advisor(game: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``f(observations (B, D), masks (B, A)) -> (B,) int64``: the heuristic's action for every row, the input of
    a policy trained with ``advice: heuristic``: the compiled heuristic (the ``heuristic`` agent's choices)."""
    return compiled_heuristic(resolve_game(game))


#: relative gap between the two best logits under which :meth:`NumpyPolicyAgent.act_batch` recomputes a row alone:
#: batch and single-row BLAS differ by about 1e-6 of the logits' size, far below it
_TIE_MARGIN = 1e-3


class NumpyPolicyAgent:
    """A policy network played with numpy: ``act``/``act_batch``/``reset`` like the other agents.

    ``deterministic`` takes the most likely legal action; otherwise it samples from the masked softmax (Gumbel
    trick, one seeded stream).  Build it from :class:`PolicyWeights` or load one with :meth:`load`.  A policy
    trained with ``advice: heuristic`` asks :func:`heuristic_advisor` (the compiled heuristic)
    for the heuristic's choice on every observation and feeds it to the network (``game``, or the rules in the
    file's metadata, says which game the heuristic plays).
    """

    def __init__(self, weights: PolicyWeights, name: str = "policy", deterministic: bool = False,
                 seed: int | None = None, meta: Mapping[str, Any] | None = None, game: Any = None):
        self.weights = weights
        self.name = name
        self.deterministic = deterministic
        self.num_actions = weights.num_actions
        self.meta = dict(meta or {})
        self._seed = seed
        self.rng = np.random.default_rng(seed)
        self._advisor: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
        if weights.advice != "none":
            self._advisor = self._make_advisor(game)

    def _make_advisor(self, game: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        """The heuristic whose choice a policy with ``advice`` takes as an input (deterministic)."""
        if game is None:
            from uno_env.config import RuleConfig

            rules = self.meta.get("rules")
            if not isinstance(rules, Mapping):
                raise ValueError(f"policy {self.name!r} takes the heuristic's advice: give the game it plays (its "
                                 f"metadata names no rules)")
            game = RuleConfig.from_dict(rules)
        g = resolve_game(game)
        if g.obs_dim != self.weights.obs_dim or g.num_actions != self.num_actions:
            raise ValueError(f"policy {self.name!r} expects observations of shape ({self.weights.obs_dim},) and "
                             f"{self.num_actions} actions, but game {g.name!r} with {g.num_players} players gives "
                             f"({g.obs_dim},) and {g.num_actions}")
        return heuristic_advisor(g)

    @classmethod
    def load(cls, path: str | os.PathLike, game: Any = None, name: str | None = None, deterministic: bool = False,
             seed: int | None = None) -> NumpyPolicyAgent:
        """The policy in ``path`` (an ``.npz``); with ``game``, checked against its observation and action sizes."""
        pw, info = load_weights(path)
        if game is not None:
            g = resolve_game(game)
            trained = info.get("game")
            if isinstance(trained, str) and trained != g.name:
                raise ValueError(f"policy {os.fspath(path)!r} was trained for {trained!r}, not {g.name!r}")
            if pw.obs_dim != g.obs_dim or pw.num_actions != g.num_actions:
                raise ValueError(
                    f"policy {os.fspath(path)!r} expects observations of shape ({pw.obs_dim},) and "
                    f"{pw.num_actions} actions, but game {g.name!r} with {g.num_players} players gives "
                    f"({g.obs_dim},) and {g.num_actions}")
        stem = os.path.splitext(os.path.basename(os.fspath(path)))[0]
        return cls(pw, name=name or info.get("name") or stem, deterministic=deterministic, seed=seed, meta=info,
                   game=game)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the agent's sampling stream (``None``: fresh entropy)."""
        self._seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """The policy's action for one seat's ``observation`` and legal ``action_mask``."""
        observation, action_mask = split_observation(observation, action_mask)
        obs = np.asarray(observation, dtype=np.float32)[None, :]
        mask = action_mask[None, :]
        if not mask.any():
            raise NoLegalActionError(f"{self.name}: no legal action (all-zero mask)")
        return int(self.act_batch(obs, mask)[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The policy's actions for a batch: sampled (Gumbel-max) or, if deterministic, the argmax of the legal logits.
        """
        masks = np.asarray(action_masks) != 0
        advice = None if self._advisor is None else self._advisor(observations, action_masks)
        logits = self.weights.logits(observations, masks, advice)
        noise = None
        if not self.deterministic:
            u = self.rng.random(logits.shape, dtype=np.float32)
            noise = np.log(-np.log(np.clip(u, 1e-12, 1.0 - 1e-7)))
            logits = logits - noise
        logits[~masks] = -np.inf
        out = np.argmax(logits, axis=1).astype(np.int64)
        if logits.shape[0] > 1:
            # BLAS sums a batch in another order than a single row, which moves the logits in their last bits: where
            # the best two are that close, the row is computed alone, so that a choice never depends on its batch
            # (the batched arena plays the games of the one-at-a-time arena)
            top = np.partition(logits, -2, axis=1)[:, -2:]
            close = ~(top[:, 1] - top[:, 0] > _TIE_MARGIN * np.maximum(1.0, np.abs(top[:, 1])))
            obs = np.asarray(observations)
            for r in np.flatnonzero(close):
                one = self.weights.logits(obs[r: r + 1], masks[r: r + 1], None if advice is None else advice[r: r + 1])
                if noise is not None:
                    one = one - noise[r: r + 1]
                one[~masks[r: r + 1]] = -np.inf
                out[r] = int(np.argmax(one, axis=1)[0])
        return out

    def __repr__(self) -> str:
        return f"NumpyPolicyAgent(name={self.name!r}, deterministic={self.deterministic})"
