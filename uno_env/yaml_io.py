"""Bounded YAML reading for every file uno-env loads (rule files, dice sets, training configs).

``yaml.safe_load`` runs no code, but it still accepts inputs that hurt: a few hundred bytes of nested aliases
(a "billion laughs" bomb) expand to billions of nodes as soon as anything walks the result, and a repeated key
silently keeps the last value.  :func:`load_yaml` refuses, with a :class:`YAMLLimitError` naming the problem:

* files over :data:`MAX_BYTES`;
* more than :data:`MAX_ALIASES` aliases, or a document whose expansion (aliases counted as copies) exceeds
  :data:`MAX_NODES` nodes;
* a key given twice in one mapping (the error names the key and both lines).

A value that is well-formed YAML but cannot be built (a date with month 13, an integer of more digits than Python
reads) is a :class:`YAMLValueError` naming the key, the line and the rule broken, never a bare ``ValueError``.
:func:`load_yaml_file` reads a file through :mod:`uno_env._files` (a regular file of at most :data:`MAX_BYTES`)
and turns every problem into one :class:`~uno_env._files.InputFileError` naming the file;
:func:`describe_yaml_error` words a YAML error the same way wherever YAML text is read.

:func:`short_repr` formats a value for an error message, cut to a readable length.
"""
from __future__ import annotations

import math
import os
import sys
from typing import Any

import yaml

from ._files import MAX_YAML_BYTES, InputFileError, quoted_path, read_text

__all__ = ["load_yaml", "load_yaml_file", "YAMLLimitError", "YAMLValueError", "describe_yaml_error", "short_repr",
           "MAX_BYTES", "MAX_ALIASES", "MAX_NODES"]

MAX_BYTES = MAX_YAML_BYTES
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


class YAMLValueError(yaml.constructor.ConstructorError, ValueError):
    """A well-formed YAML value that cannot be built (``2001-13-45`` read as a date, an integer of 5,000 digits);
    the message names the key (``env.rules``, ``dice[2]``), the value (cut to 80 characters) and the rule."""

    def __init__(self, where: str, node: yaml.Node, error: Exception):
        value = short_repr(node.value) if isinstance(node, yaml.ScalarNode) else f"the {node.id}"
        super().__init__(None, None, f"{where}: {value} {_broken_rule(node.tag, error)}", node.start_mark)


def _broken_rule(tag: str, error: Exception) -> str:
    text = str(error)
    if tag.endswith(":int") and "digits" in text:
        # Python's own text ends in advice about sys.set_int_max_str_digits, which is no use to a config's author
        return f"is an integer of more than {sys.get_int_max_str_digits()} digits, more than is read"
    kind = {"timestamp": "a valid date or time", "int": "a valid integer", "float": "a valid number"}.get(
        tag.rsplit(":", 1)[-1], f"a valid {tag.rsplit(':', 1)[-1]} value")
    # Python's reason helps for a value error (month must be in 1..12); others speak of PyYAML's internals
    return f"is not {kind} ({text[:80]})" if isinstance(error, ValueError) and text else f"is not {kind}"


def describe_yaml_error(e: yaml.YAMLError) -> str:
    """One line for a YAML error, after the name of the file or option it came from: the line and column, and
    what is wrong (``refused: ...`` for the limits above)."""
    if isinstance(e, YAMLLimitError):
        return f"refused: {e}"
    mark = getattr(e, "problem_mark", None)
    at = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = getattr(e, "problem", None) or str(e)
    if isinstance(e, YAMLValueError):
        return f"{at}: {problem}"
    return f"malformed YAML{' at ' + at if at else ''}: {problem}"


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
    if isinstance(value, tuple) and len(value) == 1:
        closing = "," + closing  # (x,): the comma makes it a tuple
    return opening + ", ".join(parts) + closing


class _BoundedLoader(yaml.SafeLoader):
    def __init__(self, stream):
        super().__init__(stream)
        self._aliases = 0
        # what the error of a value that cannot be built names: each value node's parent node and its step from
        # it (".rules", "[2]"), each key node's mapping; the path (``env.rules``) is only spelled out for an error
        self._parent: dict[yaml.Node, tuple[yaml.Node, str]] = {}
        self._key_of: dict[yaml.Node, yaml.Node] = {}

    def construct_object(self, node, deep=False):
        try:
            return super().construct_object(node, deep=deep)
        except yaml.YAMLError:
            raise
        # PyYAML builds dates and numbers with Python's own checks, and an explicit tag (!!timestamp 5) can send a
        # scalar to a builder that does not expect it
        except (ValueError, OverflowError, TypeError, AttributeError, IndexError, KeyError) as e:
            raise YAMLValueError(self._describe(node), node, e) from None

    def _path(self, node: yaml.Node) -> str:
        steps: list[str] = []
        while node in self._parent and len(steps) < 100:
            node, step = self._parent[node]
            steps.append(step)
        return "".join(reversed(steps)).lstrip(".")

    def _describe(self, node: yaml.Node) -> str:
        if node in self._key_of:
            parent = self._path(self._key_of[node])
            return f"a key of {short_repr(parent)}" if parent else "a top-level key"
        path = self._path(node)
        return f"key {short_repr(path)}" if path else "the document"

    def construct_sequence(self, node, deep=False):
        if isinstance(node, yaml.SequenceNode):
            for i, child in enumerate(node.value):
                self._parent.setdefault(child, (node, f"[{i}]"))
        return super().construct_sequence(node, deep=deep)

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
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                self._key_of.setdefault(key_node, node)
                key = self.construct_object(key_node, deep=True)
                self._parent.setdefault(value_node, (node, "." + (key[:80] if isinstance(key, str)
                                                                  else short_repr(key))))
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


def load_yaml_file(path: str | os.PathLike, what: str = "YAML file") -> Any:
    """Read and parse the YAML file ``path`` within the limits; an :class:`~uno_env._files.InputFileError` that
    starts with ``what`` and the path for anything else (not a regular file, too large, not UTF-8, malformed,
    refused, or a value that cannot be built)."""
    text = read_text(path, what, MAX_BYTES)
    try:
        return load_yaml(text, what)
    except yaml.YAMLError as e:
        raise InputFileError(f"{what} {quoted_path(path)}: {describe_yaml_error(e)}") from None
