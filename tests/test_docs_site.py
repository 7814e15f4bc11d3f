"""The docs site: its generated tables come from the code, and its API reference covers every public module.

``make test`` builds the whole site with ``mkdocs build --strict``; these tests check the generator and the
page list without building it.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from scripts import load_script

import uno_env

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _hooks():
    return load_script("docs/hooks.py")


@pytest.fixture(scope="module")
def hooks():
    pytest.importorskip("mkdocs")
    return _hooks()


def test_observation_layout_table_is_the_env_layout(hooks):
    env = uno_env.raw_env("pocket", num_players=3)
    table = hooks.expand("<!-- gen:observation-layout pocket 3 -->")
    for offset, length, name, _ in env.unwrapped.observation_layout:
        assert f"| {offset} | {length} | `{name}` |" in table
    dim = env.observation_space("player_0")["observation"].shape[0]
    assert f"D = {dim} with 3 players." in table


def test_action_table_lists_every_action_in_order(hooks):
    table = hooks.expand("    <!-- gen:action-table dice -->")
    rows = re.findall(r"^    \| (\d+) \| `(.+)` \|$", table, re.M)
    assert [(int(i), n) for i, n in rows] == list(enumerate(uno_env.action_names("dice")))


def test_action_sections_and_sizes_match_the_tables(hooks):
    sections = hooks.expand("<!-- gen:action-sections -->")
    assert "| `draw` | 112 | 106 | 80 |" in sections  # 2K + 4 for K = 54, 51, 38
    sizes = hooks.expand("<!-- gen:observation-sizes -->")
    assert "| classic | 54 | 181 | 240 |" in sizes


def test_rules_options_table_is_the_code_table(hooks):
    from uno_env.config import rules_table_markdown

    assert hooks.expand("<!-- gen:rules-options dice -->") == rules_table_markdown("dice").strip()


def test_an_unknown_marker_fails_the_build(hooks):
    with pytest.raises(ValueError, match="unknown docs marker gen:nope"):
        hooks.expand("<!-- gen:nope -->")


def test_every_markdown_page_is_in_the_nav():
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)

    def pages(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            for value in node.values():
                yield from pages(value)
        elif isinstance(node, list):
            for value in node:
                yield from pages(value)

    in_nav = set(pages(config["nav"]))
    on_disk = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert in_nav == on_disk


def test_api_reference_covers_every_public_module():
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from test_docstrings import _public_modules
    finally:
        sys.path.pop(0)
    documented = set()
    for page in (DOCS / "api").glob("*.md"):
        documented |= set(re.findall(r"^::: ([\w.]+)", page.read_text(encoding="utf-8"), re.M))
    missing = {module for module, _ in _public_modules()} - documented
    assert not missing, f"public modules missing from docs/api: {sorted(missing)}"
