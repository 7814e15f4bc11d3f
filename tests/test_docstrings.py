"""Every public module, class, function and method of uno_env, uno_env.agents and uno_env.training has a docstring:
the API reference of the docs site is built from them."""
from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

PACKAGES = ("uno_env", "uno_env.agents", "uno_env.training")


def _package_dir(name: str) -> Path:
    # agents/ and training/ install as uno_env.agents / uno_env.training: ask the import system where they are
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.submodule_search_locations, f"{name} is not an installed package"
    return Path(list(spec.submodule_search_locations)[0])


def _public_modules():
    roots = {name: _package_dir(name) for name in PACKAGES}
    nested = set(roots.values())
    for name, root in roots.items():
        for path in sorted(root.rglob("*.py")):
            if any(parent in nested and parent != root for parent in path.parents):
                continue  # a package of its own in PACKAGES
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                if not (path.parent / "__init__.py").exists():
                    continue
                parts = parts[:-1]
            if any(p.startswith("_") for p in parts) or "__pycache__" in path.parts:
                continue
            yield ".".join((name, *parts)), path


def _is_property_setter(node) -> bool:
    """``@name.setter`` / ``@name.deleter``: the property's getter carries the docstring."""
    return any(isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter") for d in node.decorator_list)


def _undocumented(module: str, path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if not ast.get_docstring(tree):
        yield f"{module} (module docstring)"
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in tree.body:
        if not isinstance(node, defs) or node.name.startswith("_"):
            continue
        if not ast.get_docstring(node):
            yield f"{module}.{node.name}  ({path}:{node.lineno})"
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, defs) and not member.name.startswith("_") and not ast.get_docstring(member) \
                        and not _is_property_setter(member):
                    yield f"{module}.{node.name}.{member.name}  ({path}:{member.lineno})"


def test_the_walk_finds_the_public_modules():
    modules = dict(_public_modules())
    for expected in ("uno_env", "uno_env.aec", "uno_env.vector", "uno_env.core.engine", "uno_env.agents.heuristic",
                     "uno_env.training.evaluate"):
        assert expected in modules
    assert not any(".agents." in m and m.startswith("uno_env.training") for m in modules)
    assert "uno_env.core._cache" not in modules


def test_every_public_name_has_a_docstring():
    missing = [name for module, path in _public_modules() for name in _undocumented(module, path)]
    assert not missing, "public names without a docstring:\n  " + "\n  ".join(missing)
