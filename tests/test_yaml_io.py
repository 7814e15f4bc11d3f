"""Bounded YAML loading (uno_env.yaml_io) for rule files, dice-set files and training configs, and the
``num_players``-given-twice check."""
from __future__ import annotations

import time

import pytest

import uno_env
from uno_env.config import RuleConfig, make_rules
from uno_env.core.dice_set import load_dice_set
from uno_env.training.config import ConfigError, parse_overrides, read_yaml
from uno_env.yaml_io import MAX_BYTES, YAMLLimitError, load_yaml, short_repr

BOMB = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
"""


def _loaders(tmp_path):
    """(name, path, load) for the three kinds of file; each load raises ValueError on a refused file."""
    return [
        ("rules", tmp_path / "rules.yaml", lambda p: RuleConfig.from_yaml(p)),
        ("dice set", tmp_path / "dice.yaml", lambda p: load_dice_set(str(p))),
        ("training config", tmp_path / "train.yaml", lambda p: read_yaml(p)),
    ]


@pytest.mark.parametrize("kind", [0, 1, 2])
def test_alias_bomb_fails_fast_with_a_clear_error(tmp_path, kind):
    name, path, load = _loaders(tmp_path)[kind]
    text = "game: classic\n" + BOMB + "stacking: [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
    assert len(text.encode()) < 500
    path.write_text(text)
    t0 = time.perf_counter()
    with pytest.raises(ValueError) as info:
        load(path)
    assert time.perf_counter() - t0 < 5
    assert "refused" in str(info.value) and "expands to more than" in str(info.value)
    assert len(str(info.value)) < 400


@pytest.mark.parametrize("kind", [0, 1, 2])
def test_duplicate_key_names_the_key_and_line(tmp_path, kind):
    name, path, load = _loaders(tmp_path)[kind]
    path.write_text("game: classic\nstacking: true\nnum_players: 2\nstacking: false\n")
    with pytest.raises(ValueError, match=r"line 4: duplicate key 'stacking' \(first given on line 2\)"):
        load(path)


@pytest.mark.parametrize("kind", [0, 1, 2])
def test_oversized_file_is_refused_unread(tmp_path, kind):
    name, path, load = _loaders(tmp_path)[kind]
    with open(path, "w") as fh:
        fh.write("game: classic\n# " + "x" * MAX_BYTES + "\n")
    with pytest.raises(ValueError, match="bytes; at most"):
        load(path)


def test_many_aliases_are_refused_and_a_few_are_fine():
    with pytest.raises(YAMLLimitError, match="more than 64 aliases"):
        load_yaml("a: &a 1\nb: [" + ", ".join(["*a"] * 65) + "]\n")
    assert load_yaml("base: &b {x: 1}\nmine:\n  <<: *b\n  y: 2\n") == {"base": {"x": 1}, "mine": {"x": 1, "y": 2}}
    with pytest.raises(YAMLLimitError, match="nested too deeply"):
        load_yaml("[" * 5000 + "]" * 5000)


def test_errors_show_a_truncated_value(tmp_path):
    with pytest.raises(ValueError) as info:
        uno_env.env("classic", rules={"stacking": "x" * 1_000_000})
    assert "stacking" in str(info.value) and len(str(info.value)) < 400
    with pytest.raises(ValueError) as info:
        uno_env.env("classic", rules={"max_turns": list(range(1_000_000))})
    assert "max_turns" in str(info.value) and len(str(info.value)) < 400
    path = tmp_path / "r.yaml"
    path.write_text("game: classic\nuno_call: " + "y" * 200_000 + "\n")
    with pytest.raises(ValueError) as info:
        RuleConfig.from_yaml(path)
    assert "uno_call" in str(info.value) and len(str(info.value)) < 600
    assert short_repr("ab") == "'ab'" and len(short_repr([["z" * 10**5]] * 3)) <= 80


def test_training_config_refusals_are_config_errors(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("seed: 1\nseed: 2\n")
    with pytest.raises(ConfigError, match="duplicate key 'seed'"):
        read_yaml(path)
    bomb = "[" + ", ".join(f"&a{i} [" + ", ".join([f"*a{i - 1}" if i else "1"] * 9) + "]" for i in range(8)) + "]"
    assert len(bomb) < 500
    with pytest.raises(ConfigError, match="--set seed: refused"):
        parse_overrides([f"seed={bomb}"])


# ---------------------------------------------------------------------------------------------- num_players twice
def test_num_players_twice_with_different_values_is_an_error(tmp_path):
    with pytest.raises(ValueError, match=r"num_players is given twice.*num_players=3.*num_players=4"):
        uno_env.env("classic", num_players=3, rules={"num_players": 4})
    with pytest.raises(ValueError, match="given twice"):
        make_rules("pocket", 2, RuleConfig.make("pocket", num_players=4))
    path = tmp_path / "four.yaml"
    path.write_text("game: dice\nnum_players: 4\n")
    with pytest.raises(ValueError, match="given twice"):
        make_rules("dice", 3, str(path))


def test_num_players_once_or_twice_the_same_is_fine(tmp_path):
    assert uno_env.env("classic", num_players=3, rules={"num_players": 3}).max_num_agents == 3
    assert make_rules("classic", 4, {"stacking": True}).num_players == 4
    assert make_rules("classic", 4, "rlcard").num_players == 4  # a preset's player count is a default
    path = tmp_path / "plain.yaml"
    path.write_text("game: dice\nreward: points\n")
    assert make_rules("dice", 3, str(path)).num_players == 3
