"""Write the type declarations of the names the code generates at import, so a type checker can see them.

The state layout (``uno_env/core/layout.py``), the action table (``uno_env/core/actions.py``) and the options
table (``uno_env/config.py``) are declared once and generate, at import, the offsets ``S_*``/``O_*``, the option
slots ``C_*``, the phases ``PH_*``, the section starts ``A_*``, the attributes of ``StateView``/``BatchView`` and
the fields of ``RuleConfig``.  mypy cannot run that code, so this tool writes the same names, with their types, into
marked blocks of those files (``# generated-types:start`` ... ``# generated-types:end``).  In layout.py and
actions.py the blocks are declarations only (under ``TYPE_CHECKING`` or as class annotations); in config.py the
block is the field list of the ``RuleConfig`` dataclass itself, one field per row of the options table; in
engine.py the blocks are the names of its explicit re-exports of the layout's and the action table's public names.

``python tools/gen_typing.py`` rewrites the blocks; ``--check`` exits 1 when one is out of date (the test suite
runs that check, so a new field or option without a regenerated block fails the tests).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(?P<indent>[ \t]*)# generated-types:start (?P<name>[\w-]+)[^\n]*\n"
                   r".*?# generated-types:end[^\n]*\n", re.S)


def _layout_blocks() -> dict[str, list[str]]:
    from uno_env.core import layout as L

    constants = sorted([f"PH_{const}" for const, _, _ in L.PHASES] + list(L.CONSTANTS)
                       + [f"C_{name.upper()}" for name in L.CFG_INDEX])
    view = [f"{f.name}: {'np.ndarray' if f.shape else 'int'}" for f in L.FIELDS]
    batch = [f"{f.name}: np.ndarray" for f in L.FIELDS]
    return {"layout-constants": [f"{name}: int" for name in constants], "state-view": view, "batch-view": batch}


def _action_blocks() -> dict[str, list[str]]:
    from uno_env.core import actions as A

    return {"action-starts": [f"{name}: int" for name in A.__all__]}


def _isort_key(name: str) -> tuple[int, list[Any]]:
    """The place of ``name`` in a ``from x import (...)`` list as ruff's isort orders it: constants, then classes,
    then the rest, each case-insensitively with numbers in numeric order."""
    kind = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return kind, [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name.lower())]


def _engine_blocks() -> dict[str, list[str]]:
    from uno_env.core import actions as A
    from uno_env.core import layout as L

    return {"engine-actions": [f"{name}," for name in sorted(A.__all__, key=_isort_key)],
            "engine-layout": [f"{name}," for name in sorted(L.__all__, key=_isort_key)]}


def _config_blocks() -> dict[str, list[str]]:
    from uno_env.config import _FIELD_TYPES, OPTIONS

    lines = ["game: str"] + [f"{name}: {_FIELD_TYPES[spec.kind]} = None" for name, spec in OPTIONS.items()]
    return {"rule-config": lines}


FILES = {
    "uno_env/core/layout.py": _layout_blocks,
    "uno_env/core/actions.py": _action_blocks,
    "uno_env/core/engine.py": _engine_blocks,
    "uno_env/config.py": _config_blocks,
}


def render(path: str, text: str) -> str:
    """``text`` with each generated block of ``path`` rewritten from the current declarations."""
    blocks = FILES[path]()
    seen = set()

    def fill(m: re.Match) -> str:
        name, indent = m.group("name"), m.group("indent")
        if name not in blocks:
            raise SystemExit(f"{path}: unknown generated-types block {name!r}")
        seen.add(name)
        body = "".join(f"{indent}{line}\n" if line else "\n" for line in blocks[name])
        return (f"{indent}# generated-types:start {name} (tools/gen_typing.py writes this block; do not edit)\n"
                f"{body}{indent}# generated-types:end {name}\n")

    out = BLOCK.sub(fill, text)
    missing = set(blocks) - seen
    if missing:
        raise SystemExit(f"{path}: no generated-types block named {sorted(missing)}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a block is out of date; change nothing")
    args = parser.parse_args(argv)
    stale = []
    for rel in FILES:
        path = ROOT / rel
        text = path.read_text()
        new = render(rel, text)
        if new != text:
            stale.append(rel)
            if not args.check:
                path.write_text(new)
    if args.check and stale:
        print("generated type declarations out of date in " + ", ".join(stale) + ": run python tools/gen_typing.py",
              file=sys.stderr)
        return 1
    if not args.check:
        print("rewrote " + (", ".join(stale) if stale else "nothing (all current)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
