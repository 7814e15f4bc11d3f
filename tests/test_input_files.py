"""Files from others, crafted in a temporary folder: what is not a regular file is refused at once, what is too
large is refused unread, policy files are held to their schema, and a YAML value that cannot be built is an error
naming the file, the line and the key.  The commands say so in one line with status 2, never a traceback.

1. every loader refuses a FIFO (it would wait for a writer for ever), a directory and a device, naming the file;
2. a policy ``.npz`` whose .npy header is not a dict literal, whose metadata has fields of the wrong type or text
   that is not printable, or whose arrays disagree with the declared architecture is one PolicyFormatError;
3. YAML values that fail while being built (``2001-13-45``, an integer of 5,000 digits) name the file, line and key;
4. the same cases through the command line, each in its own process.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import yaml

from uno_env.agents.policy import PolicyFormatError, PolicyWeights, load_weights, save_policy_files
from uno_env.agents.registry import load_agent
from uno_env.config import RuleConfig, make_rules
from uno_env.core.dice_set import load_dice_set
from uno_env.core.game import Game
from uno_env.record import GameRecord, RecordError, load_record, save_record
from uno_env.training.checkpoints import TrainError, load_checkpoint_state, read_json
from uno_env.training.config import ConfigError, load_config, parse_overrides, read_yaml
from uno_env.yaml_io import load_yaml

from conftest import write_npz

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")

BAD_DATE = "2001-13-45"
HUGE_INT = "9" * 5000


def _within(seconds: float, fn: Callable[[], object], fifo: Path | None = None) -> BaseException | None:
    """Run ``fn`` in a thread; the exception it raised (None if it returned).  A call still running after
    ``seconds`` fails the test, after ``fifo`` is opened for writing so that a reader stuck on it comes loose."""
    out: list[BaseException | None] = []

    def target() -> None:
        try:
            fn()
            out.append(None)
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out.append(e)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        if fifo is not None:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"still waiting after {seconds} s")
    return out[0]


def _tiny_policy(path: Path, meta: dict | None = None, **weights_kw) -> Path:
    game = Game(make_rules("classic", 2, None))
    rng = np.random.default_rng(0)
    pw = PolicyWeights([rng.normal(size=(8, game.obs_dim + game.num_actions)).astype(np.float32),
                        rng.normal(size=(game.num_actions, 8)).astype(np.float32)],
                       [np.zeros(8, np.float32), np.zeros(game.num_actions, np.float32)], "tanh", "symlog", True)
    info = {"game": "classic", "num_players": 2, "name": "tiny", "obs_dim": game.obs_dim,
            "num_actions": game.num_actions, "policy": {"net_arch": [8]}, **(meta or {})}
    return Path(save_policy_files(pw, str(path), info, **weights_kw))


def _npy(header: str, data: bytes = b"") -> bytes:
    """A version-1.0 .npy member with ``header`` as its header text, as is (a crafted file need not be numpy's)."""
    text = header.encode("latin1")
    text += b" " * (63 - (10 + len(text)) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + data


def _rewrite(src: Path, dst: Path, replace: dict[str, bytes | np.ndarray]) -> Path:
    """``src``'s members (``W0.npy`` ...) with those named in ``replace`` (``W0`` ...) replaced."""
    with zipfile.ZipFile(src) as z:
        members: dict[str, bytes | np.ndarray] = {name: replace.get(name[:-4], z.read(name)) for name in z.namelist()}
    return write_npz(dst, members)


def _assert_refused(path: Path, words: str) -> None:
    with pytest.raises(PolicyFormatError, match=path.name) as info:
        load_weights(path)
    assert words in str(info.value), str(info.value)


def _with_meta(src: Path, dst: Path, **changes) -> Path:
    with zipfile.ZipFile(src) as z:
        meta = json.loads(str(np.load(io.BytesIO(z.read("meta.npy")), allow_pickle=False)))
    meta.update(changes)
    return _rewrite(src, dst, {"meta": np.array(json.dumps(meta))})


# ---------------------------------------------------------------------------------------------- 1. regular files only
def _special(tmp_path: Path, kind: str, name: str) -> Path:
    path = tmp_path / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        os.symlink("/dev/zero", path)  # reads without end
    return path


def _loaders(tmp_path: Path) -> dict[str, tuple[str, Callable[[Path], object], type[Exception]]]:
    """kind -> (file name, load, error it raises)."""
    def checkpoint(path: Path) -> object:
        step = tmp_path / "step"
        step.mkdir(exist_ok=True)
        (step / "COMPLETE").write_text("1\n")
        os.replace(path, step / "state.json")
        return load_checkpoint_state(str(step))

    return {
        "policy": ("p.npz", load_weights, PolicyFormatError),
        "policy agent": ("p.npz", lambda p: load_agent(str(p), "classic"), ValueError),
        "gymnasium opponent": ("p.npz", lambda p: __import__("gymnasium").make("uno_env/Classic-v0",
                                                                               opponents=str(p)), ValueError),
        "sb3 zip (trusted)": ("p.zip", lambda p: load_agent(str(p), "classic", allow_pickle=True), ValueError),
        "record": ("r.json", load_record, RecordError),
        "rules": ("r.yaml", RuleConfig.from_yaml, ValueError),
        "rules by name": ("r.yaml", lambda p: make_rules("classic", None, str(p)), ValueError),
        "dice set": ("d.yaml", load_dice_set, ValueError),
        "dice set of rules": ("d.json", lambda p: make_rules("dice", None, {"dice_set": str(p)}), ValueError),
        "training config": ("t.yaml", read_yaml, ConfigError),
        "run file": ("command.json", lambda p: read_json(str(p)), TrainError),
        "checkpoint": ("state.json", checkpoint, TrainError),
    }


LOADERS = list(_loaders(Path(".")))


@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
@pytest.mark.parametrize("loader", LOADERS)
def test_what_is_not_a_regular_file_is_refused_at_once(tmp_path, loader, kind):
    name, load, error = _loaders(tmp_path)[loader]
    if kind == "directory" and loader in ("policy agent", "gymnasium opponent", "sb3 zip (trusted)"):
        pytest.skip("a directory is a run directory there (tests/test_agents.py)")
    path = _special(tmp_path, kind, name)
    err = _within(10, lambda: load(path), path if kind == "fifo" else None)
    assert isinstance(err, error), repr(err)
    words = {"fifo": "pipe (FIFO)", "directory": "a directory", "device": "character device"}[kind]
    assert words in str(err) and name in str(err) and "expected a regular file" in str(err), str(err)


def test_a_pipe_being_written_is_still_read_and_a_silent_one_is_given_up(tmp_path, monkeypatch):
    from uno_env import _files

    # uno-env replay <(zcat game.json.gz) reads a pipe that a process writes: still read to its end
    rec = GameRecord("classic", 2, RuleConfig.make("classic").to_dict(), 7, [])
    save_record(tmp_path / "g.json", rec)
    r, w = os.pipe()
    os.write(w, (tmp_path / "g.json").read_bytes())
    os.close(w)
    try:
        assert load_record(f"/dev/fd/{r}") == rec
    finally:
        os.close(r)
    r, w = os.pipe()  # a writer that never writes
    monkeypatch.setattr(_files, "PIPE_IDLE_SECONDS", 0.2)
    try:
        err = _within(10, lambda: load_record(f"/dev/fd/{r}"))
    finally:
        os.close(r)
        os.close(w)
    assert isinstance(err, RecordError) and "sent nothing for 0.2 s" in str(err)


@pytest.mark.parametrize("limit, load, name", [
    ("MAX_POLICY_FILE_BYTES", load_weights, "p.npz"),
    ("MAX_RECORD_BYTES", load_record, "r.json"),
    ("MAX_YAML_BYTES", RuleConfig.from_yaml, "r.yaml"),
    ("MAX_YAML_BYTES", load_dice_set, "d.json"),
    ("MAX_RUN_STATE_BYTES", lambda p: read_json(str(p)), "state.json"),
])
def test_a_file_over_its_limit_is_refused_unread(tmp_path, limit, load, name):
    from uno_env import _files

    path = tmp_path / name
    with open(path, "wb") as fh:
        fh.truncate(getattr(_files, limit) + 1)  # sparse: nothing is written, and nothing may be read
    with pytest.raises((ValueError, TrainError), match=rf"{name}'.*{getattr(_files, limit) + 1} bytes; at most"):
        load(path)


def test_a_checkpoint_file_that_is_a_fifo_is_refused_before_the_resume_reads_anything(tmp_path):
    step = tmp_path / "step_000000000001"
    step.mkdir()
    (step / "COMPLETE").write_text("1\n")
    (step / "state.json").write_text("{}")
    os.mkfifo(step / "model.zip")
    err = _within(10, lambda: load_checkpoint_state(str(step)), step / "model.zip")
    assert isinstance(err, TrainError) and "model.zip" in str(err) and "named pipe" in str(err)
    assert "the checkpoint is damaged" in str(err)


# ---------------------------------------------------------------------------------------------- 2. policy schema
@pytest.mark.parametrize("header, words", [
    ("{'descr': '<U5', 'fortran_order': False, 'shape': (), (", "not a Python dict literal"),  # tokenize.TokenError
    ("[1, 2, 3]", "expected a dict of exactly"),
    ("{'descr': '<U5', 'fortran_order': False, 'shape': (), 'x': 1}", "expected a dict of exactly"),
    ("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}", "not a text string"),
    ("{'descr': '<U5', 'fortran_order': 'no', 'shape': ()}", "got () and 'no'"),
    ("{'descr': '<U5', 'fortran_order': False, 'shape': (True,)}", "got (True,) and False"),
    ("{'descr': '<U5', 'fortran_order': False, 'shape': (" + "9" * 5000 + ",)}", "not a Python dict literal"),
])
def test_a_malformed_npy_header_is_a_policy_format_error(tmp_path, header, words):
    path = _rewrite(_tiny_policy(tmp_path / "good.npz"), tmp_path / "bad.npz", {"meta": _npy(header)})
    _assert_refused(path, words)


@pytest.mark.parametrize("changes, words", [
    ({"name": {"nested": "dict"}}, "meta 'name' must be printable text"),
    ({"name": "\x1b[2Jcleared"}, "meta 'name' must be printable text"),
    ({"name": "x" * 1000}, "meta 'name' must be printable text of 1..255"),
    ({"game": ["classic"]}, "meta 'game' must be one of classic, pocket, dice"),
    ({"num_players": "2"}, "meta 'num_players' must be an integer"),
    ({"rules": "standard"}, "meta 'rules' must be a mapping"),
    ({"format": "uno-env policy v9"}, "meta 'format' must be 'uno-env policy v1'"),
    ({"steps": -1}, "meta 'steps' must be an integer >= 0"),
    ({"policy": [8]}, "meta 'policy' must be a mapping"),
    ({"\x07bell": 1}, "meta key '\\x07bell' is not printable"),
    ({"obs_dim": 17}, "meta 'obs_dim' is 17, but the arrays give 240"),
    ({"num_actions": 5}, "meta 'num_actions' is 5, but the arrays give 181"),
])
def test_metadata_is_checked_by_type_and_against_the_arrays(tmp_path, changes, words):
    path = _with_meta(_tiny_policy(tmp_path / "good.npz"), tmp_path / "bad.npz", **changes)
    _assert_refused(path, words)


def test_metadata_numbers_must_be_finite(tmp_path):
    good = _tiny_policy(tmp_path / "good.npz")
    with zipfile.ZipFile(good) as z:
        meta = str(np.load(io.BytesIO(z.read("meta.npy")), allow_pickle=False))
    path = _rewrite(good, tmp_path / "nan.npz", {"meta": np.array(meta[:-1] + ', "steps": NaN}')})
    with pytest.raises(PolicyFormatError, match="nan.npz.*'meta' is not a JSON object.*NaN"):
        load_weights(path)


@pytest.mark.parametrize("array, words", [
    (np.zeros((8, 421), np.int32), "holds '<i4', not real numbers"),
    (np.zeros((0, 421), np.float32), "neither empty"),
    (np.zeros((8, 421, 1), np.float32), "a layer's weights are a matrix"),
])
def test_weights_must_be_non_empty_float_matrices(tmp_path, array, words):
    path = _rewrite(_tiny_policy(tmp_path / "good.npz"), tmp_path / "bad.npz", {"W0": array})
    _assert_refused(path, words)


def test_an_array_shorter_than_its_header_says_is_refused(tmp_path):
    good = _tiny_policy(tmp_path / "good.npz")
    with zipfile.ZipFile(good) as z:
        w0 = z.read("W0.npy")
    path = _rewrite(good, tmp_path / "short.npz", {"W0": w0[:-4]})
    with pytest.raises(PolicyFormatError, match="short.npz.*'W0' holds \\d+ bytes of data where its header declares"):
        load_weights(path)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, ">f4"])
def test_good_policies_load_exactly_in_every_float_width_and_order(tmp_path, dtype):
    path = _tiny_policy(tmp_path / "p.npz", dtype=dtype)
    pw, info = load_weights(path)
    with np.load(path, allow_pickle=False) as z:
        for i in range(2):
            np.testing.assert_array_equal(pw.weights[i], z[f"W{i}"].astype(np.float32))
            np.testing.assert_array_equal(pw.biases[i], z[f"b{i}"].astype(np.float32))
            assert pw.weights[i].dtype == np.float32
    fortran = _rewrite(path, tmp_path / "f.npz", {"W0": np.asfortranarray(pw.weights[0])})
    np.testing.assert_array_equal(load_weights(fortran)[0].weights[0], pw.weights[0])
    assert info["name"] == "tiny"


def test_every_shipped_policy_loads_as_numpy_reads_it():
    folder = Path(__file__).resolve().parents[1] / "agents" / "policies"
    files = sorted(folder.glob("*.npz"))
    assert files
    for path in files:
        pw, info = load_weights(path)
        with np.load(path, allow_pickle=False) as z:
            assert info == json.loads(str(z["meta"]))
            for i in range(info["layers"]):
                np.testing.assert_array_equal(pw.weights[i], z[f"W{i}"].astype(np.float32))
                np.testing.assert_array_equal(pw.biases[i], z[f"b{i}"].astype(np.float32))


# ---------------------------------------------------------------------------------------------- 3. YAML values
def _yaml_loaders(tmp_path: Path) -> dict[str, tuple[Path, str, Callable[[Path], object]]]:
    """kind -> (file, text before the bad value's key, load)."""
    return {
        "rules": (tmp_path / "rules.yaml", "game: classic\n", RuleConfig.from_yaml),
        "training config": (tmp_path / "train.yaml", "name: x\n", read_yaml),
        "dice set": (tmp_path / "dice.yaml", "dice: []\n", load_dice_set),
    }


@pytest.mark.parametrize("kind", ["rules", "training config", "dice set"])
@pytest.mark.parametrize("value, rule", [(BAD_DATE, "is not a valid date or time (month must be in 1..12)"),
                                         (HUGE_INT, "is an integer of more than 4300 digits")])
def test_a_value_that_cannot_be_built_names_the_file_line_and_key(tmp_path, kind, value, rule):
    path, head, load = _yaml_loaders(tmp_path)[kind]
    path.write_text(head + f"seed: {value}\n")
    with pytest.raises(ValueError) as info:
        load(path)
    msg = str(info.value)
    assert f"{path.name}': line 2, column 7: key 'seed': " in msg and rule in msg, msg
    assert "sys.set_int_max_str_digits" not in msg and len(msg) < 400  # the value is cut to 80 characters


def test_the_key_is_named_by_its_path_in_nested_yaml(tmp_path):
    path = tmp_path / "train.yaml"
    path.write_text(f"env:\n  game: classic\n  num_players: {BAD_DATE}\nopponents:\n  baselines: [1, {BAD_DATE}]\n")
    with pytest.raises(ConfigError, match=r"train\.yaml': line 3, column 16: key 'env\.num_players': '2001-13-45'"):
        read_yaml(path)
    path.write_text(f"opponents:\n  baselines: [1, {BAD_DATE}]\n")
    with pytest.raises(ConfigError, match=r"line 2, column 18: key 'opponents\.baselines\[1\]'"):
        read_yaml(path)
    path.write_text(f"{BAD_DATE}: 1\n")
    with pytest.raises(ConfigError, match=r"line 1, column 1: a top-level key: '2001-13-45'"):
        read_yaml(path)


def test_a_dice_set_face_that_cannot_be_built_names_die_and_face(tmp_path):
    (tmp_path / "set.yaml").write_text(f"dice:\n  - [R1, Y3, G5, B1, RS, W]\n  - [R1, {BAD_DATE}]\n")
    rules = tmp_path / "rules.yaml"
    rules.write_text("game: dice\ndice_set: set.yaml\n")
    with pytest.raises(ValueError, match=r"rules\.yaml'.*dice_set.*set\.yaml'.*key 'dice\[1\]\[1\]'.*month"):
        RuleConfig.from_yaml(rules)


def test_a_construction_error_is_a_yaml_error_and_a_value_error():
    from uno_env.yaml_io import YAMLValueError

    for text in (f"a: {BAD_DATE}", f"a: {HUGE_INT}", "a: !!timestamp 5", "a: !!int 0x"):
        with pytest.raises(YAMLValueError) as info:
            load_yaml(text)
        assert isinstance(info.value, yaml.YAMLError) and isinstance(info.value, ValueError)
        assert "key 'a'" in str(info.value.problem)


def test_set_values_that_cannot_be_built_stay_text_and_fail_validation_by_key():
    assert parse_overrides([f"seed={BAD_DATE}"]) == [(["seed"], BAD_DATE)]
    with pytest.raises(ConfigError, match=r"config key 'seed': expected int, got str '2001-13-45'"):
        load_config(None, [f"seed={BAD_DATE}"])
    with pytest.raises(ConfigError) as info:
        load_config(None, [f"seed={HUGE_INT}"])
    assert "'seed'" in str(info.value) and len(str(info.value)) < 400


# ---------------------------------------------------------------------------------------------- 4. commands
@pytest.fixture(scope="module")
def crafted(tmp_path_factory) -> Path:
    """A folder of crafted files: FIFOs, a policy with a broken header, YAML with values that cannot be built."""
    root = tmp_path_factory.mktemp("crafted")
    for name in ("fifo.npz", "fifo.yaml", "fifo.json"):
        os.mkfifo(root / name)
    (root / "folder.json").mkdir()
    good = _tiny_policy(root / "good.npz")
    _rewrite(good, root / "header.npz", {"meta": _npy("{'descr': '<U5', 'fortran_order': False, 'shape': (), (")})
    (root / "date_rules.yaml").write_text(f"game: classic\nmax_turns: {BAD_DATE}\n")
    (root / "date_config.yaml").write_text(f"name: crafted\nseed: {BAD_DATE}\n")
    (root / "huge_config.yaml").write_text(f"name: crafted\nseed: {HUGE_INT}\n")
    return root


CLI_CASES = [
    (["evaluate", "fifo.npz", "random", "-g", "2"], ["fifo.npz", "named pipe (FIFO)"]),
    (["evaluate", "header.npz", "random", "-g", "2"], ["header.npz", "not a Python dict literal"]),
    (["evaluate", "random", "random", "-g", "2", "--rules", "date_rules.yaml"],
     ["date_rules.yaml", "key 'max_turns'", "month must be in 1..12"]),
    (["serve", "--opponents", "header.npz", "--port", "0"], ["header.npz", "not a Python dict literal"]),
    (["serve", "--rules", "date_rules.yaml", "--port", "0"], ["date_rules.yaml", "key 'max_turns'", "month"]),
    (["play", "--opponents", "fifo.npz"], ["fifo.npz", "named pipe"]),
    (["train", "--config", "date_config.yaml"], ["date_config.yaml", "line 2", "key 'seed'", "month"]),
    (["train", "--config", "huge_config.yaml"], ["huge_config.yaml", "key 'seed'", "4300 digits"]),
    (["train", "--set", f"seed={BAD_DATE}"], ["config key 'seed'", BAD_DATE]),
    (["train", "--config", "fifo.yaml"], ["fifo.yaml", "named pipe"]),
    (["train", "--name", "fifo.npz", "--set", "runs_dir=.", "--resume"], ["run directory", "fifo.npz'", "named pipe",
                                                                         "expected a directory"]),
    (["replay", "fifo.json", "--no-pause"], ["fifo.json", "nothing to read"]),
    (["replay", "folder.json", "--no-pause"], ["folder.json", "is a directory"]),
]


@pytest.mark.parametrize("argv, words", CLI_CASES, ids=[" ".join(a[:2]) for a, _ in CLI_CASES])
def test_commands_refuse_crafted_files_in_one_line_without_a_traceback(crafted, argv, words):
    try:
        proc = subprocess.run([sys.executable, "-m", "uno_env.cli", *argv], cwd=crafted, capture_output=True,
                              text=True, timeout=120, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"uno-env {' '.join(argv)} still running after 120 s")
    err = proc.stderr
    assert proc.returncode == 2, (proc.returncode, err)
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"uno-env {argv[0]}"), err
    for w in words:
        assert w in err, (w, err)
