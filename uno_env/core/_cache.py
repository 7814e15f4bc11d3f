"""numba's on-disk cache, made to notice edits of the modules a kernel compiles into itself."""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from typing import Any, cast

_seeded: set[tuple[str, str]] = set()


def track_dependencies(module_file: str, dependencies: list[str]) -> None:
    """Make numba's on-disk cache of ``module_file``'s functions depend on the source of ``dependencies`` too.

    numba validates a cached function against its own file only, but a kernel here compiles the engine's and the
    observer's functions into itself: after an edit of ``engine.py`` the cached kernels would silently keep the
    old rules.  This wraps the cache locator numba picks for ``module_file`` so that its source stamp includes
    the dependencies' contents.  Uses numba's cache-locator hook; if that ever changes, caching works as before.
    """
    try:
        from numba.core import caching

        impl = caching.CacheImpl
        target = os.path.abspath(module_file)
        bases: list[Any] = [c for c in impl._locator_classes if getattr(c, "uno_env_target", None) != target]
    except (ImportError, AttributeError):  # pragma: no cover - another numba layout
        return
    digest = hashlib.sha256()
    for path in dependencies:
        with open(path, "rb") as f:
            digest.update(f.read())
    extra = digest.hexdigest()

    class DependencyAwareLocator:
        uno_env_target = target

        @classmethod
        def from_function(cls, py_func, py_file):
            if os.path.abspath(py_file) != target:
                return None
            for base in bases:
                loc = base.from_function(py_func, py_file)
                if loc is not None:
                    seed_from_installed_cache(py_file, loc.get_cache_path())
                    own = loc.get_source_stamp
                    loc.get_source_stamp = lambda own=own: (own(), extra)
                    return loc
            return None

    impl._locator_classes = [cast(Any, DependencyAwareLocator), *bases]


def seed_from_installed_cache(module_file: str, cache_path: str) -> None:
    """Copy the kernels an installation ships beside ``module_file`` into ``cache_path`` when numba cannot use them.

    A wheel carries numba's cache in ``__pycache__`` beside the sources (``build_support/uno_env_build.py``), and
    ``uno-env precompile`` run as root fills the same place. numba reads that cache only where it may also write:
    in a read-only installation (an Apptainer image, a root-owned environment run by a user) it picks the user's
    cache instead and would compile everything again. This copies the module's cached functions there first, once
    per process; the source stamps are content hashes, so the copies are valid wherever the sources are the same.

    A function is copied whole (its data files, then its index) and only where the target holds no file of it:
    numba's own entries are never overwritten, so no index can end up naming another generation's data, even
    with another process reading. A writable tree is left alone: numba uses it directly, and ``NUMBA_CACHE_DIR``
    beside a writable tree is a deliberate separate cache. Copying is only a shortcut: whatever it misses (or an
    older entry it leaves in place), numba compiles.
    """
    installed = os.path.join(os.path.dirname(os.path.abspath(module_file)), "__pycache__")
    target = os.path.abspath(cache_path)
    key = (os.path.abspath(module_file), target)
    if target == installed or key in _seeded:
        return
    _seeded.add(key)
    if not os.path.isdir(installed) or os.access(installed, os.W_OK):
        return
    prefix = os.path.splitext(os.path.basename(module_file))[0] + "."
    try:
        shipped = [n for n in os.listdir(installed) if n.startswith(prefix) and n.endswith((".nbi", ".nbc"))]
        present = [n for n in os.listdir(target) if n.startswith(prefix)]
        # one function's files: "<base>.nbi" and its data "<base>.<n>.nbc"
        for index in (n for n in shipped if n.endswith(".nbi")):
            base = index[: -len("nbi")]
            if any(n.startswith(base) for n in present):
                continue
            data = sorted(n for n in shipped if n.startswith(base) and n.endswith(".nbc"))
            for name in [*data, index]:  # the index last: it must never name data not yet in place
                _copy_atomically(os.path.join(installed, name), os.path.join(target, name))
    except OSError:
        return


def _copy_atomically(source: str, copy: str) -> None:
    fd, partial = tempfile.mkstemp(dir=os.path.dirname(copy), prefix=os.path.basename(copy), suffix=".part")
    os.close(fd)
    try:
        shutil.copy2(source, partial)
        os.replace(partial, copy)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def rule_sources() -> list[str]:
    """Every source file a compiled kernel may pull in: all of ``uno_env/core`` plus the options table in
    ``uno_env/config.py`` (the slot numbers of the options array are generated from its order).

    Not this module: it holds no kernel code, and its edits would otherwise recompile every kernel (minutes)."""
    here = os.path.dirname(os.path.abspath(__file__))
    own = os.path.basename(__file__)
    files = sorted(os.path.join(here, f) for f in os.listdir(here) if f.endswith(".py") and f != own)
    return files + [os.path.join(os.path.dirname(here), "config.py")]
