"""The type declarations of generated names (tools/gen_typing.py) follow the declarations they spell out."""
from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

from uno_env.config import OPTIONS, RuleConfig

ROOT = Path(__file__).resolve().parents[1]


def test_generated_type_blocks_are_current():
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_typing.py"), "--check"], capture_output=True,
                         text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr


def test_rule_config_has_one_field_per_option():
    assert [f.name for f in dataclasses.fields(RuleConfig)] == ["game", *OPTIONS]


def test_a_stale_block_is_reported(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_typing
    finally:
        sys.path.pop(0)
    text = (ROOT / "uno_env" / "core" / "layout.py").read_text()
    stale = text.replace("    S_CUR: int\n", "", 1)
    assert stale != text
    assert gen_typing.render("uno_env/core/layout.py", stale) == text
