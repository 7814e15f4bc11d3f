"""The exact state: ``state_dict()`` holds everything, ``load_state_dict`` continues exactly and refuses any state the
rules cannot reach (naming the field), leaving the environment as it was.

The reproducers of issue 13 are here (each failed before the exact format): a restored drawn phase or pending draw
that offered other actions, a restored 2-player game that offered "swap hands with seat +9", a UNO Dice bag
reordered by a round trip, and the corrupted states that were accepted (wd_player 10**7 or 5 in a 2-player game,
direction 0 or 7, a negative pending draw, dealer 9 of 2 players, phase "over" while running, the wrong game, a
fractional seat).
"""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from state_roundtrip import CONFIGS, make, restored, through_json, twin_run

import uno_env
from uno_env.core import layout as L
from uno_env.core.validate import field_bounds
from uno_env.gym_env import UnoGymEnv
from uno_env.vector import UnoSingleAgentVectorEnv, UnoVectorEnv

GAMES = ("classic", "pocket", "dice")


def _playing(game: str, n: int = 2, rules=None, seed: int = 0, steps: int = 0, phase: str | None = None):
    """A raw env after ``steps`` random legal steps, or at the first step in ``phase`` (None if never reached)."""
    env = make(game, n, rules or {})
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for i in range(100_000):
        if (phase is None and i >= steps) or (phase is not None and env.game_state.phase_name == phase):
            return env
        if not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.reset()
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return None


def _continue_same(a, b, steps: int, seed: int = 1) -> int:
    """Step both envs with the same random legal actions; assert they look the same throughout."""
    rng = np.random.default_rng(seed)
    done = 0
    for _ in range(steps):
        assert a.agent_selection == b.agent_selection
        for agent in a.possible_agents:
            oa, ob = a.observe(agent), b.observe(agent)
            np.testing.assert_array_equal(oa["observation"], ob["observation"])
            np.testing.assert_array_equal(oa["action_mask"], ob["action_mask"])
        assert a.rewards == b.rewards and a.cumulative_rewards == b.cumulative_rewards
        if not a.agents:
            break
        agent = a.agent_selection
        action = None if a.terminations[agent] or a.truncations[agent] else \
            int(rng.choice(np.flatnonzero(a.observe(agent)["action_mask"])))
        a.step(action)
        b.step(action)
        done += 1
    assert a.state_dict() == b.state_dict()
    return done


# ---------------------------------------------------------------------------------------------- the format
@pytest.mark.parametrize("game", GAMES)
def test_state_dict_is_versioned_plain_data_with_every_layout_field(game):
    env = _playing(game, steps=7)
    d = env.state_dict()
    assert d["format"] == "uno-env-state" and d["version"] == 3
    assert d["game"] == game and d["num_players"] == 2 and d["rules"] == env.rules.to_dict()
    assert through_json(d) == d  # JSON-ready: only dicts, lists, str, int, float, bool, None
    assert set(d["fields"]) == {f.name for f in L.FIELDS}
    row = env.game_state.row
    for f in L.FIELDS:
        value = np.array(d["fields"][f.name])
        assert value.shape == f.shape_for(2)
        entries = row[L.OFFSETS[f.name]: L.OFFSETS[f.name] + f.size_for(2)]
        np.testing.assert_array_equal(value.reshape(-1), L.wide_values(entries) if f.wide else entries)
    assert d["rng"] == [int(env.prng_state[0])]
    assert d["env"]["kind"] == "aec" and d["env"]["agent_selection"] == env.agent_selection


def test_every_layout_field_has_declared_bounds():
    """A field added to core/layout.py must get its bounds in core/validate.field_bounds, or loading would hold
    it only to the range of a row's entries; and those bounds must fit the entries (int16), or the field must be
    declared wide."""
    for game in GAMES:
        for n in (2, 4):
            bounds = field_bounds(make(game, n, {}).game)
            assert set(bounds) == {f.name for f in L.FIELDS}, "declare the new field's bounds in validate.field_bounds"
            assert all(lo <= hi for lo, hi in bounds.values())
            for f in L.FIELDS:
                lo, hi = bounds[f.name]
                allowed = (L.WIDE_MIN, L.WIDE_MAX) if f.wide else (L.STATE_MIN, L.STATE_MAX)
                assert allowed[0] <= lo and hi <= allowed[1], f"{game}: {f.name} {lo}..{hi} does not fit its entries"


def test_fields_follow_the_layout_so_new_fields_are_included():
    """state_dict is generated from layout.FIELDS: a field's name and shape come from the declaration."""
    env = _playing("classic", steps=3)
    d = env.state_dict()
    assert list(d["fields"]) == [f.name for f in L.FIELDS]


@pytest.mark.parametrize("version", [1, 4, "3", 3.0, True, None])
def test_unknown_versions_are_refused_clearly(version):
    env = _playing("classic", steps=3)
    d = env.state_dict()
    d["version"] = version
    with pytest.raises(ValueError, match="version"):
        env.load_state_dict(d)


def _as_version_2(d):
    """``d`` as the previous release wrote it: the same fields, ``hand`` with ten rows whatever the game."""
    old = json.loads(json.dumps(d))
    old["version"] = 2
    hand = old["fields"]["hand"]
    old["fields"]["hand"] = hand + [[0] * L.MAX_KINDS for _ in range(L.MAX_PLAYERS - len(hand))]
    return old


@pytest.mark.parametrize("game,n", [("classic", 2), ("pocket", 3), ("dice", 4)])
def test_a_version_2_state_is_converted_exactly(game, n):
    """Version 2 rows held ten hands whatever the game; the seats past num_players were empty, so dropping them
    is exact: the loaded game continues as the saved one."""
    env = make(game, n, {})
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(25):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    twin = make(game, n, {})
    twin.load_state_dict(_as_version_2(env.state_dict()))
    assert twin.state_dict() == env.state_dict()
    _continue_same(env, twin, 300)


def test_a_version_2_state_with_cards_past_the_seats_is_refused():
    env = _playing("classic", steps=3)
    old = _as_version_2(env.state_dict())
    old["fields"]["hand"][5][0] = 1
    before = env.state_dict()
    with pytest.raises(ValueError, match=r"fields.hand: a version-2 state holds 10 rows"):
        env.load_state_dict(old)
    assert env.state_dict() == before


def test_a_version_3_state_with_ten_hand_rows_is_refused_naming_the_field():
    env = _playing("classic", steps=3)
    d = _as_version_2(env.state_dict())
    d["version"] = 3
    with pytest.raises(ValueError, match="fields.hand"):
        env.load_state_dict(d)


def test_a_loaded_env_needs_no_reset_and_continues_across_episodes():
    env = _playing("classic", steps=30, seed=4)
    twin = uno_env.raw_env("classic")
    twin.load_state_dict(through_json(env.state_dict()))
    _continue_same(env, twin, 3000)
    env.reset()
    twin.reset()  # the next episode's seed comes from the saved seed and episode index
    _continue_same(env, twin, 50)


# ---------------------------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("game", GAMES)
def test_round_trip_at_every_step_reaches_every_phase_and_changes_nothing(game):
    """Random games, a restore (through JSON, into a fresh or a used env) before half the steps, compared after
    every step with the uninterrupted game: observations of every seat, masks, agent_selection, rewards, flags,
    infos and the whole state_dict."""
    phases: set[str] = set()
    restores = 0
    for i, (g, n, rules) in enumerate(CONFIGS):
        if g != game:
            continue
        steps, r, diffs = twin_run(g, n, rules, seed=100 + i, restore_p=0.5, phases=phases, episodes=2,
                                   max_steps=300)
        assert diffs == 0, (g, n, rules)
        restores += r
    expected = {"turn", "choose colour", "pending draw", "drawn", "over"} | {
        "classic": {"swap", "jump-in"}, "pocket": {"give", "swap", "jump-in"}, "dice": {"rerolled"}}[game]
    assert expected <= phases, expected - phases
    assert restores > 200


def test_reproducer_restored_drawn_phase_and_pending_draw_offer_the_same_actions():
    for phase in ("drawn", "pending draw"):
        for seed in range(3):
            env = _playing("classic", rules={"wd4_challenge": True}, seed=seed, phase=phase)
            mask = env.observe(env.agent_selection)["action_mask"]
            twin = restored(env, through_json(env.state_dict()))
            assert twin.game_state.phase_name == phase
            np.testing.assert_array_equal(twin.observe(twin.agent_selection)["action_mask"], mask)
            _continue_same(env, twin, 200, seed=seed)


def test_reproducer_two_players_never_offered_swap_with_seat_plus_nine():
    env = _playing("classic", seed=0, steps=5)
    d = env.state_dict()
    with pytest.raises(ValueError, match="seven_zero"):
        env.load_state_dict({"phase": "swap"})
    assert env.state_dict() == d
    env7 = _playing("classic", rules={"seven_zero": True}, seed=1, phase="swap")
    twin = restored(env7, through_json(env7.state_dict()))
    legal = {twin.action_names[a] for a in np.flatnonzero(twin.observe(twin.agent_selection)["action_mask"])}
    assert legal == {"swap hands with seat +1"}


def test_reproducer_dice_bag_order_survives_the_round_trip():
    env = _playing("dice", steps=4, seed=2)
    d = env.state_dict()
    twin = restored(env, through_json(d))
    assert twin.state_dict()["fields"]["draw"] == d["fields"]["draw"]
    assert _continue_same(env, twin, 400, seed=5) > 8  # it diverged after 8 steps when the bag was re-sorted


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_env_round_trip_continues_exactly(game):
    kwargs = dict(num_players=3, opponents="random", learner_seat="random")
    a = UnoGymEnv(game, **kwargs)
    a.reset(seed=11)
    rng = np.random.default_rng(3)
    b = None
    for step in range(400):
        if step % 3 == 0:
            b = UnoGymEnv(game, **kwargs)
            b.load_state_dict(through_json(a.state_dict()))
        legal = np.flatnonzero(a.action_masks())
        if not legal.size:
            oa, ia = a.reset()
            ob, ib = b.reset()
            np.testing.assert_array_equal(oa["observation"], ob["observation"])
            assert ia["learner_seat"] == ib["learner_seat"]
            continue
        action = int(rng.choice(legal))
        ra, rb = a.step(action), b.step(action)
        np.testing.assert_array_equal(ra[0]["observation"], rb[0]["observation"])
        np.testing.assert_array_equal(ra[0]["action_mask"], rb[0]["action_mask"])
        assert ra[1:4] == rb[1:4]
        assert a.state_dict() == b.state_dict()


def test_vector_env_rows_round_trip_exactly():
    a = UnoVectorEnv("pocket", num_envs=4, num_players=3, rules={"seven_zero": True}, seed=5, num_threads=1)
    b = UnoVectorEnv("pocket", num_envs=4, num_players=3, rules={"seven_zero": True}, seed=99, num_threads=1)
    a.reset()
    b.reset()
    rng = np.random.default_rng(0)
    for step in range(600):
        if step % 7 == 0:
            for g in range(4):
                b.load_state_dict(g, through_json(a.state_dict(g)))
        np.testing.assert_array_equal(a.observations, b.observations)
        np.testing.assert_array_equal(a.masks, b.masks)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in a.masks])
        ra, rb = a.step(acts), b.step(acts)
        for x, y in zip(ra[:6], rb[:6]):
            np.testing.assert_array_equal(x, y)
    for g in range(4):
        assert a.state_dict(g) == b.state_dict(g)


def test_single_agent_vector_rows_round_trip_with_in_kernel_opponents():
    kw = dict(num_envs=3, num_players=3, learner_seat="rotate", num_threads=1)
    a = UnoSingleAgentVectorEnv("dice", seed=1, **kw)
    b = UnoSingleAgentVectorEnv("dice", seed=2, **kw)
    a.reset()
    b.reset()
    rng = np.random.default_rng(1)
    for step in range(300):
        if step % 5 == 0:
            for g in range(3):
                b.load_state_dict(g, through_json(a.state_dict(g)))
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in a.masks])
        ra, rb = a.step(acts), b.step(acts)
        for x, y in zip(ra[:5], rb[:5]):
            np.testing.assert_array_equal(x, y)


def test_an_aec_state_loads_into_a_vector_row_without_its_shell_part():
    env = _playing("classic", steps=20, seed=8)
    d = env.state_dict()
    vec = UnoVectorEnv("classic", num_envs=2, seed=0, num_threads=1)
    vec.reset()
    with pytest.raises(ValueError, match="env.kind"):
        vec.load_state_dict(1, d)
    game_only = {k: v for k, v in d.items() if k != "env"}
    vec.load_state_dict(1, game_only)
    obs = env.observe(env.agent_selection)
    np.testing.assert_array_equal(vec.observations[1], obs["observation"])
    np.testing.assert_array_equal(vec.masks[1], obs["action_mask"])


# ---------------------------------------------------------------------------------------------- refusals
def _refused(env, d, match: str, exc=(ValueError, TypeError)):
    before = env.state_dict()
    with pytest.raises(exc, match=match):
        env.load_state_dict(d)
    assert env.state_dict() == before  # nothing was written
    np.testing.assert_array_equal(env.observe(env.agent_selection)["action_mask"],
                                  restored(env, before).observe(env.agent_selection)["action_mask"])


def _with_field(d, name, value):
    d = copy.deepcopy(d)
    d["fields"][name] = value
    for key in ("current_seat", "direction", "pending_draw", "dealer", "wd_player", "phase", "done"):
        d.pop(key, None)  # the readable view would disagree with the edited field first
    return d


@pytest.mark.parametrize("field, value, partial_key, partial_value, match", [
    ("wd_player", 10**7, "wd_player", 10**7, "wd_player"),
    ("wd_player", 5, "wd_player", 5, "wd_player"),
    ("dir", 0, "direction", 0, "dir"),
    ("dir", 7, "direction", 7, "dir"),
    ("pending", -1, "pending_draw", -1, "pending"),
    ("dealer", 9, "dealer", 9, "dealer"),
    ("cur", 2, "current_seat", 2, "cur"),
])
def test_reproducer_corrupted_states_are_refused_naming_the_field(field, value, partial_key, partial_value, match):
    env = _playing("classic", steps=5)
    _refused(env, _with_field(env.state_dict(), field, value), match)
    _refused(env, {partial_key: partial_value}, f"{partial_key}|{match}")


def test_reproducer_phase_over_while_running_and_running_while_over_are_refused():
    env = _playing("classic", steps=5)
    _refused(env, _with_field(env.state_dict(), "phase", L.PH_OVER), "over")
    _refused(env, {"phase": "over"}, "over")
    _refused(env, {"done": "terminated"}, "over")


def test_reproducer_wrong_game_and_players_and_rules_are_refused():
    env = _playing("classic", steps=5)
    d = env.state_dict()
    _refused(env, {**d, "game": "pocket"}, "game")
    _refused(env, {"game": "dice"}, "game")
    _refused(env, {**d, "num_players": 3}, "num_players")
    _refused(env, {**d, "num_players": 2.0}, "num_players")
    other = _playing("classic", rules={"stacking": "any"}, steps=5).state_dict()
    _refused(env, other, "rules.*stacking")
    _refused(env, _playing("pocket", steps=5).state_dict(), "game")
    _refused(env, _playing("classic", n=3, steps=5).state_dict(), "num_players")


@pytest.mark.parametrize("value", [1.5, 1.0, True, "1", None, [1]])
def test_reproducer_fractional_or_non_int_seat_is_refused(value):
    env = _playing("classic", steps=5)
    _refused(env, _with_field(env.state_dict(), "cur", value), "cur")
    _refused(env, {"current_seat": value}, "current_seat")


def test_pending_challenge_needs_the_seat_that_played_the_wild():
    """wd_player -1 under a pending Wild Draw Four would make a challenge deal cards to seat -1."""
    for seed in range(40):
        env = _playing("classic", rules={"wd4_challenge": True}, seed=seed, phase="pending draw")
        if env.game_state.pending_sym == 15:  # a Wild Draw Four
            break
    else:
        pytest.skip("no pending Wild Draw Four reached")
    _refused(env, _with_field(env.state_dict(), "wd_player", -1), "wd_player")


@pytest.mark.parametrize("mutate, match", [
    (lambda d: d.pop("fields"), "fields"),
    (lambda d: d.pop("rng"), "rng"),
    (lambda d: d["fields"].pop("hand"), "missing.*hand"),
    (lambda d: d["fields"].__setitem__("hands_extra", 0), "unknown.*hands_extra"),
    (lambda d: d.__setitem__("colour_of_the_day", 1), "unknown state keys"),
    (lambda d: d.__setitem__("format", "pickle"), "format"),
    (lambda d: d.__setitem__("rng", [-1]), "rng"),
    (lambda d: d.__setitem__("rng", [2**64]), "rng"),
    (lambda d: d.__setitem__("rng", 5), "rng"),
    (lambda d: d["fields"].__setitem__("hand", [[0] * 54] * 9), "hand"),
    (lambda d: d["fields"]["hand"][0].__setitem__(0, 1.0), r"hand\[0, 0\]"),
    (lambda d: d["fields"]["hand"][0].__setitem__(0, False), r"hand\[0, 0\]"),
    (lambda d: d["fields"]["draw"].__setitem__(3, 2**40), "draw"),
    (lambda d: d["fields"]["draw"].__setitem__(127, 99), r"draw.*\[127\]"),
    (lambda d: d["fields"]["scores"].__setitem__(7, 3), "past num_players"),
    (lambda d: d["fields"]["hand"][0].__setitem__(3, d["fields"]["hand"][0][3] + 1), "hand size"),
    (lambda d: (d["fields"]["hand"][0].__setitem__(3, d["fields"]["hand"][0][3] + 1),
                d["fields"]["hand_n"].__setitem__(0, d["fields"]["hand_n"][0] + 1)), "conservation broken for"),
    (lambda d: d.__setitem__("hands", [[], []]), "hands.*disagrees"),
    (lambda d: d["env"].__setitem__("agent_selection", "player_7"), "agent_selection"),
    (lambda d: d["env"].__setitem__("rewards", {"player_0": 0.0}), "rewards"),
    (lambda d: d["env"]["cumulative_rewards"].__setitem__("player_1", float("nan")), "cumulative_rewards"),
    (lambda d: d["env"].__setitem__("kind", "vector"), "env.kind"),
    (lambda d: d["env"].__setitem__("episode", -3), "episode"),
])
def test_malformed_versioned_states_are_refused(mutate, match):
    env = _playing("classic", steps=6)
    d = json.loads(json.dumps(env.state_dict()))
    mutate(d)
    _refused(env, d, match)


def test_vector_row_refusals_leave_every_game_as_it_was():
    vec = UnoVectorEnv("classic", num_envs=3, seed=0, num_threads=1)
    vec.reset()
    before = [vec.state_dict(g) for g in range(3)]
    masks = vec.masks.copy()
    bad = copy.deepcopy(before[1])
    bad["fields"]["wd_player"] = 10**7
    for d in (bad, {"dealer": 9}, {"direction": 0}):
        with pytest.raises(ValueError):
            vec.load_state_dict(1, d)
    with pytest.raises(ValueError, match="game index"):
        vec.load_state_dict(3, before[0])
    assert [vec.state_dict(g) for g in range(3)] == before
    np.testing.assert_array_equal(vec.masks, masks)
    vec.state_view.wd_player[2] = 10**4  # a hand edit of the row reaches the same check before any kernel
    with pytest.raises(ValueError, match="wd_player"):
        vec.refresh()


# ---------------------------------------------------------------------------------------------- mutation (hypothesis)
_INNER = "UNO_ENV_STATE_MUTATION_INNER"


@pytest.mark.skipif(os.environ.get(_INNER) != "1", reason="run by test_mutated_states_never_kill_the_process")
def test_mutated_states_are_refused_or_continue_safely():
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    pool = []
    for game, n, rules in [c for c in CONFIGS if c[1] <= 3][:9]:
        for steps in (0, 9, 31):
            env = _playing(game, n, rules, seed=steps, steps=steps)
            pool.append((game, n, rules, env.state_dict()))
    weird = st.one_of(st.integers(-3, 12), st.sampled_from([10**7, -10**7, 2**31, -2**31 - 1, 2**40, 127, 128]),
                      st.sampled_from([1.5, 2.0, True, False, None, "1", [], [1], {}]))

    @st.composite
    def mutated(draw):
        game, n, rules, base = draw(st.sampled_from(pool))
        d = copy.deepcopy(base)
        kind = draw(st.sampled_from(["scalar", "entry", "swap", "drop", "add", "view", "env"]))
        fields = d["fields"]
        if kind == "scalar":
            fields[draw(st.sampled_from([f.name for f in L.FIELDS if not f.shape]))] = draw(weird)
        elif kind == "entry":
            f = draw(st.sampled_from([f for f in L.FIELDS if f.shape]))
            idx = [draw(st.integers(0, s - 1)) for s in f.shape_for(n)]
            target = fields[f.name]
            for i in idx[:-1]:
                target = target[i]
            target[idx[-1]] = draw(weird)
        elif kind == "swap":  # one card or die moves between two places
            a, b = draw(st.sampled_from([("hand", "hand"), ("draw", "disc"), ("hand", "disc_count"),
                                         ("die_loc", "die_loc"), ("die_face", "die_face"), ("draw", "draw")]))
            la, lb = np.array(fields[a]).reshape(-1), np.array(fields[b]).reshape(-1)
            i, j = draw(st.integers(0, la.size - 1)), draw(st.integers(0, lb.size - 1))
            la[i], lb[j] = lb[j], la[i]
            fields[a] = la.reshape(np.array(fields[a]).shape).tolist()
            fields[b] = lb.reshape(np.array(fields[b]).shape).tolist()
        elif kind == "drop":
            where = draw(st.sampled_from(["top", "fields", "env"]))
            target = d if where == "top" else d[where]
            target.pop(draw(st.sampled_from(sorted(target))))
        elif kind == "add":
            d[draw(st.sampled_from(["fields", "env"]))][draw(st.text(max_size=5))] = draw(weird)
        elif kind == "view":
            d[draw(st.sampled_from(["current_seat", "direction", "dealer", "phase", "pending_draw", "hands"]))] = \
                draw(weird)
        else:
            d["env"][draw(st.sampled_from(sorted(d["env"])))] = draw(weird)
        if draw(st.booleans()):  # the same edit as a partial dict (no format): only the readable keys
            d = {k: v for k, v in d.items() if k in ("current_seat", "direction", "dealer", "phase", "pending_draw",
                                                     "hands", "wd_player", "drawn")}
        return game, n, rules, d

    @settings(max_examples=int(os.environ.get("UNO_ENV_MUTATIONS", "300")), deadline=None, derandomize=True,
              database=None, suppress_health_check=list(HealthCheck))
    @given(mutated(), st.integers(0, 2**32 - 1))
    def check(case, seed):
        game, n, rules, d = case
        env = make(game, n, rules)
        env.reset(seed=seed)
        before = env.state_dict()
        try:
            env.load_state_dict(d)
        except (ValueError, TypeError):
            assert env.state_dict() == before
            return
        rng = np.random.default_rng(seed)
        for _ in range(60):
            assert env.game.check_invariants(env.game_state.row) == ""
            if not env.agents:
                break
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            assert legal.size, "an accepted state must offer the seat to act a legal action"
            env.step(int(rng.choice(legal)))

    check()


def test_mutated_states_never_kill_the_process():
    """The hypothesis mutation test, run in a child process: a segmentation fault there fails this test instead of
    ending the test run."""
    env = dict(os.environ, **{_INNER: "1"})
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:xdist", __file__,
         "-k", "test_mutated_states_are_refused_or_continue_safely"],
        env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "1 passed" in proc.stdout
