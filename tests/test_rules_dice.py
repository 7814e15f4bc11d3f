"""UNO Dice: set-up, reroll/draw turns, commands, Wild Draw Four legality and bluffs, scoring, and the rolls'
statistics."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

import uno_env
from uno_env.core.cards import COL_SYMBOL
from uno_env.core.layout import StateView

from conftest import E, act, aid, dice_scenario, die_plays, legal, make_env, obs_block, sd, sizes

DS = dice_scenario


def _dice_of(env, seat):
    return [i for i, d in enumerate(sd(env)["dice"]) if d["location"] == seat]


def _matching(env, seat):
    """Kinds in ``seat``'s hand that match the centre die (number, colour or command; wilds always)."""
    g = env.unwrapped.game
    s = sd(env)
    top = g.kinds.index(s["top"])
    colour = ("red", "yellow", "green", "blue").index(s["current_colour"])
    out = set()
    for name in s["hands"][seat]:
        k = g.kinds.index(name)
        c, sym = g.spec[k, 0], g.spec[k, 1]
        if c == 4 or c == colour or sym == g.spec[top, 1]:
            out.add(name)
    if out - {"wild draw four"}:  # Wild Draw Four only when no other die matches (no bluff by default)
        out.discard("wild draw four")
    return out


# ---------------------------------------------------------------------------------------------- set-up
@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_five_dice_each_and_centre_number(n):
    for seed in range(5):
        env = make_env("dice", num_players=n, seed=seed)
        s = sd(env)
        assert sizes(env) == [5] * n
        assert len(s["bag"]) == 24 - 5 * n - 1
        locs = Counter(str(d["location"]) for d in s["dice"])
        assert locs["centre"] == 1 and locs["bag"] == 24 - 5 * n - 1
        g = env.unwrapped.game
        assert g.spec[g.kinds.index(s["top"]), COL_SYMBOL] < 10  # a number
        assert s["current_seat"] == 0 and s["phase"] == "turn"


def test_centre_die_rolled_past_command_and_wild_faces():
    # every die of the default set has its number faces at positions 0-3 and a command/wild face at 4 and 5
    g = make_env("dice").unwrapped.game
    assert all(g.spec[g.dice[d, f], COL_SYMBOL] < 10 for d in range(24) for f in range(4))
    assert all(g.spec[g.dice[d, f], COL_SYMBOL] >= 10 for d in range(24) for f in (4, 5))
    env = make_env("dice", seed=None)
    counts = Counter()
    n = 2000
    for seed in range(n):
        env.reset(seed=seed)
        s = sd(env)
        counts[s["dice"][s["centre_die"]]["face"]] += 1
    assert set(counts) <= {0, 1, 2, 3}  # never a command or wild face
    sigma = math.sqrt(n * 0.25 * 0.75)
    for f in range(4):  # each number face equally likely (re-rolled, not re-mapped)
        assert abs(counts[f] - n / 4) < 5 * sigma, counts


# ---------------------------------------------------------------------------------------------- a turn
def test_mask_play_matching_or_reroll():
    env = DS(hands=[["red 1", "blue 3", "green 2", "wild", "yellow 6"], ["blue 1"] * 1 + ["green 5"]],
             centre="red 3")
    assert legal(env) == {"play red 1", "play blue 3", "play wild", "reroll"}  # no draw before a reroll


def test_play_die_moves_it_to_centre_and_old_centre_to_bag():
    env = DS(hands=[["red 1", "green 2"], ["blue 1", "green 5"]], centre="red 3")
    s0 = sd(env)
    old_centre = s0["centre_die"]
    die = [i for i in _dice_of(env, 0) if s0["dice"][i]["shows"] == "red 1"][0]
    act(env, "play red 1 + UNO")
    s = sd(env)
    assert s["centre_die"] == die and s["top"] == "red 1" and old_centre in s["bag"]
    assert s["dice"][old_centre]["location"] == "bag" and s["current_seat"] == 1
    assert len(s["bag"]) == len(s0["bag"]) + 1


# the Dice sheet: "puolestaan pelaaja valitsee kuolee hänen ”käsi”" (in turn the player chooses a die from the hand)
@pytest.mark.parametrize("pick", [0, 1])
def test_player_chooses_which_of_two_same_face_dice(pick):
    env = DS(hands=[["red 1", "red 1", "green 2"], ["blue 1", "green 5"]], centre="red 3")
    g = env.unwrapped.game
    ids = sorted(i for i in _dice_of(env, 0) if sd(env)["dice"][i]["shows"] == "red 1")
    assert not (g.dice[ids[0]] == g.dice[ids[1]]).all()  # the same face, yet different dice
    assert {f"play die {i}" for i in ids} <= {env.unwrapped.action_names[a]
                                              for a in np.flatnonzero(env.unwrapped.observe("player_0")["action_mask"])}
    assert not any(n.startswith("play red") for n in env.unwrapped.action_names[:2 * g.num_kinds]
                   if env.unwrapped.observe("player_0")["action_mask"][aid(env, n)])  # dice are played by die
    act(env, f"play die {ids[pick]}")
    s = sd(env)
    assert s["centre_die"] == ids[pick] and s["dice"][ids[1 - pick]]["location"] == 0


def test_chosen_die_changes_the_bag():
    """The die not chosen stays in the hand; the one chosen later returns to the bag (the Dice sheet: the centre die
    "sijoitetaan takaisin pussiin", is put back into the bag), so the choice decides which faces the bag holds."""
    bags = []
    for pick in (0, 1):
        env = DS(hands=[["red 1", "red 1", "green 2"], ["red 4", "green 5"]], centre="red 3")
        ids = sorted(i for i in _dice_of(env, 0) if sd(env)["dice"][i]["shows"] == "red 1")
        act(env, f"play die {ids[pick]}", "play red 4")
        bags.append(set(sd(env)["bag"]))
        assert ids[pick] in bags[-1] and ids[1 - pick] not in bags[-1]
    assert bags[0] != bags[1]


def test_die_actions_out_of_turn_or_not_held_are_illegal():
    env = DS(hands=[["red 1", "green 2"], ["blue 1", "green 5"]], centre="red 3")
    g = env.unwrapped.game
    mask = env.unwrapped.observe("player_0")["action_mask"]
    start = g.offsets["play_die"]
    held = {i for i, d in enumerate(sd(env)["dice"]) if d["location"] == 0 and d["shows"] == "red 1"}
    assert set(np.flatnonzero(mask[start:start + g.num_dice])) == held  # green 2 does not match; others not held
    assert not mask[: 2 * g.num_kinds].any()
    assert env.unwrapped.observe("player_1")["action_mask"].sum() == 0


def test_reroll_then_play_or_draw():
    """Reroll keeps the dice in hand with fresh faces; then the mask is the matching dice plus draw."""
    seen = Counter()
    for seed in range(400):
        if min(seen["play"], seen["drawn played"], seen["drawn kept"], seen["draw"] - seen["drawn playable"]) >= 2:
            break
        env = DS(hands=[["yellow 1", "green 2", "blue 4", "yellow 5", "green 6"], ["blue 1", "green 5"]],
                 centre="red 3", seed=seed)
        mine = _dice_of(env, 0)
        act(env, "reroll")
        s = sd(env)
        assert s["phase"] == "rerolled" and s["current_seat"] == 0 and _dice_of(env, 0) == mine
        match = _matching(env, 0)
        assert legal(env) == {f"play {k}" for k in match} | {"draw"}
        if match:
            seen["play"] += 1
            k = sorted(match)[0]
            env.step(die_plays(env)[f"play {k}"][0])  # rerolled faces may repeat: any die showing k
            assert sd(env)["top"] == k and sizes(env)[0] == 4
            if sd(env)["phase"] == "choose colour":
                act(env, "choose colour blue")
            assert sd(env)["current_seat"] in (0, 1)
        else:
            seen["draw"] += 1
            bag = len(s["bag"])
            act(env, "draw")
            assert sizes(env)[0] == 6 and len(sd(env)["bag"]) == bag - 1
            drawn = sd(env)["dice"]
            new = [i for i in _dice_of(env, 0) if i not in mine]
            assert len(new) == 1
            if sd(env)["phase"] == "drawn":
                seen["drawn playable"] += 1
                shown = drawn[new[0]]["shows"]
                assert legal(env) == {f"play {shown}", "keep drawn card"}
                if seen["drawn playable"] % 2:
                    act(env, f"play {shown}")
                    assert sd(env)["centre_die"] == new[0] and sizes(env)[0] == 5  # the drawn die itself
                    seen["drawn played"] += 1
                else:
                    act(env, "keep drawn card")
                    assert sd(env)["current_seat"] == 1 and sizes(env)[0] == 6
                    seen["drawn kept"] += 1
            else:
                assert sd(env)["current_seat"] == 1
    assert seen["play"] and seen["draw"] and seen["drawn played"] and seen["drawn kept"], seen


def test_drawn_die_played_even_with_same_face_in_hand():
    # after a reroll with nothing matching and a draw that matches, "play X" plays the drawn die
    for seed in range(200):
        env = DS(hands=[["yellow 1", "green 2", "blue 4", "yellow 5", "green 6"], ["blue 1", "green 5"]],
                 centre="red 3", seed=seed)
        mine = _dice_of(env, 0)
        act(env, "reroll")
        if _matching(env, 0):
            continue
        act(env, "draw")
        if sd(env)["phase"] != "drawn":
            continue
        new = [i for i in _dice_of(env, 0) if i not in mine][0]
        act(env, f"play {sd(env)['dice'][new]['shows']}")
        assert sd(env)["centre_die"] == new
        return
    pytest.fail("no seed gave a playable drawn die")


# ---------------------------------------------------------------------------------------------- commands
def test_skip_reverse_two_players():
    env = DS(hands=[["red skip", "green 2"], ["blue 1", "green 5"]], centre="red 3")
    act(env, "play red skip + UNO")
    assert sd(env)["current_seat"] == 0
    env = DS(hands=[["red reverse", "green 2"], ["blue 1", "green 5"]], centre="red 3")
    act(env, "play red reverse + UNO")
    assert sd(env)["current_seat"] == 0


def test_reverse_three_players():
    env = DS(hands=[["red reverse", "green 2", "green 3"], ["blue 1", "green 5"], ["blue 2"]], centre="red 3")
    act(env, "play red reverse")
    assert sd(env)["current_seat"] == 2 and sd(env)["direction"] == -1


def test_draw_two_dice():
    env = DS(hands=[["red draw two", "green 2", "green 3"], ["blue 1", "green 5"], ["blue 2"]], centre="red 3")
    bag = len(sd(env)["bag"])
    act(env, "play red draw two")
    assert sizes(env) == [2, 4, 1] and sd(env)["current_seat"] == 2
    assert len(sd(env)["bag"]) == bag + 1 - 2  # the old centre went back, two dice were drawn


def test_draw_two_with_empty_bag_takes_the_old_centre():
    # the bag is empty before the play; the old centre die returns to it, so the victim takes that one die
    env = DS(hands=[["red draw two", "green 2", "green 3"], ["blue 1"]], centre="red 3", extra_to=1)
    assert sd(env)["bag"] == []
    old = sd(env)["centre_die"]
    n1 = sizes(env)[1]
    act(env, "play red draw two")
    assert sizes(env)[1] == n1 + 1 and sd(env)["dice"][old]["location"] == 1 and sd(env)["bag"] == []
    assert sd(env)["current_seat"] == 0


def test_draw_two_with_one_die_in_bag_takes_two():
    env = DS(hands=[["red draw two", "green 2", "green 3"], ["blue 1"]], centre="red 3", extra_to=1)
    # move one die of seat 1 back to the bag
    d = sd(env)
    spare = [i for i, x in enumerate(d["dice"]) if x["location"] == 1][-1]
    dice = [{"location": x["location"], "face": x["face"]} for x in d["dice"]]
    dice[spare]["location"] = "bag"
    env.unwrapped.load_state_dict({"dice": dice})
    assert sd(env)["bag"] == [spare]
    n1 = sizes(env)[1]
    act(env, "play red draw two")
    assert sizes(env)[1] == n1 + 2 and sd(env)["bag"] == []


def test_accept_with_empty_bag_draws_nothing():
    # a hand-set pending draw aimed at seat 1 with nothing in the bag: accepting draws nothing, no error
    env = DS({"dice_wd4_bluff": True}, hands=[["green 2", "green 3"], ["blue 1"]], centre="red 3", extra_to=1,
             current_seat=1, phase="pending draw", pending_draw=4, pending_symbol=15, wd_player=0, wd_guilty=0)
    assert sd(env)["bag"] == [] and legal(env) == {"accept", "challenge"}
    n1 = sizes(env)[1]
    act(env, "challenge")  # innocent: the challenger would draw 6; the bag is empty
    assert sizes(env)[1] == n1 and sd(env)["current_seat"] == 0


def test_wild_any_time_names_colour():
    env = DS(hands=[["wild", "red 1", "green 3"], ["blue 1", "green 5"]], centre="red 3")
    assert {"play wild", "play red 1", "play green 3"} <= legal(env)
    act(env, "play wild", "choose colour green")
    assert sd(env)["current_colour"] == "green" and sd(env)["top"] == "wild" and sd(env)["current_seat"] == 1
    assert "play green 5" in legal(env) and "play blue 1" not in legal(env)


# ---------------------------------------------------------------------------------------------- Wild Draw Four
def test_wd4_offered_only_when_legal():
    env = DS(hands=[["wild draw four", "red 1", "blue 2"], ["blue 1", "green 5"]], centre="red 3")
    assert "play wild draw four" not in legal(env)
    env = DS(hands=[["wild draw four", "wild", "blue 2"], ["blue 1", "green 5"]], centre="red 3")
    assert "play wild draw four" not in legal(env)  # a Wild die matches the centre too
    env = DS(hands=[["wild draw four", "blue 2", "green 4"], ["blue 1", "green 5"]], centre="red 3")
    assert legal(env) == {"play wild draw four", "reroll"}
    bag = len(sd(env)["bag"])
    act(env, "play wild draw four", "choose colour blue")
    s = sd(env)
    assert sizes(env) == [2, 6] and s["current_seat"] == 0 and s["current_colour"] == "blue"  # no challenge step
    assert len(s["bag"]) == bag + 1 - 4


# the Dice sheet: "Jos pyydetty tämän kuolee laittomasti, Rule Breaker on otettava takaisin kuolee piirtää ja rulla
# neljä noppaa lisätään hänen nykyinen ”käsi”" (challenged when played illegally, the rule breaker must take the
# die back, and draw and roll four dice into the hand)
def test_wd4_bluff_challenged_guilty_takes_the_die_back():
    env = DS({"dice_wd4_bluff": True}, hands=[["wild draw four", "red 1", "blue 2"], ["blue 1", "green 5"],
                                              ["yellow 2"]], centre="red 3")
    s0 = sd(env)
    centre, bag0 = s0["centre_die"], len(s0["bag"])
    wd4 = [i for i in _dice_of(env, 0) if s0["dice"][i]["shows"] == "wild draw four"][0]
    assert "play wild draw four" in legal(env)
    act(env, "play wild draw four", "choose colour blue")
    assert sd(env)["phase"] == "pending draw" and legal(env) == {"accept", "challenge"}
    assert sd(env)["dice"][centre]["location"] == "bag"
    act(env, "challenge")
    s = sd(env)
    assert sizes(env) == [7, 2, 1] and s["current_seat"] == 1 and s["phase"] == "turn"
    assert s["dice"][wd4]["location"] == 0 and s["dice"][wd4]["shows"] == "wild draw four"  # taken back
    assert s["centre_die"] == centre and s["top"] == "red 3" and s["current_colour"] == "red"  # centre restored
    assert s["dice"][centre]["face"] == s0["dice"][centre]["face"]
    assert len(s["bag"]) == bag0 - 4  # the four dice drawn and rolled
    assert env.unwrapped.game.check_invariants(env.unwrapped.game_state.row) == ""
    assert legal(env) == {"reroll"}  # the challenger's normal turn, on red 3 again (blue would have matched)


def test_wd4_take_back_restores_a_wild_centre_and_its_named_colour():
    env = DS({"dice_wd4_bluff": True}, hands=[["wild", "wild draw four", "green 2", "blue 2"],
                                              ["wild", "blue 1", "green 5"]], centre="red 3")
    act(env, "play wild", "choose colour green", "play wild", "choose colour blue")
    act(env, "play wild draw four", "choose colour yellow")  # a bluff: blue 2 matches the named blue
    assert sd(env)["top"] == "wild draw four" and sd(env)["current_colour"] == "yellow"
    act(env, "challenge")
    s = sd(env)
    assert s["top"] == "wild" and s["current_colour"] == "blue" and "wild draw four" in s["hands"][0]
    assert sizes(env) == [2 + 1 + 4, 2]


def test_wd4_take_back_when_the_old_centre_was_drawn_by_the_uno_penalty():
    """Caught without calling UNO after the bluff, the rule breaker may draw the old centre die from the bag; the
    take-back still restores it to the centre (out of that hand), so every die stays in exactly one place."""
    for seed in range(300):
        env = DS({"dice_wd4_bluff": True, "uno_catch_probability": 1.0},
                 hands=[["wild draw four", "red 1"], ["blue 1", "green 5"]], centre="red 3", seed=seed)
        centre = sd(env)["centre_die"]
        act(env, "play wild draw four", "choose colour blue")
        if sd(env)["dice"][centre]["location"] != 0:
            continue
        assert sizes(env)[0] == 3
        act(env, "challenge")
        s = sd(env)
        assert s["centre_die"] == centre and s["top"] == "red 3" and sizes(env)[0] == 3 + 1 - 1 + 4
        assert env.unwrapped.game.check_invariants(env.unwrapped.game_state.row) == ""
        return
    pytest.fail("no seed drew the old centre die in the UNO penalty")


def test_wd4_bluff_challenged_innocent():
    env = DS({"dice_wd4_bluff": True}, hands=[["wild draw four", "green 4", "blue 2"], ["blue 1", "green 5"],
                                              ["yellow 2"]], centre="red 3")
    act(env, "play wild draw four", "choose colour blue", "challenge")
    assert sizes(env) == [2, 8, 1] and sd(env)["current_seat"] == 2


def test_wd4_bluff_accepted():
    env = DS({"dice_wd4_bluff": True}, hands=[["wild draw four", "red 1", "blue 2"], ["blue 1", "green 5"],
                                              ["yellow 2"]], centre="red 3")
    act(env, "play wild draw four", "choose colour blue", "accept")
    assert sizes(env) == [2, 6, 1] and sd(env)["current_seat"] == 2


# ---------------------------------------------------------------------------------------------- UNO, scoring
def test_uno_with_dice():
    env = DS(hands=[["red 1", "green 2"], ["blue 1", "green 5"]], centre="red 3")
    act(env, "play red 1 + UNO")
    assert sizes(env) == [1, 2] and sd(env)["called_uno"] == [True, False]
    env = DS(hands=[["red 1", "green 2"], ["blue 1", "green 5"]], centre="red 3")
    act(env, "play red 1")
    assert sizes(env) == [3, 2]


def test_hands_are_public():
    env = DS(hands=[["red 1", "green 2"], ["blue 1", "green 5", "wild"]], centre="red 3")
    g = env.unwrapped.game
    other = obs_block(env, "player_0", "other_hands")
    assert {g.kinds.names[k]: int(c) for k, c in enumerate(other) if c} == {"blue 1": 1, "green 5": 1, "wild": 1}
    bag = obs_block(env, "player_1", "bag")
    assert sorted(np.flatnonzero(bag).tolist()) == sd(env)["bag"]


def test_scoring_finished_round():
    env = DS(hands=[["red 1"], ["red 3", "blue skip", "wild", "wild draw four", "green 6"]], centre="red 4")
    act(env, "play red 1")
    s = sd(env)
    assert s["done"] == "terminated" and s["scores"] == [3 + 20 + 50 + 50 + 6, 0]
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_final_draw_two_scored():
    env = DS(hands=[["red draw two"], ["green 5"]], centre="red 4", seed=3)
    act(env, "play red draw two")
    s = sd(env)
    assert sizes(env)[1] == 3 and s["done"] == "terminated"
    g = env.unwrapped.game
    assert s["scores"][0] == sum(int(g.spec[g.kinds.index(k), 2]) for k in s["hands"][1])


def test_match_winner_starts_next_round():
    env = DS({"episode": "match"}, hands=[["green 1", "blue 1"], ["red 1"], ["yellow 2", "green 6"]],
             centre="red 4", current_seat=1)
    act(env, "play red 1")
    s = sd(env)
    assert s["scores"] == [0, 1 + 1 + 2 + 6, 0] and s["round"] == 1 and not any(env.terminations.values())
    assert sizes(env) == [5, 5, 5] and s["current_seat"] == 1 and s["phase"] == "turn"
    g = env.unwrapped.game
    assert g.spec[g.kinds.index(s["top"]), COL_SYMBOL] < 10
    assert len(s["bag"]) == 24 - 15 - 1


def test_match_ends_at_500():
    env = DS({"episode": "match"}, hands=[["red 1"], ["wild", "green 6"]], centre="red 4", scores=[444, 0])
    act(env, "play red 1")
    assert sd(env)["scores"] == [500, 0] and all(env.terminations.values())


def test_five_players_rejected():
    with pytest.raises(ValueError, match="num_players"):
        uno_env.raw_env("dice", num_players=5)


# ---------------------------------------------------------------------------------------------- roll statistics
def test_reroll_faces_uniform():
    """Each face of a rerolled die comes up 1/6 of the time: a 5-sigma bound per (die, face) and a chi-square
    test (5 degrees of freedom, threshold 35.9 = p 1e-6) over all faces, on 20,000 rerolls of a 5-die hand."""
    env = DS(hands=[["yellow 1", "green 2", "blue 4", "yellow 5", "green 6"], ["blue 1", "green 5"]],
             centre="red 3", seed=7)
    u = env.unwrapped
    g = u.game
    st, rng = u.game_state.row.copy(), u.prng_state.copy()
    view = StateView(st)
    scratch = np.zeros(g.num_actions, np.int8)
    rew = np.zeros(E.MAX_PLAYERS, np.float32)
    reroll = aid(env, "reroll")
    mine = _dice_of(env, 0)
    n = 20000
    counts = np.zeros((len(mine), 6), np.int64)
    for _ in range(n):
        view.phase = E.PH_TURN
        view.turns = 0
        assert E.step_one(st, rng, g.cfg, g.spec, g.dice, reroll, scratch, rew) == E.OK
        faces = view.die_face[np.array(mine)]
        counts[np.arange(len(mine)), faces] += 1
    assert g.check_invariants(st) == ""
    p = 1 / 6
    sigma = math.sqrt(n * p * (1 - p))
    assert np.abs(counts - n * p).max() < 5 * sigma, counts
    total = counts.sum(axis=0)
    expected = total.sum() / 6
    chi2 = float(((total - expected) ** 2 / expected).sum())
    assert chi2 < 35.9, (chi2, total)
    # the dice are rolled independently: pairs of faces of two dice are uniform over 36 outcomes
    st2, rng2 = u.game_state.row.copy(), u.prng_state.copy()
    view2 = StateView(st2)
    pairs = np.zeros((6, 6), np.int64)
    for _ in range(7200):
        view2.phase = E.PH_TURN
        view2.turns = 0
        E.step_one(st2, rng2, g.cfg, g.spec, g.dice, reroll, scratch, rew)
        pairs[view2.die_face[mine[0]], view2.die_face[mine[1]]] += 1
    chi2 = float(((pairs - 200) ** 2 / 200).sum())
    assert chi2 < 35 + 5 * math.sqrt(70), chi2  # 35 dof: mean 35, sd sqrt(70)


def test_custom_dice_set(tmp_path):
    p = tmp_path / "reds.yaml"
    p.write_text("name: reds\ndice:\n" + "".join("  - [R1, R2, R3, R4, R5, R6]\n" for _ in range(11)),
                 encoding="utf-8")
    env = make_env("dice", {"dice_set": str(p)}, seed=0)
    s = sd(env)
    assert len(s["dice"]) == 11 and s["bag"] == [] and sizes(env) == [5, 5]
    assert all(k.startswith("red ") for h in s["hands"] for k in h) and s["top"].startswith("red ")
    assert legal(env) == {f"play {k}" for k in s["hands"][0]} | {"reroll"}
    with pytest.raises(ValueError, match="num_players"):
        make_env("dice", {"dice_set": str(p), "num_players": 3})
