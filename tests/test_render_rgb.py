"""render_mode="rgb_array": a picture of the table for every game, usable by Gymnasium's RecordVideo."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import uno_env
from uno_env.render_image import HEIGHT, WIDTH

from conftest import random_play


@pytest.mark.parametrize("game", ["classic", "pocket", "dice"])
def test_aec_rgb_array_frames_change_as_the_game_moves(game, rng):
    env = uno_env.env(game, num_players=3, render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=0)
    first = env.render()
    assert first.shape == (HEIGHT, WIDTH, 3) and first.dtype == np.uint8
    assert np.array_equal(first, env.render())  # same state, same picture
    for _ in random_play(env, rng, 3):
        pass
    assert not np.array_equal(first, env.render())
    assert env.render_mode == "rgb_array" and isinstance(env.render(), np.ndarray)


def test_ansi_and_human_still_work(capsys):
    env = uno_env.env("classic", render_mode="ansi")
    env.reset(seed=0)
    assert "top:" in env.render()
    env = uno_env.env("classic", render_mode="human")
    env.reset(seed=0)
    env.render()
    assert "top:" in capsys.readouterr().out


def test_gym_rgb_array_shows_the_learners_hand_only():
    env = gymnasium.make("uno_env/Classic-v0", render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (HEIGHT, WIDTH, 3)
    # with the same public table, a different hand for the learner draws differently; the opponent's does not
    base = env.unwrapped
    d = base.aec.state_dict()
    hands = d["hands"]
    swapped = dict(d, hands=[hands[0], list(reversed(hands[1]))])
    from uno_env.render_image import render_rgb
    assert np.array_equal(render_rgb(base.game, d, show_seat=0), render_rgb(base.game, swapped, show_seat=0))
    other = dict(d, hands=[hands[1][:len(hands[0])], hands[0][:len(hands[1])]])
    assert not np.array_equal(render_rgb(base.game, d, show_seat=0), render_rgb(base.game, other, show_seat=0))
    # hidden hands are not drawn: swapping seat 1's cards for others of the same count changes nothing
    alt = dict(d, hands=[hands[0], ["blue 0"] * len(hands[1])])
    assert np.array_equal(render_rgb(base.game, d, show_seat=0), render_rgb(base.game, alt, show_seat=0))


@pytest.mark.parametrize("flat", [False, True])
def test_gymnasium_check_env_with_rgb_array(flat):
    from gymnasium.utils.env_checker import check_env

    check_env(gymnasium.make("uno_env/Dice-v0", render_mode="rgb_array", flat_obs=flat).unwrapped)


def test_record_video_writes_a_file(tmp_path):
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(gymnasium.make("uno_env/Classic-v0", render_mode="rgb_array", opponents="heuristic"),
                      str(tmp_path / "videos"), episode_trigger=lambda i: True, disable_logger=True)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(20):
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_masks()))))
        if term or trunc:
            break
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
