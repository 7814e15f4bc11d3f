"""UNO Dice sets: face codes, the packaged default set, and every file-validation error."""

from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pytest
import yaml

from uno_env.core.dice_set import (
    FACE_CODES,
    FACE_INDEX,
    MIN_DICE,
    DiceSet,
    dice_set_from_data,
    is_number_face,
    load_dice_set,
)

COLOURED_NUMBERS = [c + n for c in "RYGB" for n in "123456"]
COLOURED_COMMANDS = [c + s for c in "RYGB" for s in "SRD"]


def a_die(i: int = 0) -> list[str]:
    return ["R1", "Y2", "G3", "B4", "RS", "W"] if i % 2 == 0 else ["B6", "G5", "YR", "BD", "W4", "W"]


def valid_data(n: int = MIN_DICE) -> dict:
    return {"name": "mine", "dice": [a_die(i) for i in range(n)]}


def write_yaml(tmp_path, data, name="set.yaml"):
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data) if not isinstance(data, str) else data, encoding="utf-8")
    return p


# -- face codes --------------------------------------------------------------------------------


def test_face_codes_canonical_order():
    assert len(FACE_CODES) == 38
    assert FACE_CODES[:9] == ("R1", "R2", "R3", "R4", "R5", "R6", "RS", "RR", "RD")
    assert FACE_CODES[9:18] == tuple("Y" + s for s in "123456SRD")
    assert FACE_CODES[18:27] == tuple("G" + s for s in "123456SRD")
    assert FACE_CODES[27:36] == tuple("B" + s for s in "123456SRD")
    assert FACE_CODES[36:] == ("W", "W4")
    assert len(set(FACE_CODES)) == 38
    assert all(FACE_CODES[FACE_INDEX[c]] == c for c in FACE_CODES)


def test_is_number_face():
    assert all(is_number_face(c) for c in COLOURED_NUMBERS)
    assert not any(is_number_face(c) for c in COLOURED_COMMANDS + ["W", "W4"])


# -- the default set ---------------------------------------------------------------------------


def test_default_set_documented_properties():
    ds = load_dice_set()
    assert ds.name == "default"
    assert len(ds.faces) == 24
    assert all(len(die) == 6 for die in ds.faces)
    counts = Counter(code for die in ds.faces for code in die)
    assert sum(counts.values()) == 144
    for code in COLOURED_NUMBERS:
        assert counts[code] == 4, code
    for code in COLOURED_COMMANDS:
        assert counts[code] == 3, code
    assert counts["W"] == 6
    assert counts["W4"] == 6
    assert set(counts) == set(FACE_CODES)
    assert ds.face_counts() == dict(counts)


def test_default_set_first_and_last_dice_follow_rules_md_order():
    ds = load_dice_set("default")
    assert ds.faces[0] == ("R1", "Y3", "G5", "B1", "RS", "W")
    assert ds.faces[1] == ("R1", "Y3", "G5", "B1", "RS", "GR")
    assert ds.faces[-1] == ("B6", "R2", "Y4", "G6", "BD", "YS")
    assert ds.max_players() == 4


def test_default_set_every_die_can_show_a_number():
    assert all(any(is_number_face(c) for c in die) for die in load_dice_set().faces)


def test_face_index_array():
    ds = load_dice_set()
    arr = ds.face_index_array()
    assert arr.shape == (24, 6)
    assert arr.dtype == np.int32
    assert arr.min() >= 0 and arr.max() < len(FACE_CODES)
    for d, die in enumerate(ds.faces):
        assert [FACE_CODES[i] for i in arr[d]] == list(die)


def test_dice_set_is_hashable_and_frozen():
    ds = load_dice_set()
    assert hash(ds) == hash(load_dice_set())
    with pytest.raises(AttributeError):  # FrozenInstanceError
        ds.name = "x"  # type: ignore[misc]


# -- user files --------------------------------------------------------------------------------


@pytest.mark.parametrize("ext", [".yaml", ".yml", ".json"])
def test_load_valid_file(tmp_path, ext):
    data = valid_data(13)
    p = tmp_path / f"myset{ext}"
    p.write_text(json.dumps(data) if ext == ".json" else yaml.safe_dump(data), encoding="utf-8")
    ds = load_dice_set(p)
    assert ds.name == "mine"
    assert ds.path == str(p)
    assert len(ds.faces) == 13
    assert ds.faces[0] == tuple(a_die(0))
    assert ds.face_index_array().shape == (13, 6)
    assert load_dice_set(str(p)) == ds


def test_name_defaults_to_file_stem(tmp_path):
    p = write_yaml(tmp_path, {"dice": valid_data()["dice"]}, "bigbag.yaml")
    assert load_dice_set(p).name == "bigbag"


def test_bad_face_code_names_file_die_and_face(tmp_path):
    data = valid_data()
    data["dice"][2][4] = "X9"
    p = write_yaml(tmp_path, data)
    with pytest.raises(ValueError, match=r"die 3 face 5: 'X9' is not a face code") as e:
        load_dice_set(p)
    assert str(p) in str(e.value)
    assert "valid codes are R1, R2" in str(e.value)


def test_face_code_is_case_sensitive(tmp_path):
    data = valid_data()
    data["dice"][0][0] = "r1"
    with pytest.raises(ValueError, match=r"die 1 face 1: 'r1' is not a face code \(did you mean 'R1'\?\)"):
        load_dice_set(write_yaml(tmp_path, data))


def test_face_code_with_space_rejected(tmp_path):
    data = valid_data()
    data["dice"][1][5] = "W 4"
    with pytest.raises(ValueError, match=r"die 2 face 6: 'W 4' is not a face code"):
        load_dice_set(write_yaml(tmp_path, data))


def test_non_string_face_rejected(tmp_path):
    data = valid_data()
    data["dice"][4][1] = 7
    with pytest.raises(ValueError, match=r"die 5 face 2: 7 is not a face code"):
        load_dice_set(write_yaml(tmp_path, data))


@pytest.mark.parametrize("faces", [["R1"] * 5, ["R1"] * 7, []])
def test_die_without_six_faces(tmp_path, faces):
    data = valid_data()
    data["dice"][6] = faces
    with pytest.raises(ValueError, match=rf"die 7 has {len(faces)} faces; every die must have exactly 6"):
        load_dice_set(write_yaml(tmp_path, data))


def test_die_not_a_list(tmp_path):
    data = valid_data()
    data["dice"][3] = "R1 Y2 G3 B4 RS W"
    with pytest.raises(ValueError, match=r"die 4 must be a list of six face codes"):
        load_dice_set(write_yaml(tmp_path, data))


def test_dice_not_a_list(tmp_path):
    with pytest.raises(ValueError, match=r"'dice' must be a list of dice"):
        load_dice_set(write_yaml(tmp_path, {"name": "x", "dice": {"a": 1}}))


def test_no_number_faces(tmp_path):
    data = {"name": "x", "dice": [["RS", "RR", "RD", "W", "W4", "GS"]] * 11}
    with pytest.raises(ValueError, match=r"the centre die must be able to show a number"):
        load_dice_set(write_yaml(tmp_path, data))


def test_too_few_dice(tmp_path):
    p = write_yaml(tmp_path, valid_data(10))
    with pytest.raises(ValueError, match=r"has 10 dice; at least 11 are needed") as e:
        load_dice_set(p)
    assert str(p) in str(e.value)
    load_dice_set(write_yaml(tmp_path, valid_data(11), "ok.yaml"))


@pytest.mark.parametrize("text", ["", "   \n# only a comment\n"])
def test_empty_file(tmp_path, text):
    p = write_yaml(tmp_path, text)
    with pytest.raises(ValueError, match=r"the file is empty") as e:
        load_dice_set(p)
    assert str(p) in str(e.value)


def test_empty_json_file(tmp_path):
    p = tmp_path / "s.json"
    p.write_text("")
    with pytest.raises(ValueError, match=r"the file is empty"):
        load_dice_set(p)


def test_malformed_yaml_reports_line(tmp_path):
    p = write_yaml(tmp_path, "name: x\ndice:\n  - [R1, Y2\n  - [B1]\n")
    with pytest.raises(ValueError, match=r"malformed YAML at line \d+") as e:
        load_dice_set(p)
    assert str(p) in str(e.value)


def test_malformed_json_reports_line(tmp_path):
    p = tmp_path / "s.json"
    p.write_text('{"name": "x",\n "dice": [[1, 2,]]\n}')
    with pytest.raises(ValueError, match=r"malformed JSON at line 2"):
        load_dice_set(p)


def test_missing_dice_key(tmp_path):
    with pytest.raises(ValueError, match=r"missing the 'dice' key"):
        load_dice_set(write_yaml(tmp_path, {"name": "x"}))


def test_unknown_top_level_key(tmp_path):
    data = valid_data()
    data["colours"] = 4
    with pytest.raises(ValueError, match=r"unknown top-level key\(s\) 'colours'"):
        load_dice_set(write_yaml(tmp_path, data))


def test_top_level_not_a_mapping(tmp_path):
    with pytest.raises(ValueError, match=r"top level must be a mapping"):
        load_dice_set(write_yaml(tmp_path, [a_die()] * 11))


def test_bad_name(tmp_path):
    data = valid_data()
    data["name"] = 5
    with pytest.raises(ValueError, match=r"'name' must be a non-empty string"):
        load_dice_set(write_yaml(tmp_path, data))


def test_missing_file(tmp_path):
    p = tmp_path / "nope.yaml"
    with pytest.raises(ValueError, match=r"nope\.yaml.*no such file"):
        load_dice_set(p)


def test_unsupported_extension(tmp_path):
    p = tmp_path / "set.txt"
    p.write_text(yaml.safe_dump(valid_data()))
    with pytest.raises(ValueError, match=r"unsupported file extension '\.txt'; use \.yaml, \.yml or \.json"):
        load_dice_set(p)


def test_source_must_be_path_like():
    with pytest.raises(ValueError, match=r"'default' or a path"):
        load_dice_set(42)  # type: ignore[arg-type]


def test_dice_set_from_data_and_direct_construction_validate():
    ds = dice_set_from_data(valid_data(), "<test>")
    assert ds.path is None and ds.name == "mine"
    with pytest.raises(ValueError, match=r"die 1 face 1: 'Q1' is not a face code"):
        DiceSet(name="d", faces=(("Q1", "R1", "R1", "R1", "R1", "R1"),) * 11)
    with pytest.raises(ValueError, match=r"at least 11"):
        DiceSet(name="d", faces=(tuple(a_die()),) * 3)


def test_error_lists_valid_codes_text():
    data = valid_data()
    data["dice"][0][0] = "W2"
    with pytest.raises(ValueError) as e:
        dice_set_from_data(data, "x.yaml")
    msg = str(e.value)
    assert re.search(r"valid codes are .*BD, W, W4$", msg)
