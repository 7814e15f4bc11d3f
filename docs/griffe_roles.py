"""Griffe extension for the API pages: the docstrings' Sphinx roles (``:class:`Game```) become cross-references.

The code's docstrings use Sphinx roles (``docstring_style: sphinx``); mkdocstrings renders docstrings as
Markdown, where a role would stay raw text.  Once the package is loaded, every role is rewritten into an
autorefs link (``[`Game`][uno_env.core.game.Game]``) when its target is an object the API pages render, or into
inline code when it is not (a builtin such as ``ValueError``, a private helper): the page never shows the raw
role, and never holds a link that leads nowhere (``mkdocs build --strict`` would fail on one).

Targets resolve as Sphinx resolves them: relative to the object whose docstring holds the role (its members,
then its parents' scopes and imports), or as a full path.  ``~`` shows only the last component; ``title
<target>`` shows the title; ``!`` never links.  ``agents.``/``training.``/``configs.`` name the installed
``uno_env.agents``/``uno_env.training``/``uno_env.configs`` (the checkout's folders of those packages).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import griffe

ROOT = Path(__file__).resolve().parents[1]
ROLE = re.compile(r":(?:py:)?(?P<role>class|func|meth|mod|attr|data|exc|obj|const):`(?P<body>[^`]+)`")
#: folders of the checkout that install as subpackages of uno_env (pyproject's package-dir)
MAPPED = ("agents", "training", "configs")


def documented_modules() -> set[str]:
    """The modules the API pages render (their ``::: module`` lines)."""
    found = set()
    for page in (ROOT / "docs" / "api").glob("*.md"):
        found.update(re.findall(r"^::: ([\w.]+)\s*$", page.read_text(encoding="utf-8"), re.M))
    return found


def _split(body: str) -> tuple[str, str, bool]:
    """(title, target, link?) of a role's text: ``target``, ``~a.b.target``, ``title <target>``, ``!target``."""
    body = body.strip()
    explicit = re.fullmatch(r"(.+?)\s*<([^<>]+)>", body)
    if explicit:
        return explicit.group(1), explicit.group(2).strip(), True
    if body.startswith("!"):
        return body[1:], body[1:], False
    if body.startswith("~"):
        target = body[1:]
        return target.rsplit(".", 1)[-1], target, True
    return body, body, True


class SphinxRoles(griffe.Extension):
    """Rewrite the Sphinx roles of every docstring of a loaded package (see the module docstring)."""

    def __init__(self, modules: set[str] | None = None) -> None:
        super().__init__()
        self.modules = documented_modules() if modules is None else modules
        self.unlinked: list[tuple[str, str]] = []  # (object path, role text) rendered as plain code

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Griffe event: the whole package is loaded, so every target can be looked up."""
        for obj in _walk(pkg):
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = ROLE.sub(lambda m, o=obj: self.rewrite(o, m, loader), obj.docstring.value)

    def rewrite(self, obj: griffe.Object, match: re.Match, loader: griffe.GriffeLoader) -> str:
        """The Markdown of one role found in ``obj``'s docstring."""
        title, target, link = _split(match.group("body"))
        path = self.resolve(obj, target.lstrip("."), loader) if link else None
        if path is None:
            self.unlinked.append((obj.path, match.group(0)))
            return f"`{title}`"
        return f"[`{title}`][{path}]"

    def resolve(self, obj: griffe.Object, target: str, loader: griffe.GriffeLoader) -> str | None:
        """The path under which the API pages render ``target`` as seen from ``obj``, or None."""
        first, _, rest = target.partition(".")
        candidates = []
        if first in MAPPED:
            candidates.append(f"uno_env.{target}")
        try:
            candidates.append(obj.resolve(first) + (f".{rest}" if rest else ""))
        except griffe.NameResolutionError:
            pass
        candidates.append(target)
        for candidate in candidates:
            found = self._rendered(candidate, loader)
            if found is not None:
                return found
        return None

    def _rendered(self, path: str, loader: griffe.GriffeLoader) -> str | None:
        try:
            found = loader.modules_collection.get_member(path)
            while found.is_alias:
                found = found.target
        except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None
        canonical = found.path
        module = found.module.path if not found.is_module else canonical
        private = any(part.startswith("_") for part in canonical[len(module):].split(".") if part)
        if module not in self.modules or private or not found.has_docstrings:
            return None
        return canonical


def _walk(obj: griffe.Object):
    """``obj`` and every object defined under it (aliases, i.e. imported names, are documented where defined)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _walk(member)
