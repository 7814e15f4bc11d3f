"""The README's tables are the code's tables: the rules options and the action-table arithmetic."""
from __future__ import annotations

import re
from pathlib import Path

import uno_env
from uno_env.config import rules_table_markdown

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_rules_table_matches_the_option_table():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- rules-table:start -->\n(.*?)<!-- rules-table:end -->", text, re.S)
    assert block, "README lost its rules-table markers"
    assert block.group(1).strip() == rules_table_markdown().strip(), (
        "README rules table is stale: paste the output of `uno-env rules` between the markers")


def test_readme_action_counts_match_the_code():
    text = README.read_text(encoding="utf-8")
    for game, k, d in (("classic", 54, 0), ("pocket", 51, 0), ("dice", 38, 24)):
        names = uno_env.action_names(game)
        assert len(names) == 3 * k + 19 + 2 * d
        assert f"{game} {3 * k + 19 + 2 * d}" in text
    assert "A = 3K + 19 + 2D" in text


def test_readme_observation_blocks_are_the_layout_blocks():
    text = README.read_text(encoding="utf-8")
    for game in uno_env.GAMES:
        env = uno_env.raw_env(game)
        for _, _, name, _ in env.unwrapped.observation_layout:
            assert f"| {name} |" in text, f"README observation table misses block {name!r}"


def test_readme_arena_table_is_the_saved_results():
    from scripts import load_script

    table = load_script("benchmarks/_arena_table.py").markdown()
    block = re.search(r"<!-- arena:start -->\n(.*?)<!-- arena:end -->", README.read_text(encoding="utf-8"), re.S)
    assert block and block.group(1).strip() == table.strip()


def test_readme_action_table_is_the_action_sections():
    from uno_env.core.actions import actions_markdown

    block = re.search(r"<!-- actions-table:start -->\n(.*?)<!-- actions-table:end -->",
                      README.read_text(encoding="utf-8"), re.S)
    assert block, "README lost its actions-table markers"
    assert block.group(1).strip() == actions_markdown().strip()


def test_readme_state_table_is_the_state_layout():
    text = README.read_text(encoding="utf-8")
    section = text.split("## Global state", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| (\w+) \|", section, re.M)
    names: list[str] = []
    for game in uno_env.GAMES:
        env = uno_env.raw_env(game)
        names += [n for _, _, n, _ in env.state_layout if n not in names]
        m = re.search(rf"(\d+)(?: entries)? in {game}", section)
        assert m and int(m.group(1)) == env.state_space.shape[0], f"README state size of {game} is stale"
    assert sorted(documented[1:]) == sorted(names)  # [0] is the header row
