"""The built wheel, installed as a user would: one top-level name, complete contents, its core dependencies
declared, configs found by name, and no clash with a project's own ``agents`` package.

The wheel is built from a copy of the package's sources (nothing is written into the checkout) without build
warnings, and installed with ``pip --no-deps --no-index`` into a fresh virtualenv that runs from a temporary
directory holding its own ``agents/`` package, as a research project often does.

Fast (about 20 s) without proving less:

* The fresh venv does not download or reinstall its dependencies: a ``.pth`` file lists a directory of links to
  the installed distributions of exactly the core dependency closure (the wheel's own ``Requires-Dist`` without
  extras, followed through each dependency's metadata). A dependency missing from ``pyproject.toml`` fails the
  test, and without the training extras ``uno-env train`` must say what to install. A ``.pth`` file inside a
  directory added by a ``.pth`` is not processed, so the dev venv's editable uno-env stays invisible; the user
  script checks that ``uno_env`` and its distribution come from the fresh venv.
* The core is not compiled again: the tree's numba cache files are copied beside the installed sources. numba
  (0.60 and later) keys a cached function by the content hash of its source, and the core's kernels also by every
  core module's contents (``core/_cache.py``), so a cache entry is used only for identical sources, which the
  test checks file by file before copying. Any function the tree's cache lacks compiles in the fresh venv.

Slow (3-4 minutes): the wheel as ``pip install .`` builds it, with numba's cache compiled into it, starts a fresh
install with nothing compiled on first use, both writable and mounted read-only. It is built by an interpreter that
sees its build requirements only through ``PYTHONPATH``, as in pip's isolated build environment, without needing
the package index.
"""
from __future__ import annotations

import email.parser
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import time
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from first_steps import clean_env, run_first_steps
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
# source folder in the checkout -> its installed package path (pyproject.toml's package-dir)
MAPPED = {"uno_env": "uno_env", "agents": "uno_env/agents", "training": "uno_env/training",
          "configs": "uno_env/configs"}
BUILD_INPUTS = ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "build_support/uno_env_build.py")
NOT_SHIPPED = {"agents/policies/README.md"}  # the folder's note for maintainers
# how the shipped policies were trained: the chain of rounds' policies and every run's report (about 4 MB), kept in
# the repository beside the policies, not installed
NOT_SHIPPED_FOLDER = "agents/policies/training/"

USER_SCRIPT = textwrap.dedent('''
    import importlib.util, os, sys
    from importlib import metadata
    import gymnasium
    import uno_env
    import agents  # the project's own package, not uno-env's
    assert agents.__file__.startswith(os.getcwd()), agents.__file__
    assert uno_env.__file__.startswith(sys.prefix), (uno_env.__file__, sys.prefix)  # the wheel's copy
    dist = metadata.distribution("uno-env")
    assert str(dist.locate_file("uno_env")).startswith(sys.prefix), dist.locate_file("uno_env")
    assert not any("editable" in type(f).__module__ for f in sys.meta_path), sys.meta_path
    assert importlib.util.find_spec("torch") is None  # no training extra: the `uno-env train` checks mean something

    env = gymnasium.make("uno_env/Classic-v0", opponents="heuristic")
    obs, info = env.reset(seed=0)
    done, steps = False, 0
    while not done:
        mask = obs["action_mask"]
        obs, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))
        done = terminated or truncated
        steps += 1
    assert steps > 0

    from uno_env.training.config import load_config, load_rllib_config, packaged_configs
    assert {"classic_ppo", "smoke", "rllib_classic"} <= set(packaged_configs()), packaged_configs()
    assert load_config("classic_ppo").name == "classic_ppo"
    assert load_rllib_config("rllib_classic").name == "rllib_classic"
    from uno_env.training.config import load_distill_config
    assert load_distill_config("classic4_distill").env.num_players == 4
    from importlib import resources
    assert resources.files("uno_env.configs").joinpath("rules", "classic_rlcard.yaml").is_file()
    assert resources.files("uno_env.viewer.static").joinpath("table.js").is_file()
    from uno_env.agents.ppo import shipped_policies  # package data: the policies folder comes with the wheel
    assert isinstance(shipped_policies(), list)
    print("ok", steps)
''')


def _run(cmd, timeout: float = 600, **kw) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    assert r.returncode == 0, f"{cmd}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def _source_files() -> list[str]:
    """The checkout's files under the packaged folders (tracked or new, not ignored), relative to ROOT."""
    r = _run(["git", "-C", str(ROOT), "ls-files", "--cached", "--others", "--exclude-standard", "--", *MAPPED])
    return [p for p in r.stdout.splitlines() if (ROOT / p).is_file()]


def _installed_name(rel: str) -> str:
    top, _, rest = rel.partition("/")
    return f"{MAPPED[top]}/{rest}"


def _build_wheel(tmp: Path, precompile: bool, isolated: bool = False) -> Path:
    """The wheel, built from a copy of the sources, with or without numba's cache; fails on any build warning.

    ``isolated``: built by an interpreter that sees its build requirements as pip's isolated build environment
    does (:func:`_isolated_build_python`); the package index is not needed either way."""
    src = tmp / "src"
    for rel in [*BUILD_INPUTS, *_source_files()]:
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    # PYTHONDONTWRITEBYTECODE would make setuptools warn that byte-compiling is off: a setting, not the packaging
    env = {k: v for k, v in clean_env(UNO_ENV_PRECOMPILE="1" if precompile else "0").items()
           if k != "PYTHONDONTWRITEBYTECODE"}
    python: list[str] = []
    if isolated:
        build_python, build_env = _isolated_build_python(tmp)
        python = ["--python", str(build_python)]
        env.update(build_env)
    r = _run([sys.executable, "-m", "pip", *python, "wheel", str(src), "--no-deps", "--no-build-isolation",
              "--no-index", "--disable-pip-version-check", "-v", "-w", str(tmp / "dist")], env=env, timeout=1800)
    # pip's own notes about unreachable package index locations are not the build's
    warnings = [line for line in (r.stdout + r.stderr).splitlines()
                if "warn" in line.lower() and "is ignored: it is neither a file nor a directory" not in line]
    assert not warnings, "\n".join(warnings)
    (built,) = (tmp / "dist").glob("uno_env-*.whl")
    return built


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel without numba's cache (a build that compiles takes minutes; the slow test below does)."""
    return _build_wheel(tmp_path_factory.mktemp("wheel"), precompile=False)


def test_wheel_metadata_and_contents(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        (info,) = {n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA")}
        meta = email.parser.Parser().parsestr(zf.read(f"{info}/METADATA").decode())
        top_level = zf.read(f"{info}/top_level.txt").decode().split()
        entry_points = zf.read(f"{info}/entry_points.txt").decode()
    assert top_level == ["uno_env"]  # no generic `agents` or `training` in site-packages
    assert {n.split("/")[0] for n in names} == {"uno_env", info}
    assert "Typing :: Typed" in meta.get_all("Classifier")
    assert "uno_env/py.typed" in names
    assert "uno_env = uno_env.agents.registry:load_agent" in entry_points
    assert "uno-env = uno_env.cli:main" in entry_points
    # every file of the packaged folders ships (a package left out of pyproject's list would be missing)
    expected = {_installed_name(rel) for rel in _source_files()
                if rel not in NOT_SHIPPED and not rel.startswith(NOT_SHIPPED_FOLDER)}
    assert not expected - names, sorted(expected - names)
    assert not [n for n in names if n.startswith(_installed_name(NOT_SHIPPED_FOLDER))]
    for required in ("uno_env/viewer/static/table.js", "uno_env/viewer/static/table.css",
                     "uno_env/data/dice_default.yaml", "uno_env/configs/rules/classic_standard.yaml",
                     "uno_env/configs/train/classic_ppo.yaml", "uno_env/agents/registry.py",
                     "uno_env/training/algorithms/batched_ppo.py"):
        assert required in names


def _wheel_requirements(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as zf:
        (name,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        return email.parser.Parser().parsestr(zf.read(name).decode()).get_all("Requires-Dist") or []


def _dependency_closure(requires: list[str]) -> list[metadata.Distribution]:
    """The installed distributions of ``requires`` without extras, and their dependencies, recursively."""
    todo = [(Requirement(r), "") for r in requires]
    found: dict[str, metadata.Distribution] = {}
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        key = canonicalize_name(req.name)
        dist = found.get(key)
        if dist is None:
            dist = found[key] = metadata.distribution(req.name)
            assert dist.version in req.specifier or not req.specifier, (req, dist.version)
            todo += [(Requirement(r), "") for r in dist.requires or []]
        for ex in req.extras:
            todo += [(Requirement(r), ex) for r in dist.requires or []]
    return list(found.values())


def _link_dependencies(requires: list[str], into: Path) -> None:
    into.mkdir()
    for dist in _dependency_closure(requires):
        assert dist.files, f"{dist.metadata['Name']} has no RECORD: cannot tell its files"
        site = Path(str(dist.locate_file("")))
        for top in {f.parts[0] for f in dist.files if f.parts[0] not in ("..", "__pycache__")}:
            if (site / top).exists() and not (into / top).exists():
                (into / top).symlink_to(site / top)


def _copy_numba_cache(site: Path) -> int:
    """The tree's numba cache files beside the installed sources, once those are checked identical."""
    copied = 0
    for rel in _source_files():
        if not rel.endswith(".py"):
            continue
        installed = site / _installed_name(rel)
        assert installed.read_bytes() == (ROOT / rel).read_bytes(), f"{installed} differs from {rel}"
        cache = (ROOT / rel).parent / "__pycache__"
        stem = Path(rel).stem
        for f in cache.glob(f"{stem}.*.nb[ic]") if cache.is_dir() else []:
            (installed.parent / "__pycache__").mkdir(exist_ok=True)
            shutil.copy2(f, installed.parent / "__pycache__" / f.name)
            copied += 1
    return copied


def _isolated_build_python(tmp: Path) -> tuple[Path, dict[str, str]]:
    """An interpreter set up as pip's isolated build environment is, and the environment to build with.

    A new virtualenv without uno-env, which reaches setuptools and uno-env's run-time dependencies (the backend
    asks for them) only through ``PYTHONPATH``, as pip's build environment does. So the build's precompile step
    must extend ``PYTHONPATH`` rather than replace it, and must give the uninstalled build tree its own metadata
    (the Gymnasium env finds its opponents through entry points): building from the dev venv, where the editable
    uno-env supplies both, would pass either way.
    """
    venv = tmp / "build-venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    # the closure skips the extras' requirements itself (their markers are false without an extra)
    _link_dependencies([*(metadata.requires("uno-env") or []), "setuptools"], tmp / "build-deps")
    return venv / "bin" / "python", {"PYTHONPATH": str(tmp / "build-deps")}


def _fresh_venv(wheel: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A new virtualenv with the wheel installed and the core dependencies linked in: its python and its site."""
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    py = venv / "bin" / "python"
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    assert site.is_relative_to(venv) and site != Path(sysconfig.get_paths()["purelib"])
    _link_dependencies(_wheel_requirements(wheel), tmp_path / "deps")
    (site / "uno_env_test_deps.pth").write_text(f"{tmp_path / 'deps'}\n")
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index", "-q",
          "--disable-pip-version-check", str(wheel)])
    return py, site


def test_wheel_installs_and_plays_next_to_a_users_agents_package(wheel, tmp_path):
    start = time.perf_counter()
    py, site = _fresh_venv(wheel, tmp_path)
    venv = tmp_path / "venv"
    _copy_numba_cache(site)

    project = tmp_path / "project"
    (project / "agents").mkdir(parents=True)
    (project / "agents" / "__init__.py").write_text("MINE = True\n")
    (project / "agents" / "registry.py").write_text("raise ImportError('the wrong agents.registry')\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "NUMBA_CACHE_DIR")}
    r = _run([str(py), "-c", USER_SCRIPT], cwd=project, env=env)
    assert r.stdout.startswith("ok"), r.stdout

    # outside a checkout, `uno-env train --config NAME` finds its config; without the train extra it says what
    # to install (and the same for train-rllib, whose default config is a packaged name)
    cli = venv / "bin" / "uno-env"
    r = subprocess.run([str(cli), "train", "--config", "smoke", "--run-dir", str(tmp_path / "run")], cwd=project,
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "pip install 'uno-env[train]'" in r.stderr, r.stdout + r.stderr
    assert "does not exist" not in r.stderr
    r = subprocess.run([str(cli), "train-rllib"], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "pip install 'uno-env[train,rllib]'" in r.stderr, r.stdout + r.stderr
    print(f"install and play: {time.perf_counter() - start:.1f} s")


# ------------------------------------------------------------------------------------- numba's cache in the wheel
def _read_only_runner(site: Path, python: Path) -> list[str] | None:
    """A command that runs ``python`` with ``site`` read-only, or None where this machine cannot make one.

    As root no permission bit stops a write, so the directory is mounted read-only in a mount namespace of the
    command's own (``unshare -m``); another user gets its write bits removed (the test puts them back)."""
    if os.geteuid() != 0:
        for path in [site, *site.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222)
        return [str(python)]
    mount = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    probe = subprocess.run(["unshare", "-m", "sh", "-c", mount, str(site), "sh", "-c", f"! touch {site}/probe"],
                           capture_output=True)
    return ["unshare", "-m", "sh", "-c", mount, str(site), str(python)] if probe.returncode == 0 else None


@pytest.mark.slow  # the build compiles every kernel: 3-4 minutes on an idle 2-core machine
def test_a_fresh_install_of_the_wheel_starts_warm_even_read_only(tmp_path):
    # the build tree's cache holds only what `uno-env precompile` compiled, so a miss here is also a kernel that
    # step does not reach
    built = _build_wheel(tmp_path, precompile=True, isolated=True)
    with zipfile.ZipFile(built) as zf:
        shipped = [n for n in zf.namelist() if n.endswith((".nbi", ".nbc"))]
    assert any(n.startswith("uno_env/core/__pycache__/") for n in shipped), "the wheel carries no numba cache"
    py, site = _fresh_venv(built, tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()

    user_cache = tmp_path / "user-cache"
    first = run_first_steps([str(py)], empty, clean_env(XDG_CACHE_HOME=str(user_cache)))
    assert Path(first["uno_env"]).is_relative_to(site), f"imported {first['uno_env']}, not the fresh install"
    assert first["misses"] == {}, f"a fresh install of the wheel compiled on first use: {first['misses']}"
    assert not list(user_cache.rglob("*.nbi")), "a writable installation should use its own cache"

    # a read-only installation (an Apptainer image, a root-owned environment run by a user): numba cannot use a
    # cache where it cannot write, so uno_env copies the installed one into the user's cache first
    runner = _read_only_runner(site, py)
    try:
        if runner is None:
            pytest.skip("this machine cannot make the installation read-only (unshare -m is not permitted)")
        read_only_cache = tmp_path / "read-only-user-cache"
        first = run_first_steps(runner, empty, clean_env(XDG_CACHE_HOME=str(read_only_cache)))
        assert first["misses"] == {}, f"a read-only install compiled on first use: {first['misses']}"
        assert list(read_only_cache.rglob("*.nbi")), "the installed cache was not copied into the user's cache"
    finally:
        for path in [site, *site.rglob("*")] if os.geteuid() != 0 else []:
            path.chmod(path.stat().st_mode | 0o200)
