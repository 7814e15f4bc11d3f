"""Agents in the user's own code, named on the command line: ``path/to/file.py:factory`` or ``package.module:factory``.

Only ``uno-env benchmark`` loads these, and only because the user named the file or module: nothing else is ever
imported for an agent (the registry's :func:`~uno_env.agents.registry.load_agent` takes names and pickle-free policy
files, never code).  The factory is called with the game (a :class:`~uno_env.core.game.Game`: ``name``,
``num_players``, ``obs_dim``, ``num_actions``, ``rules``) and, when it takes one, ``seed=``; it returns an object with
``act(observation, action_mask) -> int`` (and, optionally, ``act_batch``, ``reset(seed=None)``, ``name``).  Every way
this can go wrong is an :class:`AgentCodeError` naming the spec: a missing file, a module that does not import, a
missing attribute, one that is not callable, a factory that raises or returns something without ``act``.
"""
from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import re
import sys
from typing import Any

from uno_env._files import InputFileError, quoted_path, read_bytes
from uno_env.agents.registry import BASELINES

__all__ = ["AgentCodeError", "is_code_spec", "load_code_agent"]

#: a Python source file of an agent: far larger than any hand-written agent, small enough to refuse a data file
MAX_AGENT_SOURCE_BYTES = 16 << 20
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


class AgentCodeError(ValueError):
    """An agent in the user's code that cannot be loaded or built; the message names the spec and what is wrong."""


def is_code_spec(spec: str) -> bool:
    """Whether ``spec`` names a factory in code (``file.py:name`` or ``package.module:name``) rather than a
    registered agent (``ismcts:sims=400``) or a policy file."""
    target, sep, factory = spec.rpartition(":")
    if not sep or not target or not factory.isidentifier():
        return False
    if target.partition(":")[0].lower() in BASELINES:
        return False
    return target.endswith(".py") or bool(_MODULE.match(target))


def load_code_agent(spec: str, game: Any, seed: int | None = None) -> Any:
    """The agent ``spec``'s factory builds for ``game`` (see the module's docstring); :class:`AgentCodeError` when
    it cannot be built."""
    target, _, factory_name = spec.rpartition(":")
    module = _import_file(spec, target) if target.endswith(".py") else _import_module(spec, target)
    where = f"{target!r}" if target.endswith(".py") else f"module {target!r}"
    if not hasattr(module, factory_name):
        public = sorted(n for n, v in vars(module).items() if not n.startswith("_") and callable(v)
                        and getattr(v, "__module__", None) == module.__name__)
        listing = f"; it defines {', '.join(public)}" if public else ""
        raise AgentCodeError(f"agent {spec!r}: {where} has no attribute {factory_name!r}{listing}")
    factory = getattr(module, factory_name)
    if not callable(factory):
        raise AgentCodeError(f"agent {spec!r}: {factory_name!r} in {where} is a {type(factory).__name__}, not a "
                             f"callable; give a function or class that takes the game and returns an agent")
    agent = _call_factory(spec, factory, game, seed)
    if not callable(getattr(agent, "act", None)):
        raise AgentCodeError(f"agent {spec!r}: {factory_name}(game) returned {_describe(agent)}, which has no "
                             f"act(observation, action_mask) method")
    batch = getattr(agent, "act_batch", None)
    if batch is not None and not callable(batch):
        raise AgentCodeError(f"agent {spec!r}: the agent's act_batch is a {type(batch).__name__}, not a method")
    return agent


def _import_file(spec: str, path: str) -> Any:
    try:  # read once, through the regular-file reader: what runs is what was checked (never a FIFO or a device)
        source = read_bytes(path, "agent file", MAX_AGENT_SOURCE_BYTES)
    except InputFileError as exc:
        raise AgentCodeError(f"agent {spec!r}: {exc}") from None
    # a name of its own, so that the file's module cannot replace an installed one
    name = "uno_env_agent_code_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    module = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(name, None, origin=path))
    module.__file__ = path
    sys.modules[name] = module  # registered while it runs (dataclasses and pickling look the module up by name)
    try:
        exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)  # noqa: S102 - the user named it
    except BaseException as exc:
        del sys.modules[name]
        if not isinstance(exc, Exception):
            raise
        raise AgentCodeError(f"agent {spec!r}: running {quoted_path(path)} raised {_error(exc)}") from None
    return module


def _import_module(spec: str, name: str) -> Any:
    # the working directory is searched last, as `python -m` would find the module there, without letting a file
    # in it shadow an installed package
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            raise AgentCodeError(f"agent {spec!r}: no module named {exc.name!r} (looked in the installed packages "
                                 f"and the working directory; a file is named path/to/file.py:factory)") from None
        raise AgentCodeError(f"agent {spec!r}: importing {name!r} raised {_error(exc)}") from None
    except Exception as exc:
        raise AgentCodeError(f"agent {spec!r}: importing {name!r} raised {_error(exc)}") from None


def _call_factory(spec: str, factory: Any, game: Any, seed: int | None) -> Any:
    name = getattr(factory, "__name__", "factory")
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        sig = None
    args: tuple[Any, ...] = (game,)
    kwargs: dict[str, Any] = {"seed": seed}
    if sig is not None:
        try:
            sig.bind(*args, **kwargs)
        except TypeError:
            kwargs = {}
            try:
                sig.bind(*args)
            except TypeError:
                raise AgentCodeError(f"agent {spec!r}: {name}{sig} cannot be called as {name}(game) or "
                                     f"{name}(game, seed=...); define it as def {name}(game, seed=None)") from None
    try:
        return factory(*args, **kwargs)
    except Exception as exc:
        call = f"{name}(game, seed={seed})" if kwargs else f"{name}(game)"
        raise AgentCodeError(f"agent {spec!r}: {call} raised {_error(exc)}") from None


def _describe(value: Any) -> str:
    return "None" if value is None else f"a {type(value).__name__}"


def _error(exc: BaseException) -> str:
    """An exception in one line, with the line of the user's code it came from when there is one."""
    where = ""
    tb = exc.__traceback__
    while tb is not None:  # the innermost frame: where the user's code raised
        if tb.tb_next is None:
            where = f" at {os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}"
        tb = tb.tb_next
    if isinstance(exc, SyntaxError):
        where = f" at {os.path.basename(exc.filename or '?')}:{exc.lineno}"
        return f"SyntaxError{where}: {exc.msg}"
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}{where}: {text}" if text else f"{type(exc).__name__}{where}"
