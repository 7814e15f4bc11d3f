"""Bounded YAML reading for every file uno-env loads (rule files, dice sets, training configs).

``yaml.safe_load`` runs no code, but it still accepts inputs that hurt: a few hundred bytes of nested aliases
(a "billion laughs" bomb) expand to billions of nodes as soon as anything walks the result, and a repeated key
silently keeps the last value.  :func:`load_yaml` refuses, with a :class:`YAMLLimitError` naming the problem:

* files over :data:`MAX_BYTES`;
* more than :data:`MAX_ALIASES` aliases, or a document whose expansion (aliases counted as copies) exceeds
  :data:`MAX_NODES` nodes;
* a key given twice in one mapping (the error names the key and both lines).

:func:`short_repr` formats a value for an error message, cut to a readable length.
"""
from __future__ import annotations

import math
import os
from typing import Any

import yaml

__all__ = ["load_yaml", "load_yaml_file", "YAMLLimitError", "short_repr", "MAX_BYTES", "MAX_ALIASES", "MAX_NODES"]

MAX_BYTES = 1 << 20  # 1 MiB: the largest shipped config is under 4 kB
MAX_ALIASES = 64
MAX_NODES = 100_000


class YAMLLimitError(yaml.YAMLError, ValueError):
    """The YAML is well-formed but refused: too large, too many aliases, or a duplicate key."""

    def __init__(self, problem: str, line: int | None = None):
        super().__init__(problem)
        self.problem = problem
        self.line = line

    def __str__(self) -> str:
        return self.problem if self.line is None else f"line {self.line}: {self.problem}"


#: the largest float32 (rewards are kept as float32: a larger number would become an infinity)
FLOAT32_MAX = 3.4028234663852886e38


def is_finite_number(x: Any, limit: float = math.inf) -> bool:
    """``x`` is an int or float (not a bool), finite, and at most ``limit`` in size: what a saved reward or
    probability may be (an int too large for a float is not: it would overflow where it is compared)."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return False
    try:
        return math.isfinite(x) and abs(x) <= limit
    except OverflowError:
        return False


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters, without building the repr of a huge value first."""
    if isinstance(value, (list, tuple, set, dict)) and len(value) > limit:
        return f"<{type(value).__name__} of {len(value)} items>"
    if isinstance(value, (str, bytes)) and len(value) > limit:
        return repr(value[:limit])[: limit - 3] + "..."
    text = repr(value) if not isinstance(value, (list, tuple, set, dict)) else _nested_repr(value, limit)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _nested_repr(value: Any, limit: int) -> str:
    # a small container can still hold huge members (or share one many times): bound the walk by output length
    parts: list[str] = []
    size = 0
    items = value.items() if isinstance(value, dict) else value
    for item in items:
        part = (f"{short_repr(item[0], limit)}: {short_repr(item[1], limit)}" if isinstance(value, dict)
                else short_repr(item, limit))
        parts.append(part)
        size += len(part) + 2
        if size > limit:
            break
    brackets: dict[type, tuple[str, str]] = {dict: ("{", "}"), list: ("[", "]"), tuple: ("(", ")"), set: ("{", "}")}
    opening, closing = brackets.get(type(value), ("[", "]"))
    return opening + ", ".join(parts) + closing


class _BoundedLoader(yaml.SafeLoader):
    def __init__(self, stream):
        super().__init__(stream)
        self._aliases = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.events.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                mark = self.peek_event().start_mark
                raise YAMLLimitError(f"more than {MAX_ALIASES} aliases (*name); uno-env refuses alias-heavy YAML, "
                                     "which can expand to a huge document", mark.line + 1)
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key: the base class reports it
                    continue
                if first is not None:
                    raise YAMLLimitError(f"duplicate key {short_repr(key)} (first given on line {first})", line)
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


def _expanded_size(node: yaml.Node) -> int:
    """Nodes in the document with every alias expanded (shared subtrees counted once per use), capped."""
    memo: dict[int, int] = {}

    def size(n: yaml.Node) -> int:
        if id(n) in memo:
            return memo[id(n)]
        total = 1
        if isinstance(n, yaml.SequenceNode):
            for child in n.value:
                total += size(child)
                if total > MAX_NODES:
                    break
        elif isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                total += size(k) + size(v)
                if total > MAX_NODES:
                    break
        memo[id(n)] = total
        return total

    return size(node)


def load_yaml(text: str | bytes, what: str = "YAML") -> Any:
    """Parse one YAML document within the limits above (``yaml.YAMLError`` on malformed or refused input)."""
    if len(text) > MAX_BYTES:
        raise YAMLLimitError(f"{what} is {len(text)} bytes; at most {MAX_BYTES} are read")
    loader = _BoundedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node) > MAX_NODES:
            raise YAMLLimitError(f"the document expands to more than {MAX_NODES} nodes (aliases counted as "
                                 "copies); uno-env refuses it")
        return loader.construct_document(node)
    except RecursionError:
        raise YAMLLimitError("the document is nested too deeply") from None
    finally:
        loader.dispose()


def load_yaml_file(path: str | os.PathLike) -> Any:
    """Read and parse a YAML file within the limits (``OSError`` if unreadable, ``yaml.YAMLError`` if refused)."""
    path = os.fspath(path)
    size = os.path.getsize(path)
    if size > MAX_BYTES:
        raise YAMLLimitError(f"the file is {size} bytes; at most {MAX_BYTES} are read")
    with open(path, encoding="utf-8") as fh:
        return load_yaml(fh.read(MAX_BYTES + 1))
