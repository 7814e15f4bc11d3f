"""RuleConfig: options table, presets, validation messages, YAML round trips."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import numpy as np
import pytest
import yaml

from uno_env.config import (
    GAMES,
    OPTIONS,
    PRESETS,
    OptionSpec,
    RuleConfig,
    options_for,
    presets_for,
    rules_table_markdown,
)

RULES_DIR = Path(__file__).resolve().parent.parent / "configs" / "rules"

CLASSIC_ONLY = ["first_wild", "first_draw_two", "first_reverse", "reverse_two_players"]
CLASSIC_POCKET = [
    "draw_until_playable", "voluntary_draw", "wd4_legality", "wd4_challenge",
    "stacking", "seven_zero", "jump_in", "force_play",
]
SHARED = ["num_players", "episode", "reward", "target_score", "uno_call",
          "uno_catch_probability", "max_turns"]


def dice_file(tmp_path, n, name="bag.yaml"):
    die = ["R1", "Y2", "G3", "B4", "RS", "W"]
    p = tmp_path / name
    p.write_text(yaml.safe_dump({"name": "bag", "dice": [die] * n}), encoding="utf-8")
    return p


# -- the options table -------------------------------------------------------------------------


def test_options_table_shape():
    for name, spec in OPTIONS.items():
        assert isinstance(spec, OptionSpec)
        assert spec.name == name
        assert spec.kind in ("bool", "int", "float", "choice", "path")
        assert spec.games, name
        assert set(spec.default) <= set(GAMES)
        assert spec.source and spec.doc and "\n" not in spec.doc
        for g in spec.games:  # every default passes its own validation
            assert spec.check(g, spec.default[g]) == spec.default[g]
    assert {f.name for f in dataclasses.fields(RuleConfig)} == {"game", *OPTIONS}


def test_options_for_each_game():
    assert options_for("classic") == SHARED + CLASSIC_ONLY + CLASSIC_POCKET + ["drawn_card"]
    assert options_for("pocket") == SHARED + CLASSIC_POCKET + ["extra_wild"]
    assert options_for("dice") == SHARED + ["dice_wd4_bluff", "dice_set"]
    assert RuleConfig.options_for("dice") == options_for("dice")


@pytest.mark.parametrize(
    "game, expected",
    [
        ("classic", dict(num_players=2, target_score=500, wd4_legality="any_playable",
                         first_wild="redeal", voluntary_draw=True, wd4_challenge=False)),
        ("pocket", dict(num_players=2, target_score=250, wd4_legality="any_playable",
                        extra_wild=False, voluntary_draw=True)),
        ("dice", dict(num_players=2, target_score=500, dice_wd4_bluff=False, dice_set="default")),
    ],
)
def test_per_game_defaults(game, expected):
    cfg = RuleConfig.make(game)
    for k, v in expected.items():
        assert getattr(cfg, k) == v, k
    assert cfg.episode == "round" and cfg.reward == "win_loss" and cfg.uno_call == "explicit"
    assert cfg.uno_catch_probability == 1.0 and cfg.max_turns == 5000
    for name in OPTIONS:
        if name not in options_for(game):
            assert getattr(cfg, name) is None
    for bool_opt in ("draw_until_playable", "seven_zero", "jump_in", "force_play"):
        if game != "dice":
            assert getattr(cfg, bool_opt) is False
    if game != "dice":
        assert cfg.stacking == "off"


@pytest.mark.parametrize("game, lo, hi", [("classic", 2, 10), ("pocket", 2, 5), ("dice", 2, 4)])
def test_num_players_range_per_game(game, lo, hi):
    assert RuleConfig.make(game, num_players=lo).num_players == lo
    assert RuleConfig.make(game, num_players=hi).num_players == hi
    for bad in (lo - 1, hi + 1):
        with pytest.raises(ValueError, match=rf"'num_players' must be an int in the range {lo}\.\.{hi}; "
                                             rf"got {bad} \(game '{game}'\)"):
            RuleConfig.make(game, num_players=bad)


# -- presets -----------------------------------------------------------------------------------


def test_presets():
    for game in GAMES:
        assert "standard" in PRESETS[game]
        assert RuleConfig.make(game) == RuleConfig.make(game, "standard")
        assert RuleConfig.make(game, "standard").to_dict() == {"game": game, **PRESETS[game]["standard"]}
    assert presets_for("classic") == ["official", "rlcard", "standard"]


def test_rlcard_preset():
    cfg = RuleConfig.make("classic", "rlcard")
    assert (cfg.num_players, cfg.uno_call, cfg.wd4_challenge, cfg.wd4_legality) == (2, "auto", False, "any_playable")
    assert (cfg.voluntary_draw, cfg.force_play, cfg.episode, cfg.reward) == (False, False, "round", "win_loss")
    assert (cfg.drawn_card, cfg.first_wild, cfg.first_draw_two) == ("rlcard", "random_colour", "play")
    assert cfg.stacking == "off" and cfg.target_score == 500
    # overrides apply on top of the preset
    assert RuleConfig.make("classic", "rlcard", num_players=4).num_players == 4


def test_unknown_preset():
    with pytest.raises(ValueError, match=r"unknown preset 'rlcard' for game 'pocket'; known presets: standard"):
        RuleConfig.make("pocket", "rlcard")
    with pytest.raises(ValueError, match=r"unknown preset 'rlcrd' for game 'classic' \(did you mean 'rlcard'\?\); "
                                         r"known presets: official, rlcard, standard"):
        RuleConfig.make("classic", "rlcrd")


@pytest.mark.parametrize("path", sorted(RULES_DIR.glob("*.yaml")), ids=lambda p: p.name)
def test_rules_yaml_files_equal_python_presets(path):
    game, preset = path.stem.split("_", 1)
    cfg = RuleConfig.from_yaml(path)
    assert cfg == RuleConfig.make(game, preset)
    raw = yaml.safe_load(path.read_text())
    # every file lists every option of its game explicitly, so it documents the full rule set
    assert set(raw) - {"game", "preset"} == set(options_for(game))
    assert {k: v for k, v in raw.items() if k not in ("game", "preset")} == PRESETS[game][preset]


def test_every_preset_has_a_yaml_file():
    files = {p.stem for p in RULES_DIR.glob("*.yaml")}
    for game in GAMES:
        for preset in PRESETS[game]:
            assert f"{game}_{preset}" in files


# -- games and option names --------------------------------------------------------------------


def test_unknown_game():
    with pytest.raises(ValueError, match=r"unknown game 'clasic' \(did you mean 'classic'\?\); "
                                         r"known games: classic, pocket, dice"):
        RuleConfig.make("clasic")
    with pytest.raises(ValueError, match=r"unknown game 'chess'; known games: classic, pocket, dice"):
        options_for("chess")


def test_unknown_option_suggests_close_match():
    with pytest.raises(ValueError, match=r"unknown rule option 'stackin' for game 'classic' "
                                         r"\(did you mean 'stacking'\?\); known options: num_players, "):
        RuleConfig.make("classic", stackin=True)


def test_unknown_option_without_close_match():
    with pytest.raises(ValueError, match=r"unknown rule option 'zzz' for game 'dice'; known options: "
                                         r"num_players, .*dice_set$"):
        RuleConfig.make("dice", zzz=1)


@pytest.mark.parametrize(
    "game, option, value, applies",
    [
        ("classic", "extra_wild", True, "pocket"),
        ("pocket", "first_wild", "reshuffle", "classic"),
        ("dice", "stacking", True, "classic, pocket"),
        ("classic", "dice_set", "default", "dice"),
        ("classic", "dice_wd4_bluff", False, "dice"),
    ],
)
def test_option_of_another_game(game, option, value, applies):
    with pytest.raises(ValueError, match=rf"rule option '{option}' does not apply to game '{game}'; "
                                         rf"it applies to: {applies}$"):
        RuleConfig.make(game, **{option: value})


# -- value validation --------------------------------------------------------------------------

BOOL_OPTS = [(g, n) for g in GAMES for n in options_for(g) if OPTIONS[n].kind == "bool"]


@pytest.mark.parametrize("game, name", BOOL_OPTS)
@pytest.mark.parametrize("bad", [1, 0, "yes", "true", None, 1.0])
def test_bool_options_need_real_bools(game, name, bad):
    with pytest.raises(ValueError, match=rf"rule option '{name}' must be a bool \(true or false\); "
                                         rf"got .* \(game '{game}'\)"):
        RuleConfig.make(game, **{name: bad})


@pytest.mark.parametrize("game, name", BOOL_OPTS)
def test_bool_options_accept_bools(game, name):
    assert getattr(RuleConfig.make(game, **{name: True}), name) is True
    assert getattr(RuleConfig.make(game, **{name: np.bool_(True)}), name) is True


@pytest.mark.parametrize("name", ["num_players", "target_score", "max_turns"])
@pytest.mark.parametrize("bad", [True, 3.0, "3", None])
def test_int_options_need_real_ints(name, bad):
    with pytest.raises(ValueError, match=rf"rule option '{name}' must be an int in the range \d+\.\.\d+; got"):
        RuleConfig.make("classic", **{name: bad})


def test_int_ranges():
    with pytest.raises(ValueError, match=r"'target_score' must be an int in the range 1\.\.100000; got 0"):
        RuleConfig.make("pocket", target_score=0)
    with pytest.raises(ValueError, match=r"'max_turns' must be an int in the range 1\.\.10000000; got 10000001"):
        RuleConfig.make("dice", max_turns=10_000_001)
    assert RuleConfig.make("dice", max_turns=10_000_000).max_turns == 10_000_000
    assert RuleConfig.make("dice", target_score=1).target_score == 1
    cfg = RuleConfig.make("classic", num_players=np.int64(4))
    assert cfg.num_players == 4 and type(cfg.num_players) is int


def test_float_option():
    assert RuleConfig.make("classic", uno_catch_probability=0).uno_catch_probability == 0.0
    assert type(RuleConfig.make("classic", uno_catch_probability=1).uno_catch_probability) is float
    assert RuleConfig.make("classic", uno_catch_probability=0.25).uno_catch_probability == 0.25
    for bad in (True, "0.5", None):
        with pytest.raises(ValueError,
                           match=r"'uno_catch_probability' must be a number in the range 0\.0\.\.1\.0; got"):
            RuleConfig.make("classic", uno_catch_probability=bad)
    for bad in (-0.01, 1.5, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"'uno_catch_probability' must be a number in the range 0\.0\.\.1\.0; "
                                             r"got .* \(game 'classic'\)"):
            RuleConfig.make("classic", uno_catch_probability=bad)


@pytest.mark.parametrize(
    "game, name, allowed",
    [
        ("classic", "episode", "'round', 'match'"),
        ("pocket", "reward", "'win_loss', 'points'"),
        ("dice", "uno_call", "'explicit', 'auto'"),
        ("classic", "first_wild", "'redeal', 'reshuffle', 'choose_colour', 'random_colour'"),
        ("pocket", "wd4_legality", "'colour', 'any_playable'"),
    ],
)
@pytest.mark.parametrize("bad", ["nope", True, 1, None])
def test_choice_options(game, name, allowed, bad):
    with pytest.raises(ValueError, match=rf"rule option '{name}' must be one of {allowed}; got "):
        RuleConfig.make(game, **{name: bad})


def test_choice_message_example_and_suggestion():
    with pytest.raises(ValueError, match=r"rule option 'episode' must be one of 'round', 'match'; got 'rounds' "
                                         r"\(game 'classic'\) \(did you mean 'round'\?\)"):
        RuleConfig.make("classic", episode="rounds")
    with pytest.raises(ValueError, match=r"got 'Round'"):  # case-sensitive, no coercion
        RuleConfig.make("classic", episode="Round")
    for v in ("round", "match"):
        assert RuleConfig.make("classic", episode=v).episode == v


# -- dice_set ----------------------------------------------------------------------------------


def test_dice_set_path_ok(tmp_path):
    p = dice_file(tmp_path, 16)
    cfg = RuleConfig.make("dice", dice_set=p, num_players=3)
    assert cfg.dice_set == str(p)
    assert len(cfg.load_dice_set().faces) == 16
    assert len(RuleConfig.make("dice").load_dice_set().faces) == 24


def test_dice_set_missing_file(tmp_path):
    with pytest.raises(ValueError, match=r"rule option 'dice_set' must be 'default' or an existing YAML/JSON "
                                         r"dice-set file; no such file: .*nope\.yaml"):
        RuleConfig.make("dice", dice_set=str(tmp_path / "nope.yaml"))


@pytest.mark.parametrize("bad", [3, None, "", ["default"]])
def test_dice_set_wrong_type(bad):
    with pytest.raises(ValueError, match=r"rule option 'dice_set' must be 'default' or a path"):
        RuleConfig.make("dice", dice_set=bad)


def test_dice_set_bad_file_fails_at_config_time(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("dice:\n" + "  - [R1, R1, R1, R1, R1, X9]\n" * 11)
    with pytest.raises(ValueError, match=r"rule option 'dice_set' \(game 'dice'\): .*die 1 face 6: 'X9'"):
        RuleConfig.make("dice", dice_set=p)


def test_dice_set_too_small_for_players(tmp_path):
    p = dice_file(tmp_path, 15)  # 3 players need 16
    assert RuleConfig.make("dice", dice_set=p, num_players=2).num_players == 2
    with pytest.raises(ValueError, match=r"has 15 dice but num_players=3 needs 16 \(5 per hand \+ 1 centre die\)"):
        RuleConfig.make("dice", dice_set=p, num_players=3)
    with pytest.raises(ValueError, match=r"needs 16"):
        RuleConfig.make("dice", dice_set=p).replace(num_players=3)


def test_load_dice_set_only_for_dice():
    with pytest.raises(ValueError, match=r"game 'classic' has no dice set"):
        RuleConfig.make("classic").load_dice_set()


# -- construction paths ------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_dict_round_trip(game):
    cfg = RuleConfig.make(game, num_players=3, episode="match", reward="points", uno_catch_probability=0.5)
    d = cfg.to_dict()
    assert d["game"] == game and set(d) == {"game", *options_for(game)}
    assert all(isinstance(v, (bool, int, float, str)) for v in d.values())
    assert RuleConfig.from_dict(d) == cfg
    assert RuleConfig.from_dict(yaml.safe_load(yaml.safe_dump(d))) == cfg


@pytest.mark.parametrize("game", GAMES)
def test_yaml_round_trip(tmp_path, game):
    cfg = RuleConfig.make(game, target_score=123, uno_call="auto")
    p = tmp_path / "r.yaml"
    p.write_text(cfg.to_yaml())
    assert RuleConfig.from_yaml(p) == cfg


def test_from_dict_with_preset_and_overrides():
    cfg = RuleConfig.from_dict({"game": "classic", "preset": "rlcard", "stacking": True})
    assert cfg == RuleConfig.make("classic", "rlcard", stacking=True)
    assert RuleConfig.from_dict({"game": "pocket", "preset": None}) == RuleConfig.make("pocket")


def test_from_dict_errors():
    with pytest.raises(ValueError, match=r"needs the key 'game'"):
        RuleConfig.from_dict({"stacking": True})
    with pytest.raises(ValueError, match=r"must be a mapping"):
        RuleConfig.from_dict(["classic"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"unknown rule option 'stackin' for game 'classic'"):
        RuleConfig.from_dict({"game": "classic", "stackin": True})
    with pytest.raises(ValueError, match=r"option names must be strings"):
        RuleConfig.from_dict({"game": "classic", 3: True})
    with pytest.raises(ValueError, match=r"unknown game 5"):
        RuleConfig.from_dict({"game": 5})


def test_from_yaml_with_preset_key(tmp_path):
    p = tmp_path / "r.yaml"
    p.write_text("game: classic\npreset: rlcard\nnum_players: 3\n")
    assert RuleConfig.from_yaml(p) == RuleConfig.make("classic", "rlcard", num_players=3)


def test_from_yaml_errors_name_the_file(tmp_path):
    p = tmp_path / "r.yaml"
    p.write_text("game: classic\nstacking: [true\nepisode: round\n")
    with pytest.raises(ValueError, match=r"rules file '.*r\.yaml': malformed YAML at line \d+, column \d+"):
        RuleConfig.from_yaml(p)
    p.write_text("- game: classic\n")
    with pytest.raises(ValueError, match=r"r\.yaml'.*top level must be a mapping"):
        RuleConfig.from_yaml(p)
    p.write_text("stacking: true\n")
    with pytest.raises(ValueError, match=r"r\.yaml'.*missing the required key 'game'"):
        RuleConfig.from_yaml(p)
    p.write_text("")
    with pytest.raises(ValueError, match=r"r\.yaml'.*empty"):
        RuleConfig.from_yaml(p)
    p.write_text("game: classic\nstacking: yes please\n")
    with pytest.raises(ValueError, match=r"r\.yaml'.*'stacking' must be one of 'off', 'same', 'any'"):
        RuleConfig.from_yaml(p)
    p.write_text("game: classic\nseven_zero:\n")  # empty value is None, not a default
    with pytest.raises(ValueError, match=r"'seven_zero' must be a bool \(true or false\); got None"):
        RuleConfig.from_yaml(p)
    with pytest.raises(ValueError, match=r"missing\.yaml'.*cannot read"):
        RuleConfig.from_yaml(tmp_path / "missing.yaml")


def test_from_yaml_relative_dice_set_resolves_against_the_file(tmp_path):
    sub = tmp_path / "cfg"
    sub.mkdir()
    dice_file(sub, 11, "small.yaml")
    p = sub / "r.yaml"
    p.write_text("game: dice\ndice_set: small.yaml\n")
    cfg = RuleConfig.from_yaml(p)
    assert Path(cfg.dice_set) == sub / "small.yaml"
    assert len(cfg.load_dice_set().faces) == 11


def test_replace():
    cfg = RuleConfig.make("classic")
    c2 = cfg.replace(stacking="any", num_players=4)
    assert c2.stacking == "any" and c2.num_players == 4 and cfg.stacking == "off"
    with pytest.raises(ValueError, match=r"'num_players' must be an int in the range 2\.\.10; got 11"):
        cfg.replace(num_players=11)
    with pytest.raises(ValueError, match=r"unknown rule option 'stackin'"):
        cfg.replace(stackin=True)
    with pytest.raises(ValueError, match=r"does not apply to game 'classic'"):
        cfg.replace(extra_wild=True)
    with pytest.raises(ValueError, match=r"cannot change the game"):
        cfg.replace(game="pocket")
    with pytest.raises(ValueError, match=r"'stacking' must be one of 'off', 'same', 'any'.*got None"):
        cfg.replace(stacking=None)
    with pytest.raises(ValueError, match=r"'wd4_legality' must be one of"):
        dataclasses.replace(cfg, wd4_legality="never")


def test_direct_construction_is_validated():
    with pytest.raises(ValueError, match=r"rule option 'num_players' is missing for game 'classic'"):
        RuleConfig(game="classic")
    with pytest.raises(ValueError, match=r"'extra_wild' does not apply to game 'dice'"):
        RuleConfig(**{**RuleConfig.make("dice").to_dict(), "extra_wild": False})
    assert RuleConfig(**RuleConfig.make("pocket").to_dict()) == RuleConfig.make("pocket")


def test_frozen_hashable_picklable():
    a = RuleConfig.make("classic", stacking=True)
    b = RuleConfig.make("classic", stacking=True)
    assert a == b and hash(a) == hash(b) and len({a, b, RuleConfig.make("classic")}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.stacking = False  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(a)) == a


def test_repr_is_compact_and_evaluable():
    assert repr(RuleConfig.make("dice")) == "RuleConfig.make('dice')"
    cfg = RuleConfig.make("classic", "rlcard", num_players=3)
    r = repr(cfg)
    assert r.startswith("RuleConfig.make('classic', num_players=3, uno_call='auto'")
    assert eval(r, {"RuleConfig": RuleConfig}) == cfg
    assert cfg.non_defaults()["drawn_card"] == "rlcard"


# -- documentation table -----------------------------------------------------------------------


def test_rules_table_markdown_all_games():
    md = rules_table_markdown()
    lines = md.strip().splitlines()
    assert lines[0] == "| option | games | default | allowed values | meaning | source |"
    assert len(lines) == 2 + len(OPTIONS)
    for name, spec in OPTIONS.items():
        row = next(line for line in lines if line.startswith(f"| `{name}` |"))
        assert row.count(" | ") == 5, row
        assert spec.source in row
    row = next(line for line in lines if line.startswith("| `num_players` |"))
    assert "classic: 2..10; pocket: 2..5; dice: 2..4" in row
    row = next(line for line in lines if line.startswith("| `target_score` |"))
    assert "classic: 500; pocket: 250; dice: 500" in row
    assert "`round`, `match`" in md


def test_rules_table_markdown_one_game():
    md = rules_table_markdown("pocket")
    lines = md.strip().splitlines()
    assert len(lines) == 2 + len(options_for("pocket"))
    assert "`extra_wild`" in md and "`first_wild`" not in md and "`dice_set`" not in md
    row = next(line for line in lines if line.startswith("| `num_players` |"))
    assert "| 2..5 |" in row
    with pytest.raises(ValueError, match=r"unknown game"):
        rules_table_markdown("uno")


def test_stacking_is_an_enum_and_reads_the_old_booleans_explicitly():
    assert RuleConfig.make("classic").stacking == "off"
    assert RuleConfig.make("classic", stacking=True) == RuleConfig.make("classic", stacking="same")
    assert RuleConfig.make("pocket", stacking=False).stacking == "off"
    assert RuleConfig.make("classic", stacking="any").to_dict()["stacking"] == "any"
    # only real booleans are mapped: 1, "true" or "yes" are errors naming the new values
    for bad in (1, 0, "true", "yes", "Same"):
        with pytest.raises(ValueError, match=r"'stacking' must be one of 'off', 'same', 'any' "
                                             r"\(false means 'off', true means 'same'\)"):
            RuleConfig.make("classic", stacking=bad)


def test_rule_config_fields_come_from_the_options_table():
    assert [f.name for f in dataclasses.fields(RuleConfig)] == ["game", *OPTIONS]


@pytest.mark.parametrize("command, folder", [("train", "train"), ("distill", "distill")])
def test_the_help_names_every_packaged_config_of_its_command(command, folder, capsys):
    """``uno-env train --help`` and ``uno-env distill --help`` list the configs that ship (read from the package, so a
    new config cannot be missing from the help); train-rllib's ``rllib_*`` configs are not train's."""
    from uno_env.cli import main
    from uno_env.training.config import packaged_configs

    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    names = packaged_configs(folder)
    assert names and all((name in text) != name.startswith("rllib_") for name in names)
