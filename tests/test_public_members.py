"""Tests drive the shells (the AEC, Gymnasium and batched environments) through what users have: no test reads a
private member of a shell, so a shell's internals can change without touching the tests.

The private names are every ``_name`` (not ``__dunder__``) a shell class or one of its base classes assigns on
``self`` or defines as a method. A test may not read ``<expression>._name`` for any of them, except on ``self`` /
``cls`` (a test's own class) and on modules it imports (a module's internals are not a shell's). Read the state
through ``state_dict``, ``game_state`` / ``state_view`` and the public properties instead.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

import uno_env._exact_copy
import uno_env.aec
import uno_env.agents
import uno_env.gym_env
import uno_env.training
import uno_env.vector.gym
import uno_env.vector.multi
import uno_env.vector.policy
import uno_env.vector.single

TESTS = Path(__file__).resolve().parent
PACKAGE_DIRS = [Path(uno_env.__file__).parent, *(Path(p) for p in uno_env.agents.__path__),
                *(Path(p) for p in uno_env.training.__path__)]
SHELL_MODULES = (uno_env.aec, uno_env.gym_env, uno_env.vector.multi, uno_env.vector.single, uno_env.vector.gym,
                 uno_env.vector.policy)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def shell_private_names(modules=SHELL_MODULES, keep=lambda klass: True) -> set[str]:
    """Private attribute and method names of the classes of ``modules`` and their bases (those ``keep`` keeps)."""
    names: set[str] = set()
    seen: set[type] = set()
    for module in modules:
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            for klass in cls.__mro__:
                if klass in seen or klass is object or not keep(klass):
                    continue
                seen.add(klass)
                try:
                    tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
                except (OSError, TypeError, SyntaxError):  # built in, or no source
                    continue
                for node in ast.walk(tree):
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _private(node.name):
                        names.add(node.name)
                    elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                          and node.value.id == "self" and _private(node.attr)):
                        names.add(node.attr)
    return names


def private_reads(source: str, private: set[str]) -> list[tuple[int, str]]:
    """(line, ``expr._name``) for every read of a name in ``private`` on something other than self, cls or an
    imported module."""
    tree = ast.parse(source)
    modules = {"self", "cls"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            modules |= {a.asname or a.name for a in node.names}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in private:
            if isinstance(node.value, ast.Name) and node.value.id in modules:
                continue
            if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) \
                    and node.value.func.id == "super":  # the class's own bases
                continue
            found.append((node.lineno, f"{ast.unparse(node.value)}.{node.attr}"))
    return sorted(found)


def test_the_private_names_are_found():
    names = shell_private_names()
    # one of each kind: the AEC env's state row, the Gymnasium env's inner AEC env, the batch's result columns,
    # a private method, and PettingZoo's base class's bookkeeping
    assert {"_st", "_mask", "_final", "_sync_after_load", "_cumulative_rewards"} <= names, sorted(names)


def test_the_check_flags_a_private_read():
    names = shell_private_names()
    source = textwrap.dedent('''
        import uno_env
        from uno_env import _threads
        env = uno_env.raw_env("classic")
        env.reset(seed=0)
        row = env._st
        view = env.game_state
        mask = env.unwrapped._mask
        _threads._pool.run(print, 1, 1)
    ''')
    assert [read for _, read in private_reads(source, names)] == ["env._st", "env.unwrapped._mask"]


def test_no_test_reads_a_shells_private_members():
    names = shell_private_names()
    reads = [f"{path.name}:{line}: {read}" for path in sorted(TESTS.glob("*.py"))
             for line, read in private_reads(path.read_text(encoding="utf-8"), names)]
    assert not reads, "tests reading private members of the shells (use the public views):\n" + "\n".join(reads)


def _aec_own(klass: type) -> bool:
    """The AEC env's classes and its third-party bases (PettingZoo's): not this package's mixins shared by every
    shell (``ExactCopy``, ``GameMetadata``), whose members are the shells' common protocol."""
    module = klass.__module__
    return module == "uno_env.aec" or not module.startswith("uno_env")


def _aec_private_names() -> set[str]:
    # less the copy protocol every shell implements (``_exact_copy.ExactCopy``), which the batch's faces call on
    # the batch they wrap
    return shell_private_names((uno_env.aec,), keep=_aec_own) - shell_private_names((uno_env._exact_copy,))


def test_no_module_of_the_package_reads_a_private_member_of_the_aec_env():
    """The Gymnasium env, the batch and everything else use the AEC env through its public members
    (``live_view``, ``live_mask``, ``check_action``...): only ``aec.py`` touches its internals."""
    names = _aec_private_names()
    assert {"_st", "_mask", "_live", "_as_action", "_cumulative_rewards"} <= names, sorted(names)
    files = [path for folder in PACKAGE_DIRS for path in sorted(folder.rglob("*.py"))
             if path != Path(uno_env.aec.__file__)]
    assert len(files) > 50
    reads = [f"{path}:{line}: {read}" for path in files
             for line, read in private_reads(path.read_text(encoding="utf-8"), names)]
    assert not reads, "modules reading private members of the AEC env (use its public API):\n" + "\n".join(reads)


def test_the_package_check_flags_a_private_read_of_the_aec_env():
    names = _aec_private_names()
    source = textwrap.dedent('''
        def play(env, aec):
            env._mask[0] = 1
            return aec._live_view(), self._mask
    ''')
    assert [read for _, read in private_reads(source, names)] == ["env._mask"]
