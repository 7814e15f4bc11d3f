"""numba's on-disk cache, made to notice edits of the modules a kernel compiles into itself."""
from __future__ import annotations

import hashlib
import os
from typing import Any, cast


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
                    own = loc.get_source_stamp
                    loc.get_source_stamp = lambda own=own: (own(), extra)
                    return loc
            return None

    impl._locator_classes = [cast(Any, DependencyAwareLocator), *bases]


def rule_sources() -> list[str]:
    """Every source file a compiled kernel may pull in: all of ``uno_env/core`` plus the options table in
    ``uno_env/config.py`` (the slot numbers of the options array are generated from its order)."""
    here = os.path.dirname(os.path.abspath(__file__))
    files = sorted(os.path.join(here, f) for f in os.listdir(here) if f.endswith(".py"))
    return files + [os.path.join(os.path.dirname(here), "config.py")]
