"""Inputs the agents and the rules loader take from outside: agent specs, policy files, dice sets, rules files,
typed choices, and the random state an opponent carries across ``state_dict``/``load_state_dict``.

Every bad input is a one-line error naming the option and what it allows (on the command line: exit 2, no
traceback); a restored environment continues exactly."""
from __future__ import annotations

import io
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from uno_env.agents.human import HumanAgent
from uno_env.agents.ismcts import ISMCTSAgent
from uno_env.agents.play import play_cli
from uno_env.agents.policy import PolicyFormatError, PolicyWeights, load_weights, save_policy_files
from uno_env.agents.ppo import PolicyRulesWarning
from uno_env.agents.registry import UnknownAgentError, load_agent, make_agent
from uno_env.cli import main
from uno_env.config import RuleConfig, make_rules
from uno_env.core.dice_set import MAX_DICE, load_dice_set
from uno_env.core.game import Game
from uno_env.gym_env import UnoGymEnv

from conftest import write_npz

DIE = ["R1", "Y3", "G5", "B1", "RS", "W"]


# ---------------------------------------------------------------------------------------------- helpers
def _play(env: UnoGymEnv, steps: int, seed: int) -> list[bytes]:
    """The learner's observations over up to ``steps`` random legal moves (the opponents act in between)."""
    rng, out = np.random.default_rng(seed), []
    for _ in range(steps):
        mask = env.action_masks()
        if not mask.any():
            break
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        out.append(obs["observation"].tobytes())
        if term or trunc:
            break
    return out


def _cli(argv: list[str], capsys) -> tuple[int, str]:
    rc = main(argv)
    return rc, capsys.readouterr().err


def _tiny_policy(path: Path, game: Game) -> Path:
    rng = np.random.default_rng(0)
    d_in = game.obs_dim + game.num_actions
    pw = PolicyWeights([rng.normal(size=(8, d_in)).astype(np.float32),
                        rng.normal(size=(game.num_actions, 8)).astype(np.float32)],
                       [np.zeros(8, np.float32), np.zeros(game.num_actions, np.float32)], "tanh", "symlog", True)
    return Path(save_policy_files(pw, str(path), {"game": game.name, "num_players": game.num_players}))


def _npy_header(shape: tuple[int, ...], descr: str = "<f4") -> bytes:
    """A .npy header declaring ``shape`` followed by no data: what a crafted file can claim for nothing."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False, "shape": shape})
    return buf.getvalue()


def _meta(layers) -> np.ndarray:
    return np.array(json.dumps({"layers": layers, "activation": "tanh", "obs_transform": "none",
                                "include_mask": False}))


# ---------------------------------------------------------------------------------------------- 1. determinism
@pytest.mark.parametrize("seed", [3])
def test_gym_env_with_an_ismcts_opponent_continues_exactly_after_load_state_dict(seed):
    env = UnoGymEnv("classic", num_players=3, opponents="ismcts:sims=5")
    env.reset(seed=seed)
    _play(env, 3, 7)
    saved = json.loads(json.dumps(env.state_dict()))  # JSON-ready, and a JSON round trip loses nothing
    ahead = _play(env, 60, 0)
    env.load_state_dict(saved)
    assert _play(env, 60, 0) == ahead
    # a fresh environment given the state plays the same too
    other = UnoGymEnv("classic", num_players=3, opponents="ismcts:sims=5")
    other.reset(seed=seed + 100)
    other.load_state_dict(saved)
    assert _play(other, 60, 0) == ahead


def test_ismcts_random_state_round_trips_and_refuses_bad_states():
    a = ISMCTSAgent("classic", seed=1, sims=5)
    b = ISMCTSAgent("classic", seed=2, sims=5)
    state = a.get_rng_state()
    assert json.loads(json.dumps(state)) == state
    assert b.get_rng_state() != state
    b.set_rng_state(state)
    assert b.get_rng_state() == state
    for bad in (None, 5, {"word": 1}, {"kind": "PCG64", "word": 1}, {**state, "word": -1},
                {**state, "word": 2**64}, {**state, "word": True}, {**state, "word": "1"}, {**state, "extra": 1},
                {"bit_generator": "PCG64", "state": {"state": 1, "inc": 1}, "has_uint32": 0, "uinteger": 0}):
        with pytest.raises(ValueError, match="ismcts: the random state"):
            b.set_rng_state(bad)
        assert b.get_rng_state() == state


@pytest.mark.parametrize("bad, words", [
    ({"kind": "ismcts splitmix64", "word": -1}, "word"),
    ({"kind": "ismcts splitmix64", "word": 2**64}, "word"),
    ({"kind": "ismcts splitmix64"}, "random state"),
    ("x", "random state"),
    ({"bit_generator": "PCG64", "state": {"state": 1, "inc": 1}, "has_uint32": 0, "uinteger": 0}, "random state"),
])
def test_gym_env_refuses_a_bad_opponent_state_and_changes_nothing(bad, words):
    env = UnoGymEnv("classic", num_players=3, opponents=["ismcts:sims=5", "random"])
    env.reset(seed=4)
    _play(env, 2, 1)
    before = env.state_dict()
    d = json.loads(json.dumps(before))
    other = json.loads(json.dumps(before))
    d["env"]["opponents"][0] = bad
    with pytest.raises(ValueError, match=r"env\.opponents\[0\].*" + words):
        env.load_state_dict(d)
    assert env.state_dict() == before
    # and it still plays on as it would have
    ahead = _play(env, 30, 2)
    env.load_state_dict(other)
    assert _play(env, 30, 2) == ahead


# ---------------------------------------------------------------------------------------------- 2. agent specs
@pytest.mark.parametrize("spec, option", [
    ("ismcts:sims=inf", "sims"), ("ismcts:sims=1e999", "sims"), ("ismcts:horizon=inf", "horizon"),
    ("ismcts:sims=nan", "sims"), ("ismcts:ms=inf", "ms"), ("ismcts:c=nan", "c"), ("ismcts:z=-inf", "z"),
    ("ismcts:sims=" + "9" * 5000, "sims"), ("ismcts:sims=" + "9" * 400, "sims"),
], ids=lambda v: v if len(v) < 30 else f"{v[:20]}...({len(v)})")
def test_non_finite_ismcts_numbers_are_refused_naming_the_option(spec, option):
    with pytest.raises(UnknownAgentError, match=rf"ismcts: {option}\b.*(finite|out of range)") as info:
        load_agent(spec, "classic")
    assert len(str(info.value)) < 600 and "\n" not in str(info.value)
    with pytest.raises(ValueError, match=rf"ismcts: {option}\b"):
        UnoGymEnv("classic", opponents=spec)


@pytest.mark.parametrize("value", [float("inf"), float("nan"), np.float64("-inf"), 10**5000, 1e300],
                         ids=["inf", "nan", "np-inf", "huge-int", "1e300"])
def test_ismcts_python_arguments_refuse_non_finite_and_huge_numbers(value):
    for name in ("sims", "horizon", "c", "ms"):
        with pytest.raises(ValueError, match=rf"ismcts: {name}\b.*(finite|out of range)"):
            ISMCTSAgent("classic", **{name: value})


def test_cli_evaluate_refuses_an_infinite_budget_without_a_traceback(capsys):
    rc, err = _cli(["evaluate", "ismcts:sims=inf", "random", "-g", "2", "-q"], capsys)
    assert rc == 2 and "sims" in err and "1..1000000" in err and "Traceback" not in err


# ---------------------------------------------------------------------------------------------- 3. policy files
def test_a_valid_policy_still_loads(tmp_path):
    g = Game(make_rules("classic", 2, None))
    pw, info = load_weights(_tiny_policy(tmp_path / "p.npz", g))
    assert pw.num_actions == g.num_actions and info["layers"] == 2


def test_deeply_nested_meta_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "deep.npz"
    np.savez(path, meta=np.array("[" * 100000 + "]" * 100000), W0=np.zeros((1, 1), np.float32),
             b0=np.zeros(1, np.float32))
    with pytest.raises(PolicyFormatError, match="deep.npz.*nests too deeply"):
        load_weights(path)


@pytest.mark.parametrize("shape", [(1 << 22, 1 << 22), (1 << 25,), (5000, 5000)])
def test_an_array_declaring_a_huge_shape_is_refused_before_it_is_read(tmp_path, shape):
    path = write_npz(tmp_path / "huge.npz", {"meta.npy": _meta(1), "W0.npy": _npy_header(shape),
                                        "b0.npy": np.zeros(1, np.float32)})
    with pytest.raises(PolicyFormatError, match=r"huge.npz.*'W0' declares \d+ bytes.*refused"):
        load_weights(path)


def test_arrays_are_bounded_in_total_too(tmp_path):
    # each under the limit, together over it
    half = (6000, 1500)  # 36 MB of float32
    path = write_npz(tmp_path / "two.npz", {"meta.npy": _meta(2), "W0.npy": _npy_header(half),
                                       "b0.npy": np.zeros(6000, np.float32), "W1.npy": _npy_header(half),
                                       "b1.npy": np.zeros(6000, np.float32)})
    with pytest.raises(PolicyFormatError, match=r"'W1' declares \d+ bytes"):
        load_weights(path)


def test_a_meta_entry_that_is_not_an_npy_array_is_refused(tmp_path):
    # np.load would hand back such an entry's whole (possibly huge) bytes
    path = write_npz(tmp_path / "raw.npz", {"meta": b"{}" * 1000, "W0.npy": np.zeros((1, 1), np.float32),
                                       "b0.npy": np.zeros(1, np.float32)})
    with pytest.raises(PolicyFormatError, match="'meta' is not a .npy array"):
        load_weights(path)


@pytest.mark.parametrize("layers", [True, 1.0, "1"])
def test_layers_must_be_a_true_integer(tmp_path, layers):
    path = tmp_path / "layers.npz"
    np.savez(path, meta=_meta(layers), W0=np.zeros((1, 1), np.float32), b0=np.zeros(1, np.float32))
    with pytest.raises(PolicyFormatError, match="'layers' must be an integer"):
        load_weights(path)


@pytest.mark.parametrize("dtype", [np.complex64, np.bool_, "U3"])
def test_weights_must_be_real_numbers(tmp_path, dtype):
    path = tmp_path / "w.npz"
    np.savez(path, meta=_meta(1), W0=np.zeros((1, 1), dtype), b0=np.zeros(1, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning: refused before any cast
        with pytest.raises(PolicyFormatError, match="'W0' holds .*not real numbers"):
            load_weights(path)


def test_cli_refuses_a_crafted_policy_without_a_traceback(tmp_path, capsys):
    path = write_npz(tmp_path / "huge.npz", {"meta.npy": _meta(1), "W0.npy": _npy_header((1 << 22, 1 << 22)),
                                        "b0.npy": np.zeros(1, np.float32)})
    rc, err = _cli(["evaluate", str(path), "random", "-g", "2", "-q"], capsys)
    assert rc == 2 and "huge.npz" in err and "Traceback" not in err


# ---------------------------------------------------------------------------------------------- 4. dice sets
def _dice_rules(tmp_path: Path, dice_text: str) -> Path:
    (tmp_path / "set.json").write_text(dice_text)
    rules = tmp_path / "rules.yaml"
    rules.write_text("game: dice\ndice_set: set.json\n")
    return rules


def test_a_deeply_nested_json_dice_set_is_refused(tmp_path, capsys):
    rules = _dice_rules(tmp_path, '{"dice": ' + "[" * 200000 + "]" * 200000 + "}")
    with pytest.raises(ValueError, match=r"dice_set.*set.json.*nests too deeply"):
        RuleConfig.from_yaml(rules)
    rc, err = _cli(["evaluate", "--game", "dice", "--rules", str(rules), "random", "random", "-g", "2"], capsys)
    assert rc == 2 and "dice_set" in err and "Traceback" not in err


def test_duplicate_json_keys_are_refused(tmp_path):
    path = tmp_path / "dup.json"
    dice = json.dumps([DIE] * 20)
    path.write_text('{"dice": [], "dice": ' + dice + "}")
    with pytest.raises(ValueError, match=r"dup.json.*duplicate key 'dice'"):
        load_dice_set(path)
    path.write_text('{"name": "a", "dice": ' + dice + ', "name": "b"}')
    with pytest.raises(ValueError, match="duplicate key 'name'"):
        load_dice_set(path)


def test_rule_config_refuses_more_dice_than_the_game_holds(tmp_path):
    assert MAX_DICE == 64
    rules = _dice_rules(tmp_path, json.dumps({"dice": [DIE] * (MAX_DICE + 1)}))
    with pytest.raises(ValueError, match=rf"rule option 'dice_set'.*{MAX_DICE + 1} dice; at most {MAX_DICE}"):
        RuleConfig.from_yaml(rules)
    (tmp_path / "set.json").write_text(json.dumps({"dice": [DIE] * MAX_DICE}))
    assert Game(RuleConfig.from_yaml(rules)).num_dice == MAX_DICE


# ---------------------------------------------------------------------------------------------- 5. rules files
def test_a_non_utf8_rules_file_is_named(tmp_path, capsys):
    path = tmp_path / "r.yaml"
    path.write_bytes(b"game: classic\n\xff\xfe\n")
    with pytest.raises(ValueError, match=r"rules file .*r\.yaml.*not UTF-8"):
        RuleConfig.from_yaml(path)
    rc, err = _cli(["evaluate", "random", "random", "--rules", str(path), "-g", "2"], capsys)
    assert rc == 2 and "r.yaml" in err and "UTF-8" in err and "Traceback" not in err


@pytest.mark.parametrize("name", ["x.YAML", "x.Yml", "x.yaml"])
def test_rules_file_extensions_are_case_insensitive(tmp_path, name):
    path = tmp_path / name
    path.write_text("game: classic\nstacking: any\n")
    assert make_rules("classic", None, str(path)).stacking == "any"
    assert make_rules("classic", 2, str(path)).num_players == 2


@pytest.mark.parametrize("value", [2.0, np.float64(2.0), True, np.bool_(True), "2"])
def test_num_players_must_be_an_int(value):
    with pytest.raises(ValueError, match=r"'num_players' must be an int in the range 2\.\.10"):
        make_rules("classic", value, None)
    with pytest.raises(ValueError, match="'num_players' must be an int"):
        make_rules("classic", value, {"num_players": 2})


def test_num_players_as_a_numpy_int_is_fine():
    assert make_rules("classic", np.int64(3), None).num_players == 3
    assert type(make_rules("classic", np.int64(3), None).num_players) is int


# ---------------------------------------------------------------------------------------------- 6. typed choices
@pytest.mark.parametrize("text", ["²", "-²", "٣x", "9" * 5000], ids=["sup2", "minus-sup2", "arabic", "long"])
def test_human_parse_refuses_non_ascii_and_huge_numbers(text):
    g = Game(make_rules("classic", 2, None))
    agent = HumanAgent(g, input_stream=io.StringIO(""), output_stream=io.StringIO())
    mask = np.zeros(g.num_actions, np.int8)
    mask[[3, 7]] = 1
    action, reason = agent.parse(text, np.zeros(g.obs_dim, np.float32), mask)
    assert action is None and reason


def test_human_parse_still_reads_numbers():
    g = Game(make_rules("classic", 2, None))
    agent = HumanAgent(g, input_stream=io.StringIO(""), output_stream=io.StringIO())
    mask = np.zeros(g.num_actions, np.int8)
    mask[[3, 7]] = 1
    obs = np.zeros(g.obs_dim, np.float32)
    assert agent.parse("2", obs, mask) == (7, "")
    assert agent.parse(" 01 ", obs, mask) == (3, "")
    assert agent.parse("3", obs, mask)[1].startswith("there is no choice 3")


def test_play_asks_again_after_a_superscript_digit():
    out = io.StringIO()
    rc = play_cli(input_stream=io.StringIO("²\n" + "1\n" * 3000), output_stream=out, seed=1)
    text = out.getvalue()
    assert rc == 0 and "unknown action '²'" in text and "Try again." in text and "game over" in text


# ---------------------------------------------------------------------------------------------- 7. ppo's rules
def test_ppo_warns_under_rules_it_was_not_trained_for():
    g = Game(make_rules("classic", 2, "rlcard"))
    with pytest.warns(PolicyRulesWarning, match=r"classic_2p was trained under other rules.*uno_call"):
        make_agent("ppo", g)


def test_ppo_pocket_house_rules_warn_naming_the_option():
    g = Game(make_rules("pocket", 2, {"stacking": "any"}))
    with pytest.warns(PolicyRulesWarning, match=r"stacking: 'off' -> 'any'"):
        make_agent("ppo", g)


def test_ppo_and_ismcts_are_silent_under_the_training_rules():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for game in ("classic", "pocket", "dice"):
            make_agent("ppo", game)
        assert ISMCTSAgent("classic").prior == "ppo"
        make_agent("ppo", Game(make_rules("classic", 2, {"max_turns": 600})))  # a limit, not a rule of play


def test_ismcts_uses_ppo_by_default_only_under_its_rules_and_warns_when_asked_to_anyway():
    g = Game(make_rules("classic", 2, "rlcard"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ISMCTSAgent(g).prior == "rollout"
    with pytest.warns(PolicyRulesWarning):
        assert ISMCTSAgent(g, prior="ppo").prior == "ppo"
