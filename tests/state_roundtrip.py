"""Shared by the state_dict round-trip tests and the soak: game/option sets and a twin-run comparison.

A *twin run* plays one random game twice with the same seed and the same actions: the reference env is never
interrupted; the other is replaced, at chosen steps, by a fresh env loaded from its own ``state_dict()`` sent
through JSON.  After every step both must show the same observations (every seat), masks, agent_selection,
rewards, cumulative rewards, flags and infos, and the same ``state_dict``.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

import uno_env

# (game, num_players, rules): together they reach every phase of every game (the tests assert it)
CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    ("classic", 2, {}),
    ("classic", 3, {"stacking": "any", "seven_zero": True, "jump_in": True}),
    ("classic", 4, {"draw_until_playable": True, "first_wild": "choose_colour", "episode": "match",
                    "target_score": 60, "reward": "points"}),
    ("classic", 2, {"force_play": True, "stacking": "same", "uno_call": "auto", "wd4_legality": "any_playable"}),
    ("classic", 5, {"seven_zero": True, "voluntary_draw": False, "uno_catch_probability": 0.5}),
    ("classic", 2, {"preset": "rlcard"}),
    ("classic", 3, {"preset": "official", "stacking": "any"}),
    ("classic", 2, {"max_turns": 40}),
    ("pocket", 2, {}),
    ("pocket", 3, {"extra_wild": True, "jump_in": True, "stacking": "any", "seven_zero": True}),
    ("pocket", 4, {"episode": "match", "target_score": 40}),
    ("dice", 2, {}),
    ("dice", 3, {"dice_wd4_bluff": True}),
    ("dice", 4, {"episode": "match", "target_score": 80}),
]


def make(game: str, n: int, rules: dict[str, Any], illegal: str = "raise"):
    rules = dict(rules)
    preset = rules.pop("preset", None)
    rc = uno_env.RuleConfig.make(game, preset, num_players=n, **rules)
    return uno_env.raw_env(game, rules=rc, illegal_action=illegal)


def through_json(d: dict) -> dict:
    return json.loads(json.dumps(d))


def restored(env, d: dict):
    """A fresh environment of the same game, loaded from ``d`` (never reset)."""
    twin = uno_env.raw_env(env.game.name, rules=env.rules, illegal_action=env.illegal_action)
    twin.load_state_dict(d)
    return twin


def view(env) -> tuple:
    """Everything a user of the AEC env sees now."""
    obs = {a: env.observe(a) for a in env.possible_agents}
    return (
        env.agent_selection, list(env.agents),
        {a: (o["observation"].tobytes(), o["action_mask"].tobytes()) for a, o in obs.items()},
        dict(env.rewards), env.cumulative_rewards, dict(env.terminations), dict(env.truncations),
        json.dumps(env.infos, sort_keys=True),
    )


def twin_run(game: str, n: int, rules: dict[str, Any], seed: int, restore_p: float, phases: set | None = None,
             episodes: int = 1, max_steps: int = 100_000, fresh_p: float = 0.1) -> tuple[int, int, int]:
    """Play ``episodes`` episodes of random legal play twice (see the module doc); restore with probability
    ``restore_p`` before each step, into a fresh env with probability ``fresh_p``, else into a used one.
    Returns (steps, restores, differences); records the phases visited."""
    ref = make(game, n, rules)
    ref.reset(seed=seed)
    env = restored(ref, through_json(ref.state_dict()))
    spare = make(game, n, rules)  # a used env (another game's history) is loaded as often as a fresh one
    spare.reset(seed=seed + 1)
    pick = np.random.default_rng(seed ^ 0xA5A5)
    steps = restores = 1
    diffs = 0
    for episode in range(episodes):
        if episode:
            ref.reset()
            env.reset()
        while steps < max_steps:
            if phases is not None and ref.agents:
                phases.add(ref.game_state.phase_name)
            if pick.random() < restore_p:
                d = through_json(env.state_dict())
                if pick.random() < fresh_p:
                    env = restored(env, d)
                else:
                    spare.load_state_dict(d)
                    env, spare = spare, env
                restores += 1
            if view(env) != view(ref) or env.state_dict() != ref.state_dict():
                diffs += 1
                break
            if not ref.agents:
                break
            agent = ref.agent_selection
            if ref.terminations[agent] or ref.truncations[agent]:
                action = None
            else:
                legal = np.flatnonzero(ref.observe(agent)["action_mask"])
                action = int(pick.choice(legal))
            ref.step(action)
            env.step(action)
            steps += 1
        if diffs:
            break
    return steps, restores, diffs


def soak_run(game: str, n: int, rules: dict[str, Any], seed: int, steps: int, restore_p: float = 0.6,
             json_p: float = 0.2, phases: set | None = None) -> tuple[int, int, int]:
    """The soak's twin run, lighter per step: random episodes, one after another, for ``steps`` steps; before a
    step, with probability ``restore_p``, the interrupted env's ``state_dict`` (through JSON with probability
    ``json_p``) must equal the reference's and is loaded into the other of two envs, which continues.  After every
    step the acting seat, its observation and mask, the rewards and the flags must agree.
    Returns (steps, restores, differences)."""
    ref = make(game, n, rules)
    ref.reset(seed=seed)
    env, spare = make(game, n, rules), make(game, n, rules)
    env.load_state_dict(ref.state_dict())
    spare.reset(seed=seed + 1)
    pick = np.random.default_rng(seed ^ 0x5A5A)
    restores = diffs = 0
    for _ in range(steps):
        if not ref.agents:
            ref.reset()
            env.reset()
        if pick.random() < restore_p:
            d = env.state_dict()
            if d != ref.state_dict():
                diffs += 1
                break
            spare.load_state_dict(through_json(d) if pick.random() < json_p else d)
            env, spare = spare, env
            restores += 1
        agent = ref.agent_selection
        if phases is not None:
            phases.add(ref.game_state.phase_name)
        if ref.terminations[agent] or ref.truncations[agent]:
            action = None
        else:
            mask = ref.observe(agent)["action_mask"]
            legal = np.flatnonzero(mask)
            action = int(legal[int(pick.random() * legal.size)])
        ref.step(action)
        env.step(action)
        a, b = ref.agent_selection, env.agent_selection
        if a != b or ref.rewards != env.rewards or ref.cumulative_rewards != env.cumulative_rewards \
                or ref.terminations != env.terminations or ref.truncations != env.truncations \
                or ref.agents != env.agents:
            diffs += 1
            break
        if ref.agents:
            o1, o2 = ref.observe(a), env.observe(b)
            if not (np.array_equal(o1["observation"], o2["observation"])
                    and np.array_equal(o1["action_mask"], o2["action_mask"])):
                diffs += 1
                break
    return steps, restores, diffs
