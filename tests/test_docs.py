"""The tables the README and the docs pages write by hand or paste are the code's tables.

The docs site generates most tables while it builds (``docs/hooks.py``): for those, these tests check that the
page still carries the marker that generates them, and that the marker gives the code's table.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from scripts import load_script

import uno_env

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def _page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def hooks():
    pytest.importorskip("mkdocs")
    return load_script("docs/hooks.py")


def test_readme_games_table_is_the_generated_one(hooks):
    block = re.search(r"<!-- games-table:start -->\n(.*?)<!-- games-table:end -->",
                      README.read_text(encoding="utf-8"), re.S)
    assert block, "README lost its games-table markers"
    assert block.group(1).strip() == hooks.expand("<!-- gen:games-table -->"), (
        "README games table is stale: paste the output of `python docs/hooks.py games-table` between the markers")


def test_options_page_generates_the_rules_table(hooks):
    from uno_env.config import rules_table_markdown

    page = _page("games/options.md")
    assert "<!-- gen:rules-options -->" in page
    assert rules_table_markdown().strip() in hooks.expand(page)


def test_actions_page_generates_the_action_sections_and_states_the_sizes(hooks):
    from uno_env.core.actions import actions_markdown

    page = _page("actions.md")
    assert actions_markdown().strip() in hooks.expand(page)
    for game, k, d in (("classic", 54, 0), ("pocket", 51, 0), ("dice", 38, 24)):
        names = uno_env.action_names(game)
        assert len(names) == 3 * k + 19 + 2 * d
        assert f"{game} {3 * k + 19 + 2 * d}" in page
    assert "A = 3K + 19 + 2D" in page


def test_observation_blocks_table_names_every_layout_block():
    text = _page("observations.md")
    section = text.split("## Blocks", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| (\w+) \|", section, re.M)[1:]  # [0] is the header row
    names: list[str] = []
    for game in uno_env.GAMES:
        env = uno_env.raw_env(game)
        names += [n for _, _, n, _ in env.unwrapped.observation_layout if n not in names]
    assert sorted(documented) == sorted(names)


def test_arena_page_generates_the_arena_table_from_the_saved_results(hooks):
    from scripts import load_script

    table = load_script("benchmarks/_arena_table.py").markdown()
    page = _page("arena.md")
    assert "<!-- gen:arena-table -->" in page
    assert table.strip() in hooks.expand(page)


def test_global_state_table_is_the_state_layout():
    section = _page("global-state.md")
    documented = re.findall(r"^\| (\w+) \|", section, re.M)
    names: list[str] = []
    for game in uno_env.GAMES:
        env = uno_env.raw_env(game)
        names += [n for _, _, n, _ in env.state_layout if n not in names]
        m = re.search(rf"(\d+)(?: entries)? in {game}", section)
        assert m and int(m.group(1)) == env.state_space.shape[0], f"state size of {game} is stale"
    assert sorted(documented[1:]) == sorted(names)  # [0] is the header row


def test_readme_links_reach_files_and_headings_that_exist():
    text = README.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if "://" in target:
            continue
        path, _, anchor = target.partition("#")
        assert (ROOT / path).exists(), f"README links to {path}, which does not exist"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", (ROOT / path).read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}
            assert anchor in slugs, f"README links to {target}: no such heading"
