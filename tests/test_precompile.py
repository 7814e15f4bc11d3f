"""Compiling the rules core ahead of use: the build backend's switches, and a read-only installation's cache.

`uno-env precompile` compiles every kernel a shell's first step needs into numba's on-disk cache. `make`'s set-up
runs it on the checkout, and the build backend (`build_support/uno_env_build.py`) runs it on a wheel's build tree,
so that a fresh `pip install` starts warm. The slow test in `test_wheel.py` builds such a wheel, installs it and
counts numba's cache misses in a new process, writable and read-only: a shell whose kernels the precompile step
does not reach would compile on first use and show up there as a miss.
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from first_steps import clean_env

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------------------ build backend
def _backend(code: str, **env: str) -> subprocess.CompletedProcess:
    prelude = "import sys; sys.path.insert(0, 'build_support'); import uno_env_build as b\n"
    return subprocess.run([sys.executable, "-c", prelude + code], cwd=ROOT, env=clean_env(**env),
                          capture_output=True, text=True, timeout=300)


def test_the_wheel_build_asks_for_what_the_precompile_step_imports():
    # the installed metadata's unconditional requirements, written from pyproject.toml's [project] dependencies
    runtime = [r for r in importlib.metadata.requires("uno-env") or [] if "extra ==" not in r]
    assert any(r.startswith("numba") for r in runtime)
    code = "import json; print(json.dumps(b.get_requires_for_build_wheel()))"
    # setuptools prints its progress on stdout; the hook's answer is the last line
    on, off = (json.loads(_backend(code, **env).stdout.strip().splitlines()[-1])
               for env in ({}, {"UNO_ENV_PRECOMPILE": "0"}))
    assert set(runtime) <= set(on)
    assert not set(runtime) & set(off)


@pytest.mark.parametrize("value", ["yes", "", "2"])
def test_a_bad_precompile_switch_is_refused_by_name(value):
    done = _backend("b.get_requires_for_build_wheel()", UNO_ENV_PRECOMPILE=value)
    assert done.returncode != 0
    assert f"UNO_ENV_PRECOMPILE={value!r}" in done.stderr and "allowed values are 0" in done.stderr


def test_the_sdist_carries_the_build_backend(tmp_path):
    done = _backend(f"print(b.build_sdist({str(tmp_path)!r}))", UNO_ENV_PRECOMPILE="0")
    assert done.returncode == 0, done.stderr[-2000:]
    with tarfile.open(tmp_path / done.stdout.strip().splitlines()[-1]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert "build_support/uno_env_build.py" in names and "pyproject.toml" in names
    assert not any(name.endswith((".nbi", ".nbc")) for name in names), "an sdist must not carry a compiled cache"


# ------------------------------------------------------------------------- a read-only installation's cache
def _installed_module(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A module with an installed cache beside it (two functions of its own, one of another module) and an empty
    user cache directory."""
    package = tmp_path / "site" / "pkg"
    (package / "__pycache__").mkdir(parents=True)
    module = package / "engine.py"
    module.write_text("x = 1\n")
    for name in ("engine.step-10.py311.nbi", "engine.step-10.py311.1.nbc", "engine.reset-20.py311.nbi",
                 "engines.other-5.py311.nbi", "engine.cpython-311.pyc"):
        (package / "__pycache__" / name).write_bytes(name.encode())
    user = tmp_path / "user-cache"
    user.mkdir()
    return module, package / "__pycache__", user


def _read_only(monkeypatch, installed: Path) -> None:
    # root may write anywhere, so the test says which directory is read-only instead of mounting one
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if (Path(p) == installed and mode & os.W_OK)
                        else real(p, mode, **kw))


def test_a_read_only_installation_seeds_the_user_cache_with_its_modules_kernels(tmp_path, monkeypatch):
    from uno_env.core import _cache

    module, installed, user = _installed_module(tmp_path)
    _read_only(monkeypatch, installed)
    monkeypatch.setattr(_cache, "_seeded", set())
    _cache.seed_from_installed_cache(str(module), str(user))
    assert sorted(p.name for p in user.iterdir()) == ["engine.reset-20.py311.nbi", "engine.step-10.py311.1.nbc",
                                                       "engine.step-10.py311.nbi"]
    assert (user / "engine.step-10.py311.nbi").read_bytes() == b"engine.step-10.py311.nbi"
    assert (user / "engine.step-10.py311.1.nbc").read_bytes() == b"engine.step-10.py311.1.nbc"


def test_a_function_numba_already_cached_is_left_whole(tmp_path, monkeypatch):
    from uno_env.core import _cache

    module, installed, user = _installed_module(tmp_path)
    _read_only(monkeypatch, installed)
    # numba's own entry for `step` (one data file, no index yet: it writes the index last) and an old index of
    # `reset`: copying beside them could leave an index naming data of another generation
    (user / "engine.step-10.py311.1.nbc").write_bytes(b"numba's own data")
    (user / "engine.reset-20.py311.nbi").write_bytes(b"numba's old index")
    monkeypatch.setattr(_cache, "_seeded", set())
    _cache.seed_from_installed_cache(str(module), str(user))
    assert sorted(p.name for p in user.iterdir()) == ["engine.reset-20.py311.nbi", "engine.step-10.py311.1.nbc"]
    assert (user / "engine.step-10.py311.1.nbc").read_bytes() == b"numba's own data"
    assert (user / "engine.reset-20.py311.nbi").read_bytes() == b"numba's old index"


def test_a_writable_installation_or_its_own_cache_is_not_copied(tmp_path, monkeypatch):
    from uno_env.core import _cache

    module, installed, user = _installed_module(tmp_path)
    before = {p.name: p.read_bytes() for p in installed.iterdir()}
    monkeypatch.setattr(_cache, "_seeded", set())
    _cache.seed_from_installed_cache(str(module), str(user))  # numba uses a writable tree itself
    assert not list(user.iterdir())
    _read_only(monkeypatch, installed)
    _cache.seed_from_installed_cache(str(module), str(installed))  # the cache numba picked is the installed one
    assert {p.name: p.read_bytes() for p in installed.iterdir()} == before


def test_a_failed_seed_copies_nothing_half_and_raises_nothing(tmp_path, monkeypatch):
    from uno_env.core import _cache

    module, installed, user = _installed_module(tmp_path)
    _read_only(monkeypatch, installed)
    monkeypatch.setattr(_cache, "_seeded", set())

    def broken_copy(source, target):
        Path(target).write_bytes(b"half")
        raise OSError("disk full")

    monkeypatch.setattr(_cache.shutil, "copy2", broken_copy)
    _cache.seed_from_installed_cache(str(module), str(user))  # numba compiles whatever is not there
    assert not list(user.iterdir())


# ------------------------------------------------------------------------------------------ what a kernel depends on
def test_the_kernels_cache_stamp_covers_every_core_module_but_the_cache_machinery():
    # every module a kernel may compile into itself invalidates the cached kernels when edited; the cache locator
    # itself holds no kernel code, and editing it recompiled every kernel (minutes) for nothing
    from uno_env.core import _cache

    core = ROOT / "uno_env" / "core"
    stamped = {Path(p).resolve() for p in _cache.rule_sources()}
    expected = {p.resolve() for p in core.glob("*.py")} - {(core / "_cache.py").resolve()}
    assert stamped == expected | {(ROOT / "uno_env" / "config.py").resolve()}


def test_the_players_cache_stamp_covers_the_core_and_every_player_module():
    # a compiled player compiles the rules into itself: an edit of either must invalidate its cached kernels
    from uno_env.core import _cache
    from uno_env.players import _cache as players_cache

    players = ROOT / "uno_env" / "players"
    stamped = {Path(p).resolve() for p in players_cache.player_sources()}
    expected = {p.resolve() for p in players.glob("*.py")} - {(players / "_cache.py").resolve()}
    assert stamped == expected | {Path(p).resolve() for p in _cache.rule_sources()}
