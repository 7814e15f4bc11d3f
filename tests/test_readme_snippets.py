"""Every ```python block of the README and of the docs site runs as written.

The blocks of one file run in one fresh interpreter, each in its own namespace (so no block relies on another's
variables), which pays the import of the compiled core once per file.

A block that cannot run in a test (it needs a person, a trained model or a long run) is preceded by
``<!-- skip-test: reason -->``; the skipped blocks are counted here so that skipping one more is a visible change.
"""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^(?P<indent>[ \t]*)```python[ \t]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
SKIP = re.compile(r"^\s*<!-- skip-test: (?P<reason>\S.*?) -->\s*$")
# a block that is a file of the repository, included when the site is built (pymdownx.snippets): the file runs
SNIPPET = re.compile(r'^--8<-- "(?P<path>[^"]+)"\s*$', re.M)
# blocks skipped on purpose, per file: both need a finished RLlib run or minutes of RLlib training
SKIPPED = {"docs/rllib.md": 2}


def _blocks(path: Path) -> list[tuple[int, str, str | None]]:
    """(line number, code, skip reason or None) of every python block of ``path``."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        before = text[: m.start()].rstrip("\n").splitlines()
        skip = SKIP.match(before[-1]) if before else None
        code = SNIPPET.sub(lambda s: (ROOT / s.group("path")).read_text(encoding="utf-8"),
                           textwrap.dedent(m.group("body")))
        out.append((text.count("\n", 0, m.start()) + 1, code, skip.group("reason") if skip else None))
    return out


# runs each block in a fresh namespace; stops at the first failure and names it
RUNNER = """
import json, sys, traceback
for line, code in json.loads(sys.stdin.read()):
    try:
        exec(compile(code, f"<block at line {line}>", "exec"), {"__name__": "__main__"})
    except BaseException:
        print(f"block at line {line} failed:\\n{code}\\n" + traceback.format_exc(), file=sys.stderr)
        sys.exit(1)
"""

CASES = [pytest.param(path, id=str(path.relative_to(ROOT)))
         for path in FILES if any(reason is None for _, _, reason in _blocks(path))]


def test_blocks_are_found_and_skips_are_counted():
    readme = _blocks(ROOT / "README.md")
    assert readme and all(reason is None for _, _, reason in readme), "the README's example must run as written"
    skipped = {str(path.relative_to(ROOT)): sum(reason is not None for _, _, reason in _blocks(path))
               for path in FILES}
    assert {f: n for f, n in skipped.items() if n} == SKIPPED
    assert sum(reason is None for path in FILES for _, _, reason in _blocks(path)) >= 8


def test_a_skip_marker_needs_a_reason():
    for path in FILES:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip().startswith("<!-- skip-test"):
                assert SKIP.match(line), f"{path.name}: skip marker without a reason: {line.strip()}"


@pytest.mark.parametrize("path", CASES)
def test_python_blocks_run(path, tmp_path):
    import json

    blocks = [(line, code) for line, code, reason in _blocks(path) if reason is None]
    result = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps(blocks), cwd=tmp_path,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{path.relative_to(ROOT)}: {result.stderr[-4000:]}"


def test_the_docs_never_point_at_documents_users_do_not_have():
    for path in [*FILES, ROOT / "CHANGELOG.md"]:
        text = path.read_text(encoding="utf-8")
        for name in ("RULES.md", "DESIGN.md", "../shared"):
            assert name not in text, f"{path.relative_to(ROOT)} points at {name}, which is not in the repository"
