"""Agents by name, and saved policies by path: ``load_agent("heuristic", game)``,
``load_agent("runs/classic_ppo/policy.npz", game)``.

Saved policies load from the pickle-free format by default (:mod:`uno_env.agents.policy`: an ``.npz`` of
weights with JSON metadata, played with numpy).  Stable-Baselines3 zips and RLlib checkpoints unpickle Python
objects when they load, so a crafted file runs code: they load only with ``allow_pickle=True`` (the command
line's ``--trust-pickle``), and then import torch (and ray).  Importing :mod:`agents` never imports torch: the
modules that need torch, ray or sb3-contrib are imported only when such a file is loaded.
"""
from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from uno_env.yaml_io import short_repr

from .base import BaseAgent, NoLegalActionError, UnknownAgentError, resolve_game, split_observation
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .human import HumanAgent
from .ismcts import ISMCTS_ARGUMENTS, ISMCTSAgent
from .policy import NumpyPolicyAgent, PolicyFormatError
from .ppo import make_ppo_agent
from .random_agent import RandomAgent
from .rlcard_rule import RLCardRuleAgent

__all__ = ["BASELINES", "AGENT_ARGUMENTS", "parse_agent_spec",
           "available_agents", "make_agent", "load_agent", "register_agent", "SB3PolicyAgent",
           "UnknownAgentError", "UntrustedPolicyError"]

#: the pickle-free policy file a training run writes (``runs/NAME/policy.npz``)
POLICY_NPZ = "policy.npz"


class UntrustedPolicyError(UnknownAgentError):
    """A policy file that would be unpickled (SB3 zip, RLlib checkpoint) given without ``allow_pickle=True``."""


#: name -> factory(game, seed=None, **kwargs) -> Agent
BASELINES: dict[str, Callable[..., Any]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "rlcard-rule": RLCardRuleAgent,
    "ppo": make_ppo_agent,
    "ismcts": ISMCTSAgent,
    "human": HumanAgent,
}

#: name -> () -> {argument: what it accepts}: the agents that take ``name:arg=value,...`` arguments
AGENT_ARGUMENTS: dict[str, Callable[[], dict[str, str]]] = {"ismcts": lambda: ISMCTS_ARGUMENTS}


def _parse_value(text: str) -> Any:
    """An argument value from the command line: an int, else a finite float, else the text itself."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return text
    # "inf", "nan" and "1e999" stay text, so that the agent refuses them as it does any other word (naming the
    # allowed values) instead of tripping over an infinite number
    return value if math.isfinite(value) else text


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"ismcts:sims=400,rollout=greedy"`` -> ``("ismcts", {"sims": 400, "rollout": "greedy"})``.

    A spec without ``:`` (or whose part before it is not an agent name) has no arguments.  Unknown agents,
    unknown arguments and malformed ``key=value`` pairs raise :class:`UnknownAgentError` naming what is allowed;
    the agent itself checks each value's range.
    """
    name, sep, rest = spec.partition(":")
    if not sep or name.lower() not in BASELINES:
        return spec, {}
    name = name.lower()
    allowed = AGENT_ARGUMENTS[name]() if name in AGENT_ARGUMENTS else {}
    if not allowed:
        raise UnknownAgentError(f"agent {name!r} takes no arguments (got {rest!r}); agents with arguments: "
                                f"{', '.join(AGENT_ARGUMENTS)}")
    kwargs: dict[str, Any] = {}
    for part in rest.split(","):
        key, eq, value = (x.strip() for x in part.partition("="))
        if not eq or not key or not value:
            raise UnknownAgentError(f"agent {spec!r}: expected {name}:key=value[,key=value...], got {part!r}")
        if key not in allowed:
            listing = "; ".join(f"{k}: {v}" for k, v in allowed.items())
            raise UnknownAgentError(f"agent {spec!r}: unknown argument {key!r} for {name}; allowed: {listing}")
        if key in kwargs:
            raise UnknownAgentError(f"agent {spec!r}: argument {key!r} given twice")
        kwargs[key] = _parse_value(value)
    return name, kwargs


def available_agents() -> list[str]:
    """The names :func:`load_agent` accepts (besides paths)."""
    return list(BASELINES)


def register_agent(name: str, factory: Callable[..., Any]) -> None:
    """Add a named agent: ``factory(game, seed=None)`` must return an object with ``act``/``act_batch``."""
    if not isinstance(name, str) or not name or os.sep in name or name.endswith(".zip"):
        raise ValueError(f"agent name must be a plain non-empty string, got {name!r}")
    BASELINES[name] = factory


def make_agent(name: str, game: Any, seed: int | None = None, **kwargs: Any):
    """A baseline by name (``random``, ``greedy``, ``heuristic``, ``rlcard-rule``, ``ppo``, ``human``) for
    ``game``."""
    try:
        factory = BASELINES[name]
    except KeyError:
        raise UnknownAgentError(
            f"unknown agent {name!r}; choose one of {', '.join(BASELINES)} or give the path of a saved policy"
        ) from None
    return factory(resolve_game(game), seed=seed, **kwargs)


def _looks_like_path(spec: str) -> bool:
    return os.sep in spec or "/" in spec or spec.endswith((".zip", ".npz")) or Path(spec).exists()


def _is_rllib_checkpoint(path: Path) -> bool:
    return (any((p / "rllib_checkpoint.json").is_file() for p in (path, path / "final"))
            or (path / "module_state.pkl").is_file())


def _refuse(spec: str, kind: str, instead: Path | None) -> UntrustedPolicyError:
    alt = (f"load the pickle-free policy written beside it ({instead})" if instead is not None
           else "use a pickle-free policy.npz instead (uno-env's trainers write one with every policy)")
    return UntrustedPolicyError(
        f"agent {spec!r} is {kind}: loading it unpickles Python objects, so a crafted file can run any code. "
        f"To play it safely, {alt}; if you trust where it came from, pass --trust-pickle (allow_pickle=True in "
        f"Python)")


def load_agent(spec: Any, game: Any, seed: int | None = None, *, allow_pickle: bool = False):
    """An agent from ``spec``: a baseline name (with arguments: ``"ismcts:sims=400,rollout=greedy"``), the path of
    a saved policy, or an agent object.

    Saved policies: a pickle-free ``.npz`` (:mod:`uno_env.agents.policy`), or a run directory holding
    ``policy.npz`` (``uno-env train`` and ``uno-env train-rllib`` write one).  A Stable-Baselines3 ``.zip`` or an
    RLlib checkpoint directory loads only with ``allow_pickle=True``: both unpickle, so a crafted file runs
    code; without it they raise :class:`UntrustedPolicyError` before the file is opened.

    ``game`` is a :class:`~uno_env.core.game.Game`, a game name, a RuleConfig or an environment.  A bad name or
    a missing / unreadable file raises :class:`UnknownAgentError` (a ``ValueError``) or ``FileNotFoundError``
    with a message that says what was expected.
    """
    if not isinstance(spec, (str, os.PathLike)):
        if callable(getattr(spec, "act", None)):
            return spec
        raise TypeError(f"agent spec must be a name, a path or an object with act(); got {type(spec).__name__}")
    spec = os.fspath(spec)
    name, kwargs = parse_agent_spec(spec)
    if kwargs:
        try:
            return make_agent(name, game, seed=seed, **kwargs)
        except ValueError as exc:
            raise UnknownAgentError(f"agent {short_repr(spec)}: {exc}") from None
    if spec in BASELINES:
        return make_agent(spec, game, seed=seed)
    if spec.lower() in BASELINES:
        return make_agent(spec.lower(), game, seed=seed)
    if not _looks_like_path(spec):
        raise UnknownAgentError(
            f"unknown agent {spec!r}: not a baseline ({', '.join(BASELINES)}) and not the path of a saved policy"
        )
    path = Path(spec)
    if not path.exists() and path.suffix not in (".npz", ".zip"):  # the suffix may be left out
        path = next((p for p in (Path(spec + ".npz"), Path(spec + ".zip")) if p.exists()), path)
    if not path.exists():
        raise FileNotFoundError(f"agent {spec!r}: no such file (expected a baseline name or a saved policy, "
                                f"e.g. runs/NAME/policy.npz)")
    if path.is_dir():
        npz = path / POLICY_NPZ
        rllib = _is_rllib_checkpoint(path)
        if rllib and allow_pickle:
            from .rllib_policy import load_rllib_agent

            return load_rllib_agent(path, game, seed=seed)
        for cand in (npz, path / "final" / POLICY_NPZ):
            if cand.is_file():
                return _numpy_agent(cand, game, seed)
        if rllib:
            raise _refuse(spec, "an RLlib checkpoint", None)
        raise UnknownAgentError(
            f"agent {spec!r} is a directory without a {POLICY_NPZ}; expected a saved policy (.npz), a run "
            f"directory of `uno-env train` / `uno-env train-rllib`, or (with --trust-pickle) an RLlib checkpoint")
    if path.suffix == ".npz":
        return _numpy_agent(path, game, seed)
    if path.suffix == ".zip":
        if not allow_pickle:
            beside = path.with_suffix(".npz")
            raise _refuse(spec, "a Stable-Baselines3 zip", beside if beside.is_file() else None)
        return SB3PolicyAgent(str(path), game, seed=seed)
    raise UnknownAgentError(f"agent {spec!r}: unknown policy file type {path.suffix or '(none)'!r}; expected a "
                            f"pickle-free .npz (or, with --trust-pickle, a Stable-Baselines3 .zip)")


def _numpy_agent(path: Path, game: Any, seed: int | None):
    try:
        return NumpyPolicyAgent.load(path, resolve_game(game), deterministic=True, seed=seed)
    except PolicyFormatError as e:
        raise UnknownAgentError(str(e)) from None


class SB3PolicyAgent(BaseAgent):
    """A saved ``sb3_contrib.MaskablePPO`` policy playing with its action masks (deterministic by default).

    Pickles as its path (the model is reloaded lazily in the process that uses it).
    """

    name = "policy"

    def __init__(self, path: str, game: Any, seed: int | None = None, deterministic: bool = True,
                 device: str = "cpu"):
        super().__init__(game, seed)
        self.path = str(path)
        self.name = Path(path).stem
        self.deterministic = deterministic
        self.device = device
        self._model = None
        self._load()

    def _load(self):
        from uno_env._files import MAX_CHECKPOINT_FILE_BYTES, check_file

        try:
            check_file(self.path, "policy", MAX_CHECKPOINT_FILE_BYTES)  # a FIFO would stall the zip reader
        except ValueError as exc:
            raise UnknownAgentError(str(exc)) from None
        try:
            from sb3_contrib import MaskablePPO
        except ImportError as exc:  # pragma: no cover - depends on the extras installed
            raise ImportError(
                f"loading the saved policy {self.path!r} needs sb3-contrib and torch: pip install 'uno-env[train]'"
            ) from exc
        try:
            model = MaskablePPO.load(self.path, device=self.device)
        except Exception as exc:
            raise UnknownAgentError(f"cannot load {self.path!r} as a MaskablePPO policy: {exc}") from exc
        space = model.observation_space
        dim = None
        if hasattr(space, "spaces") and "observation" in space.spaces:
            dim = space.spaces["observation"].shape
        elif getattr(space, "shape", None):
            dim = space.shape
        if dim is not None and tuple(dim) != (self.game.obs_dim,):
            raise ValueError(
                f"policy {self.path!r} expects observations of shape {tuple(dim)}, but game {self.game.name!r} "
                f"with {self.game.num_players} players gives ({self.game.obs_dim},)"
            )
        if getattr(model.action_space, "n", self.num_actions) != self.num_actions:
            raise ValueError(
                f"policy {self.path!r} has {model.action_space.n} actions; game {self.game.name!r} has "
                f"{self.num_actions}"
            )
        self._dict_obs = hasattr(space, "spaces")
        self._model = model
        return model

    @property
    def model(self):
        """The loaded sb3-contrib ``MaskablePPO`` (loaded again after unpickling, on first use)."""
        if self._model is None:
            self._load()
        return self._model

    def __getstate__(self):
        d = dict(self.__dict__)
        d["_model"] = None
        return d

    def __setstate__(self, d):
        self.__dict__.update(d)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The policy's actions for a batch, illegal actions masked out (loads the model on first use)."""
        obs = np.asarray(observations, dtype=np.float32)
        masks = np.asarray(action_masks, dtype=np.int8)
        x = {"observation": obs, "action_mask": masks} if self._dict_obs else obs
        actions, _ = self.model.predict(x, action_masks=masks.astype(bool), deterministic=self.deterministic)
        return np.asarray(actions, dtype=np.int64).reshape(-1)

    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """The policy's action for one seat's ``observation`` and legal ``action_mask``."""
        obs, mask = split_observation(observation, action_mask)
        if not np.any(mask):
            raise NoLegalActionError(f"{self.name}: no legal action (all-zero mask)")
        return int(self.act_batch(obs[None, :], mask[None, :])[0])
