"""The trainers ``uno-env train`` can run, by the config's ``algorithm`` key.

Each entry names a module (imported only when chosen, so checking a config never imports torch) that provides:

* ``LABEL``: what ``policy.json`` records as the algorithm (e.g. ``"sb3_contrib.MaskablePPO"``);
* ``make_env(cfg, pool, seed)``: the vectorised environments (``.seed(s)``, ``.close()``, ``.env_method``);
* ``build(cfg, venv, run_dir)`` and ``load(path, cfg, venv, run_dir)``: a new model, or one from a checkpoint;
* ``learn(model, steps, run)``: train for ``steps`` more steps, calling ``run.between_rollouts(model, step,
  record)`` whenever the model is consistent (between rollouts) and ``run.advance(n)`` as steps are taken;
* ``num_steps(model)``, ``save(model, path)`` (weights + optimizer, for resume) and ``export(model)`` (the actor
  as :class:`uno_env.agents.policy.PolicyWeights`, for snapshots and the pickle-free ``policy.npz``).

Adding a trainer is one module with these names and one entry below.
"""
from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["ALGORITHMS", "get_algorithm"]

#: config ``algorithm`` value -> module implementing it
ALGORITHMS: dict[str, str] = {
    "maskable_ppo": "uno_env.training.algorithms.maskable_ppo",
    "batched_ppo": "uno_env.training.algorithms.batched_ppo",
}


def get_algorithm(name: str) -> ModuleType:
    """The trainer's module; an ``ImportError`` that says what to install when its libraries are missing."""
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; known: {', '.join(ALGORITHMS)}")
    try:
        return importlib.import_module(ALGORITHMS[name])
    except ImportError as e:
        raise ImportError(f"training with {name} needs the train extra ({e}); install it with: "
                          f"pip install 'uno-env[train]' (in a checkout: `make train` sets up .venv)") from None
