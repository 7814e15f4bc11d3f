"""Agents: the protocol, legality on every game, seeding, pickling, batched forms, the heuristic's rules, registry."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import uno_env
from uno_env.agents import Agent, GreedyAgent, HeuristicAgent, RandomAgent, load_agent
from uno_env.agents.base import ActionView, NoLegalActionError, ObsView
from uno_env.agents.registry import SB3PolicyAgent, UnknownAgentError, available_agents, make_agent
from uno_env.agents.rlcard_rule import RLCardRuleAgent
from uno_env.config import make_rules
from uno_env.core import engine as E
from uno_env.core.game import Game
from uno_env.core.layout import StateView
from uno_env.core.observe import observe_one
from uno_env.core.step_result import decode_step

from conftest import act, aid, legal, scenario

ROOT = Path(__file__).resolve().parent.parent
BASELINES = ["random", "greedy", "heuristic", "rlcard-rule"]


def collect_states(game: str, num_players: int = 2, rules=None, games: int = 6, seed: int = 0):
    """(observations (B, D), masks (B, A)) of the acting seat, from random-vs-random games."""
    g = Game(make_rules(game, num_players, rules))
    rng = np.random.default_rng(seed)
    obs_rows, mask_rows = [], []
    for i in range(games):
        states, rngs = g.new_states(1)
        st, r = states[0], rngs[0]
        E.reset_one(st, r, g.cfg, g.spec, g.dice, seed * 1000 + i)
        mask = np.zeros(g.num_actions, np.int8)
        E.legal_mask(st, g.cfg, g.spec, g.dice, mask)
        rew = np.zeros(E.MAX_PLAYERS, np.float32)
        view = StateView(st)
        for _ in range(300):
            if view.done:
                break
            obs = np.empty(g.obs_dim, np.float32)
            observe_one(st, g.cfg, g.spec, g.obs_offsets, view.cur, obs)
            obs_rows.append(obs)
            mask_rows.append(mask.copy())
            a = int(rng.choice(np.flatnonzero(mask)))
            assert decode_step(E.step_masked(st, r, g.cfg, g.spec, g.dice, a, mask, rew))[0] == E.OK
    return g, np.array(obs_rows), np.array(mask_rows)


HOUSE = {"stacking": True, "seven_zero": True, "jump_in": True}


@pytest.fixture(scope="module", params=[("classic", 2, None), ("classic", 4, HOUSE), ("pocket", 3, None),
                                        ("dice", 2, None), ("classic", 2, "rlcard"), ("pocket", 2, {"stacking": True})])
def states(request):
    game, n, rules = request.param
    return collect_states(game, n, rules)


# ---------------------------------------------------------------------------------------------- protocol
@pytest.mark.parametrize("name", BASELINES)
def test_baselines_are_agents_and_picklable(name):
    a = load_agent(name, "classic", seed=3)
    assert isinstance(a, Agent) and a.name == name
    b = pickle.loads(pickle.dumps(a))
    _, obs, masks = collect_states("classic", games=2)
    a.reset(seed=9)
    b.reset(seed=9)
    assert [a.act(o, m) for o, m in zip(obs, masks)] == [b.act(o, m) for o, m in zip(obs, masks)]


@pytest.mark.parametrize("name", BASELINES)
def test_every_choice_is_legal_and_seeded(name, states):
    g, obs, masks = states
    a = make_agent(name, g, seed=1)
    acts = [a.act(o, m) for o, m in zip(obs, masks)]
    assert all(masks[i, x] == 1 for i, x in enumerate(acts))
    assert all(isinstance(x, int) for x in acts)
    a.reset(seed=1)
    assert [a.act(o, m) for o, m in zip(obs, masks)] == acts  # same seed, same choices
    batch = a.act_batch(obs, masks)
    assert batch.dtype == np.int64 and batch.shape == (len(obs),)
    assert (masks[np.arange(len(obs)), batch] == 1).all()


@pytest.mark.parametrize("name", BASELINES)
def test_act_accepts_the_observation_dict(name):
    env = uno_env.raw_env("pocket")
    env.reset(seed=2)
    a = load_agent(name, env)
    ob = env.observe(env.agent_selection)
    assert ob["action_mask"][a.act(ob)] == 1
    with pytest.raises(NoLegalActionError):
        a.act(ob["observation"], np.zeros_like(ob["action_mask"]))


def test_random_is_uniform_and_batch_matches_single():
    g = Game(make_rules("classic", 2, None))
    mask = np.zeros(g.num_actions, np.int8)
    mask[[3, 40, 112]] = 1
    obs = np.zeros(g.obs_dim, np.float32)
    a = RandomAgent(g, seed=0)
    counts = np.bincount([a.act(obs, mask) for _ in range(3000)], minlength=g.num_actions)
    assert set(np.flatnonzero(counts)) == {3, 40, 112}
    assert counts[[3, 40, 112]].min() > 900
    masks = np.repeat(mask[None], 3000, axis=0)
    b = RandomAgent(g, seed=0).act_batch(np.zeros((3000, g.obs_dim), np.float32), masks)
    assert np.bincount(b, minlength=g.num_actions)[[3, 40, 112]].min() > 900
    x, y = RandomAgent(g, seed=5), RandomAgent(g, seed=5)
    assert [x.act(obs, mask) for _ in range(20)] == [int(y.act_batch(obs[None], mask[None])[0]) for _ in range(20)]


def test_batched_forms_are_vectorised_and_fast():
    g, obs, masks = collect_states("classic", 2, games=8)
    big_obs, big_masks = np.repeat(obs, 20, axis=0), np.repeat(masks, 20, axis=0)
    for agent in (RandomAgent(g, seed=0), GreedyAgent(g, seed=0)):
        out = agent.act_batch(big_obs, big_masks)
        assert (big_masks[np.arange(len(out)), out] == 1).all()


# ---------------------------------------------------------------------------------------------- greedy
def test_greedy_sheds_the_highest_value_card_and_calls_uno():
    env = scenario("classic", "official", hands=[["red 3", "red 8", "red skip", "blue 9"], other(2)], top="red 5")
    g = GreedyAgent(env)
    ob = env.observe("player_0")
    assert g.act(ob) == aid(env, "play red skip")
    env = scenario("classic", "official", hands=[["red 3", "wild draw four"], other(2)], top="red 5")
    assert GreedyAgent(env).act(env.observe("player_0")) == aid(env, "play wild draw four + UNO")


def test_greedy_never_challenges_and_names_its_colour():
    env = scenario("classic", "official", hands=[["blue 1", "blue 2", "red 4"], ["wild draw four", "red 1", "red 2"]],
                   top="red 5", current_seat=1)
    act(env, "play wild draw four")
    g = GreedyAgent(env, seed=0)
    assert g.act(env.observe("player_1")) == aid(env, "choose colour red")
    act(env, "choose colour green")
    assert legal(env) == {"challenge", "accept"}
    for s in range(20):
        g.reset(seed=s)
        assert g.act(env.observe("player_0")) == aid(env, "accept")


# ---------------------------------------------------------------------------------------------- heuristic
def other(n, colour="green"):
    """``n`` distinct filler cards of one colour for an opponent's hand."""
    return [f"{colour} {i}" for i in (1, 2, 3, 4, 6, 7, 8, 9, 0)][:n]


def h_act(env, seat=0, **weights):
    return env.action_names[HeuristicAgent(env, weights=weights or None).act(env.observe(f"player_{seat}"))]


def test_heuristic_keeps_wilds_and_never_bluffs():
    env = scenario("classic", "official", hands=[["red 3", "wild", "blue 5", "green 7"], other(5)], top="red 9")
    assert h_act(env) == "play red 3"
    env = scenario("classic", "official",
                   hands=[["red 1", "wild draw four", "blue 9", "green 7"], other(5)], top="red 9")
    assert h_act(env) in {"play red 1", "play blue 9"}
    # Wild Draw Four is legal without a red card: played gladly
    env = scenario("classic", "official", hands=[["wild draw four", "blue 5", "green 6"], other(5)], top="red 9")
    assert h_act(env) == "play wild draw four"
    # only a bluff is playable: it draws instead
    env = scenario("classic", "official", hands=[["wild draw four", "red 2"], other(5)], top="blue 9",
                   current_colour="red")
    assert "play wild draw four" in legal(env)
    assert h_act(env) == "play red 2 + UNO"
    env = scenario("classic", "official", hands=[["wild draw four", "red 2", "yellow 3"], other(5)], top="blue 9",
                   current_colour="red")
    env.unwrapped.load_state_dict({"current_colour": "red"})
    assert h_act(env) == "play red 2"


def rule_act(env, seat=0, seed=0):
    return env.action_names[RLCardRuleAgent(env, seed=seed).act(env.observe(f"player_{seat}"))]


def test_rlcard_rule_plays_wild_draw_four_first_and_names_the_colour_held_most():
    # RLCard's uno-rule-v1: a playable Wild Draw Four goes first, before any plain card
    env = scenario("classic", "rlcard", hands=[["wild draw four", "blue 1", "blue 2", "green 5"], other(5)],
                   top="red 9")
    assert "play red 9" not in legal(env) and "play blue 1" not in legal(env)
    assert rule_act(env) == "play wild draw four"
    act(env, "play wild draw four")
    assert rule_act(env) == "choose colour blue"


def test_rlcard_rule_keeps_wilds_while_a_plain_card_plays_and_draws_only_when_stuck():
    env = scenario("classic", "official", hands=[["wild", "red 3", "red 5", "blue 8"], other(5)], top="red 9")
    assert {rule_act(env, seed=s) for s in range(30)} == {"play red 3", "play red 5"}
    env = scenario("classic", "official", hands=[["wild", "blue 8"], other(5)], top="red 9")
    assert rule_act(env) == "play wild + UNO"
    env = scenario("classic", "official", hands=[["blue 8", "green 2"], other(5)], top="red 9", draw=["yellow 1"])
    assert rule_act(env) == "draw"


def test_heuristic_names_the_colour_it_holds_most():
    env = scenario("classic", "official", hands=[["wild", "blue 1", "blue 2", "blue 5", "red 3"], other(5)],
                   top="green 9")
    assert h_act(env) == "play wild"
    act(env, "play wild")
    assert h_act(env) == "choose colour blue"


def test_heuristic_calls_uno_and_plays_its_last_card():
    env = scenario("classic", "official", hands=[["red 3", "blue 5"], other(5)], top="red 9")
    assert h_act(env) == "play red 3 + UNO"
    env = scenario("classic", "official", hands=[["wild"], other(5)], top="red 9")
    assert h_act(env) == "play wild"


def test_heuristic_aims_action_cards_at_a_player_close_to_going_out():
    hands = [["red skip", "red 4", "blue 7", "green 2"], ["yellow 1"]]
    env = scenario("classic", "official", hands=hands, top="red 9")
    assert h_act(env) == "play red skip"
    # four players: a Skip would hand the turn to seat 2, who holds one card; seat 1 holds many
    hands = [["red skip", "red 4", "blue 7"], other(6), ["yellow 1"], other(6, "yellow")]
    env = scenario("classic", "official", hands=hands, top="red 9")
    assert h_act(env) == "play red 4"
    # ... while a Draw Two at the next player who is about to go out is the play
    hands = [["red draw two", "red 4", "blue 7"], ["yellow 1"], other(6), other(6, "yellow")]
    env = scenario("classic", "official", hands=hands, top="red 9")
    assert h_act(env) == "play red draw two"


def wd4_pending(other_hand):
    env = scenario("classic", "official", hands=[["blue 1", "blue 2", "green 4", "yellow 6", "yellow 7"], other_hand],
                   top="red 5", current_seat=1)
    act(env, "play wild draw four" + (" + UNO" if len(other_hand) == 2 else ""), "choose colour yellow")
    assert legal(env) == {"challenge", "accept"}
    return env


def test_heuristic_challenges_when_a_bluff_is_likely():
    many = wd4_pending(["wild draw four", "red 1", "green 2", "green 3", "yellow 1", "blue 8", "blue 9"])
    one = wd4_pending(["wild draw four", "green 2"])
    agent = HeuristicAgent(many)
    p_many = agent._guilty_probability(many.observe("player_0")["observation"])
    p_one = agent._guilty_probability(one.observe("player_0")["observation"])
    assert p_one < 0.25 < p_many
    assert h_act(many) == "challenge"
    assert h_act(one) == "accept"
    assert h_act(many, bluff_prior=0.0) == "accept"  # against an opponent that never bluffs


def test_heuristic_plays_the_drawn_card_when_it_helps():
    env = scenario("classic", "official", hands=[["blue 1", "green 4", "yellow 6"], other(5)], top="red 5",
                   draw=["red 8"])
    act(env, "draw")
    assert legal(env) == {"play red 8", "keep drawn card"}
    assert h_act(env) == "play red 8"
    env = scenario("classic", "official", hands=[["red 1", "green 4", "yellow 6"], other(5)], top="red 5",
                   draw=["wild draw four"])
    act(env, "draw")
    assert h_act(env) == "keep drawn card"  # playing it would be a bluff (it holds red 1)


def test_heuristic_house_rules():
    env = scenario("classic", {"stacking": True},
                   hands=[["red 1", "blue draw two", "green 5"], ["red draw two", "red 2", "red 3"]],
                   top="red 5", current_seat=1)
    act(env, "play red draw two")
    assert h_act(env) == "play blue draw two"
    env = scenario("classic", {"seven_zero": True}, hands=[["red 7", "red 1", "blue 2"], other(2),
                                                           other(5, "yellow")], top="red 5")
    act(env, "play red 7")
    assert h_act(env) == "swap hands with seat +1"
    env = scenario("classic", {"jump_in": True}, hands=[["red 1", "red 5", "blue 2"], other(3),
                                                        ["red 5", "green 3", "yellow 3"]], top="red 9")
    act(env, "play red 5")
    assert env.agent_selection == "player_1" and h_act(env, seat=1) == "pass"
    act(env, "pass")
    assert h_act(env, seat=2) == "play red 5"
    env = scenario("pocket", hands=[["wild dip into deck", "red 3", "red 4", "blue 9"], other(3)],
                   top="green 5", draw=["wild"])
    act(env, "play wild dip into deck", "choose colour red")
    assert h_act(env) == "give blue 9"


def test_heuristic_rejects_unknown_weights():
    with pytest.raises(ValueError, match="unknown heuristic weights"):
        HeuristicAgent("classic", weights={"agression": 1})


# ---------------------------------------------------------------------------------------------- views
def test_views_match_the_documented_layout():
    g = Game(make_rules("dice", 3, None))
    ov, av = ObsView(g), ActionView(g)
    for off, length, name, _ in g.observation_layout:
        sl = getattr(ov, name)
        assert (sl.start, sl.stop - sl.start) == (off, length)
    assert g.action_names[av.draw] == "draw" and g.action_names[av.reroll] == "reroll"
    assert g.action_names[av.colour + 3] == "choose colour blue"
    assert av.play_kind(av.play_uno + 5) == 5 and av.play_kind(av.draw) == -1


# ---------------------------------------------------------------------------------------------- registry
def test_registry_names_and_errors(tmp_path):
    assert available_agents()[:3] == ["random", "greedy", "heuristic"]
    assert isinstance(load_agent("Heuristic", "classic"), HeuristicAgent)
    with pytest.raises(UnknownAgentError, match="unknown agent 'heurstic'.*random, greedy, heuristic"):
        load_agent("heurstic", "classic")
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_agent(str(tmp_path / "missing.zip"), "classic")
    with pytest.raises(UnknownAgentError, match="is a directory"):
        load_agent(str(tmp_path) + os.sep, "classic")
    bad = tmp_path / "bad.zip"
    bad.write_text("not a zip")
    with pytest.raises(UnknownAgentError, match="unpickles.*--trust-pickle"):
        load_agent(str(bad), "classic")
    pytest.importorskip("sb3_contrib")
    with pytest.raises(UnknownAgentError, match="cannot load"):
        load_agent(str(bad), "classic", allow_pickle=True)
    with pytest.raises(TypeError):
        load_agent(42, "classic")
    with pytest.raises(ValueError, match="unknown game"):
        load_agent("random", "chess")


def test_importing_agents_does_not_import_torch():
    code = ("import sys, uno_env.agents; from uno_env.agents.registry import load_agent; "
            "[load_agent(n, 'classic') for n in ('random', 'greedy', 'heuristic', 'human')]; "
            "import uno_env.training.evaluate; print('torch' in sys.modules)")
    envvars = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=envvars, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "False"


def test_saved_maskable_ppo_policy_loads_by_path(tmp_path):
    pytest.importorskip("sb3_contrib")
    import gymnasium
    from sb3_contrib import MaskablePPO

    env = gymnasium.make("uno_env/Pocket-v0")
    model = MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    path = tmp_path / "tiny.zip"
    model.save(path)
    g = env.unwrapped.game
    agent = load_agent(str(path), g, allow_pickle=True)  # our own file: trusted
    assert isinstance(agent, SB3PolicyAgent) and agent.name == "tiny"
    _, obs, masks = collect_states("pocket", games=2)
    acts = agent.act_batch(obs, masks)
    assert (masks[np.arange(len(obs)), acts] == 1).all()
    assert agent.act(obs[0], masks[0]) == acts[0]
    copy = pickle.loads(pickle.dumps(agent))
    assert copy._model is None and copy.act(obs[0], masks[0]) == acts[0]
    assert isinstance(load_agent(str(tmp_path / "tiny"), g, allow_pickle=True), SB3PolicyAgent)  # .zip left out
    with pytest.raises(ValueError, match="expects observations of shape"):
        load_agent(str(path), Game(make_rules("classic", 2, None)), allow_pickle=True)
    from uno_env.training.evaluate import run_arena

    res = run_arena([str(path), "random"], game="pocket", rules={"max_turns": 300}, games=4, seed=0,
                    allow_pickle=True)
    assert [s.name for s in res.agents] == ["tiny", "random"] and res.agents[0].games == 4


@pytest.mark.parametrize("name", ["random", "greedy"])
def test_single_and_batched_forms_agree(name, states):
    g, obs, masks = states
    one, many = make_agent(name, g, seed=4), make_agent(name, g, seed=4)
    assert [one.act(o, m) for o, m in zip(obs, masks)] == [int(many.act_batch(o[None], m[None])[0])
                                                           for o, m in zip(obs, masks)]
