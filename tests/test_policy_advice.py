"""``policy.advice: heuristic``: the network is told the heuristic's choice (one-hot) and, with ``advice_gain``,
that action's logit gets a fixed bonus (a residual policy).  The numpy player computes the same input with the
compiled heuristic, so a shipped policy needs no torch; the format checks its new metadata fields."""
from __future__ import annotations

import json

import numpy as np
import pytest

from uno_env.agents.base import NoLegalActionError
from uno_env.agents.heuristic import HeuristicAgent
from uno_env.agents.policy import (
    NumpyPolicyAgent,
    PolicyFormatError,
    PolicyWeights,
    heuristic_advisor,
    load_weights,
    save_policy_files,
)
from uno_env.agents.registry import load_agent
from uno_env.config import RuleConfig
from uno_env.core.game import Game
from uno_env.vector import UnoSingleAgentVectorEnv


def _positions(game: str, n: int = 128, steps: int = 12, players: int = 2):
    """Observations and masks of real games (heuristic against heuristic)."""
    g = Game(RuleConfig.make(game, num_players=players))
    env = UnoSingleAgentVectorEnv(game, n, rules=g.rules, opponents="heuristic", learner_seat="rotate", seed=3,
                                  num_threads=1)
    h = load_agent("heuristic", g, seed=0)
    obs, masks = env.reset(3)
    out = []
    for _ in range(steps):
        out.append((obs.copy(), masks.copy()))
        obs, masks, *_ = env.step(h.act_batch(obs, masks))
    env.close()
    return g, h, np.concatenate([o for o, _ in out]), np.concatenate([m for _, m in out])


def _residual(g, gain: float, seed: int = 0, scale: float = 0.1) -> PolicyWeights:
    """A random two-layer residual policy whose own logits are small next to ``gain``."""
    rng = np.random.default_rng(seed)
    a = g.num_actions
    d = g.obs_dim + 2 * a
    ws = [rng.normal(0, 0.1, (16, d)).astype(np.float32), rng.normal(0, scale, (a, 16)).astype(np.float32)]
    bs = [np.zeros(16, np.float32), np.zeros(a, np.float32)]
    return PolicyWeights(ws, bs, "relu", "symlog", True, "heuristic", gain)


@pytest.mark.parametrize("game, players", [("classic", 2), ("classic", 4), ("pocket", 2), ("dice", 2)])
def test_a_residual_policy_plays_the_heuristic_until_it_learns_otherwise(tmp_path, game, players):
    """Saved and loaded (float16 as shipped), a residual policy whose own logits are small picks the heuristic's
    action on every position (the Python player's, though the advice comes from the compiled heuristic); the
    file records the advice and the game, so it loads without being told it."""
    g, h, obs, masks = _positions(game, players=players)
    path = save_policy_files(_residual(g, 4.0), str(tmp_path / "p.npz"),
                             {"game": game, "num_players": players, "rules": g.rules.to_dict()}, dtype=np.float16)
    meta = json.loads((tmp_path / "p.json").read_text())
    assert meta["advice"] == "heuristic" and meta["advice_gain"] == 4.0
    for agent in (NumpyPolicyAgent.load(path, g, deterministic=True), NumpyPolicyAgent.load(path, deterministic=True)):
        np.testing.assert_array_equal(agent.act_batch(obs, masks), h.act_batch(obs, masks))


def test_the_advice_is_an_input_the_network_can_overrule(tmp_path):
    """Without the gain, large weights of its own make the policy depart from the heuristic; the advice still
    changes its logits (it is an input)."""
    g, h, obs, masks = _positions("classic")
    pw = _residual(g, 0.0, scale=3.0)
    agent = NumpyPolicyAgent(pw, deterministic=True, game=g)
    advice = h.act_batch(obs, masks)
    choice = (masks != 0).sum(1) > 1
    assert (agent.act_batch(obs, masks) != advice)[choice].mean() > 0.2
    other = np.where(advice == 0, 1, 0)
    assert not np.allclose(pw.logits(obs, masks, advice), pw.logits(obs, masks, other))
    with pytest.raises(ValueError, match="advice"):
        pw.logits(obs, masks)


@pytest.mark.parametrize("game", ["classic", "dice"])
def test_the_advice_is_the_compiled_heuristic(monkeypatch, game):
    """The numpy player asks the compiled heuristic (the arena's speed): with the Python player disabled, a
    residual policy still gets the same advice, move for move, in act and in act_batch."""
    g, h, obs, masks = _positions(game, steps=4)
    expected = h.act_batch(obs, masks)

    def refuse(*args, **kwargs):
        raise AssertionError("the Python heuristic was asked for the advice")

    monkeypatch.setattr(HeuristicAgent, "act", refuse)
    monkeypatch.setattr(HeuristicAgent, "act_batch", refuse)
    np.testing.assert_array_equal(heuristic_advisor(g)(obs, masks), expected)
    agent = NumpyPolicyAgent(_residual(g, 4.0), deterministic=True, game=g)
    np.testing.assert_array_equal(agent.act_batch(obs, masks), expected)
    assert [agent.act(o, m) for o, m in zip(obs[:50], masks[:50])] == expected[:50].tolist()


def test_the_compiled_advice_refuses_what_the_environments_never_give():
    """Wrong shapes, a row without a legal action and non-finite or huge values stop with a clear error before
    the compiled code; the next good call still works."""
    g, h, obs, masks = _positions("classic", steps=2)
    advise = heuristic_advisor(g)
    with pytest.raises(ValueError, match=rf"\(B, {g.obs_dim}\).*\(B, {g.num_actions}\)"):
        advise(obs[:, :-1], masks)
    with pytest.raises(ValueError, match="masks"):
        advise(obs, masks[:-1])
    with pytest.raises(ValueError, match="observations"):
        advise(obs[0], masks[0])
    bad = masks.copy()
    bad[5] = 0
    with pytest.raises(NoLegalActionError, match="row 5"):
        advise(obs, bad)
    for value in (np.nan, np.inf, 1e9):
        odd = obs.copy()
        odd[3, 7] = value
        with pytest.raises(ValueError, match="finite"):
            advise(odd, masks)
    np.testing.assert_array_equal(advise(obs, masks.astype(bool)), h.act_batch(obs, masks))


def test_a_policy_with_advice_needs_its_game(tmp_path):
    g = Game(RuleConfig.make("classic"))
    with pytest.raises(ValueError, match="give the game"):
        NumpyPolicyAgent(_residual(g, 1.0), meta={"name": "x"})
    with pytest.raises(ValueError, match="expects observations"):
        NumpyPolicyAgent(_residual(g, 1.0), game="dice")


@pytest.mark.parametrize("field, value, words", [
    ("advice", "greedy", ["'advice'", "'none'", "'heuristic'"]),
    ("advice_gain", -1.0, ["'advice_gain'", "0..100"]),
    ("advice_gain", "big", ["'advice_gain'"]),
])
def test_bad_advice_metadata_is_named(tmp_path, field, value, words):
    g = Game(RuleConfig.make("classic"))
    path = save_policy_files(_residual(g, 1.0), str(tmp_path / "p.npz"), {"game": "classic", "num_players": 2})
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays.pop("meta")))
    meta[field] = value
    np.savez(tmp_path / "bad.npz", meta=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(PolicyFormatError) as e:
        load_weights(tmp_path / "bad.npz")
    for w in words:
        assert w in str(e.value)


def test_policies_written_before_the_advice_input_still_load(tmp_path):
    g = Game(RuleConfig.make("classic"))
    pw = _residual(g, 0.0)
    plain = PolicyWeights([np.zeros((8, g.obs_dim + g.num_actions), np.float32), pw.weights[1][:, :8]],
                          [np.zeros(8, np.float32), np.zeros(g.num_actions, np.float32)], "relu", "symlog", True)
    path = save_policy_files(plain, str(tmp_path / "p.npz"), {"game": "classic", "num_players": 2})
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays.pop("meta")))
    del meta["advice"], meta["advice_gain"]
    np.savez(tmp_path / "old.npz", meta=np.array(json.dumps(meta)), **arrays)
    loaded, _ = load_weights(tmp_path / "old.npz")
    assert loaded.advice == "none" and loaded.advice_gain == 0.0 and loaded.obs_dim == g.obs_dim
