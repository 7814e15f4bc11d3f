"""Behaviour pinned by digest: seeded games, batched games and agents' choices hash to fixed values.

The other tests check rules one situation at a time; these check that nothing a user can observe changes when
the code is reorganised.  Each case plays seeded games and feeds everything a user sees (every seat's
observation and mask, rewards, ends, infos, the seat to act, the agents' actions) into a sha256.  The digests
were written by running this file as a script (``python tests/test_golden.py``) on the code they pin; a change
in a digest means the environment now behaves differently, which a refactor must not do.  When a change of
behaviour is intended, say so in the commit and write the digests again with the script.
"""
from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

import numpy as np
import pytest

import uno_env
from uno_env.agents.registry import load_agent
from uno_env.vector import UnoSingleAgentVectorEnv, UnoVectorEnv

#: (name, game, players, rules): every game, small and large tables, the presets and each house rule.
AEC_CASES: list[tuple[str, str, int, Any]] = [
    ("classic-2", "classic", 2, None),
    ("classic-4", "classic", 4, None),
    ("classic-10", "classic", 10, None),
    ("classic-official-3", "classic", 3, "official"),
    ("classic-rlcard", "classic", 2, "rlcard"),
    ("classic-stack-any-4", "classic", 4, {"stacking": "any"}),
    ("classic-stack-same-3", "classic", 3, {"stacking": "same", "wd4_challenge": True}),
    ("classic-seven-zero-4", "classic", 4, {"seven_zero": True}),
    ("classic-jump-in-3", "classic", 3, {"jump_in": True}),
    ("classic-force-until-2", "classic", 2, {"force_play": True, "draw_until_playable": True}),
    ("classic-no-voluntary-2", "classic", 2, {"voluntary_draw": False, "uno_catch_probability": 0.5}),
    ("classic-auto-uno-match-3", "classic", 3,
     {"uno_call": "auto", "episode": "match", "reward": "points", "target_score": 120}),
    ("classic-reshuffle-2", "classic", 2, {"first_wild": "reshuffle", "first_draw_two": "play"}),
    ("classic-choose-colour-4", "classic", 4, {"first_wild": "choose_colour", "first_reverse": "dealer"}),
    ("classic-all-house-5", "classic", 5,
     {"stacking": "any", "seven_zero": True, "jump_in": True, "wd4_challenge": True, "wd4_legality": "colour"}),
    ("pocket-2", "pocket", 2, None),
    ("pocket-5", "pocket", 5, None),
    ("pocket-extra-wild-3", "pocket", 3, {"extra_wild": True, "stacking": "same"}),
    ("pocket-match-points-2", "pocket", 2, {"episode": "match", "reward": "points", "target_score": 60}),
    ("pocket-house-4", "pocket", 4, {"seven_zero": True, "jump_in": True, "force_play": True}),
    ("dice-2", "dice", 2, None),
    ("dice-4", "dice", 4, None),
    ("dice-bluff-3", "dice", 3, {"dice_wd4_bluff": True}),
    ("dice-match-2", "dice", 2, {"episode": "match", "reward": "points", "target_score": 150}),
]

#: (name, game, players, opponents) for the batched single-agent face, whose opponents play inside the kernel.
VECTOR_CASES: list[tuple[str, str, int, str]] = [
    ("classic-2-heuristic", "classic", 2, "heuristic"),
    ("classic-4-greedy", "classic", 4, "greedy"),
    ("classic-3-random", "classic", 3, "random"),
    ("pocket-3-heuristic", "pocket", 3, "heuristic"),
    ("dice-2-heuristic", "dice", 2, "heuristic"),
    ("dice-4-greedy", "dice", 4, "greedy"),
]

#: (name, game, players, agent specs by seat): every scripted player, the shipped policies and the search.
AGENT_CASES: list[tuple[str, str, int, tuple[str, ...]]] = [
    ("classic-2-heuristic-greedy", "classic", 2, ("heuristic", "greedy")),
    ("classic-4-mixed", "classic", 4, ("heuristic", "greedy", "random", "ppo")),
    ("classic-2-rlcard", "classic", 2, ("rlcard-rule", "heuristic")),
    ("classic-2-ppo-ismcts", "classic", 2, ("ppo", "ismcts:sims=40")),
    ("pocket-2-ppo-heuristic", "pocket", 2, ("ppo", "heuristic")),
    ("pocket-4-ppo", "pocket", 4, ("ppo", "greedy", "heuristic", "ppo")),
    ("pocket-2-ismcts", "pocket", 2, ("ismcts:sims=40", "greedy")),
    ("dice-2-heuristic-ppo", "dice", 2, ("heuristic", "ppo")),
    ("dice-4-mixed", "dice", 4, ("ppo", "heuristic", "greedy", "random")),
    ("dice-2-ismcts", "dice", 2, ("ismcts:sims=40", "heuristic")),
]


def _feed(h: Any, *parts: Any) -> None:
    for p in parts:
        if isinstance(p, np.ndarray):
            h.update(str(p.dtype).encode())
            h.update(np.ascontiguousarray(p).tobytes())
        else:
            h.update(json.dumps(p, sort_keys=True, default=str).encode())


def _aec_digest(game: str, n: int, rules: Any, seeds: range = range(3)) -> str:
    """Random legal play from a seeded generator; every seat's observation after every step."""
    h = hashlib.sha256()
    env = uno_env.env(game, num_players=n, rules=rules)
    for seed in seeds:
        rng = np.random.default_rng(1000 + seed)
        env.reset(seed=seed)
        for _ in range(3000):
            agent = env.agent_selection
            obs, reward, term, trunc, info = env.last()
            _feed(h, agent, float(reward), bool(term), bool(trunc), info)
            for seat in env.agents:
                o = env.observe(seat)
                _feed(h, o["observation"], o["action_mask"])
            if term or trunc:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            if not env.agents:
                break
        _feed(h, env.unwrapped.episode_info() if hasattr(env.unwrapped, "episode_info") else None)
    return h.hexdigest()


def _vector_digest(game: str, n: int, opponents: str, steps: int = 300) -> str:
    """A batch of 16 games against in-kernel opponents, the learner choosing from a seeded generator."""
    h = hashlib.sha256()
    venv = UnoSingleAgentVectorEnv(game, num_envs=16, num_players=n, opponents=opponents, seed=7)
    obs, masks = venv.reset()
    rng = np.random.default_rng(3)
    _feed(h, obs, masks)
    for _ in range(steps):
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks], dtype=np.int64)
        obs, masks, rewards, terminated, truncated, _infos = venv.step(actions)
        _feed(h, obs, masks, rewards, terminated, truncated)
    return h.hexdigest()


def _multi_vector_digest(game: str, n: int, steps: int = 300) -> str:
    h = hashlib.sha256()
    venv = UnoVectorEnv(game, num_envs=16, num_players=n, seed=5)
    obs, masks, seats = venv.reset()
    rng = np.random.default_rng(4)
    _feed(h, obs, masks, seats)
    for _ in range(steps):
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks], dtype=np.int64)
        obs, masks, seats, rewards, terminated, truncated, _infos = venv.step(actions)
        _feed(h, obs, masks, seats, rewards, terminated, truncated)
    return h.hexdigest()


def _agents_digest(game: str, n: int, specs: tuple[str, ...], games: int = 2) -> str:
    """Whole games between agents; every action, reward and end."""
    h = hashlib.sha256()
    env = uno_env.env(game, num_players=n)
    agents = [load_agent(spec, env.unwrapped.game, seed=11 + i) for i, spec in enumerate(specs)]
    for g in range(games):
        env.reset(seed=100 + g)
        for agent in agents:
            agent.reset(seed=50 + g) if hasattr(agent, "reset") else None
        for name in env.agent_iter(max_iter=5000):
            obs, reward, term, trunc, info = env.last()
            _feed(h, name, float(reward), bool(term), bool(trunc), info)
            if term or trunc:
                env.step(None)
                continue
            seat = int(name.split("_")[1])
            agent = agents[seat]
            if hasattr(agent, "act_from_state"):
                action = agent.act_from_state(env.unwrapped.game_view.row, seat)
            else:
                action = agent.act(obs["observation"], obs["action_mask"])
            _feed(h, int(action))
            env.step(int(action))
    return h.hexdigest()


def compute_all() -> dict[str, str]:
    out: dict[str, str] = {}
    for name, game, n, rules in AEC_CASES:
        out[f"aec/{name}"] = _aec_digest(game, n, rules)
    for name, game, n, opponents in VECTOR_CASES:
        out[f"vector/{name}"] = _vector_digest(game, n, opponents)
    for game, n in (("classic", 3), ("pocket", 2), ("dice", 4)):
        out[f"multi/{game}-{n}"] = _multi_vector_digest(game, n)
    for name, game, n, specs in AGENT_CASES:
        out[f"agents/{name}"] = _agents_digest(game, n, specs)
    return out


EXPECTED: dict[str, str] = {
    'aec/classic-2': '9b8f5350e24a47f39c35180f6a518c315b74672b92edc3b03a97cc5acf78626c',
    'aec/classic-4': 'b63b00aea3b3fb9636a0a62b1ec439cdeca0fdf113afa3ffa0f1357f3e8ec913',
    'aec/classic-10': 'f349c2d1a0c65c92687498196255e794bcc3be119eb1826df3dfa95da0d8e76e',
    'aec/classic-official-3': '0183fbff8cd9df3334b761caeb2fe7733b92602fce6670cc64ae0366688f4cee',
    'aec/classic-rlcard': '42a3665efbfed3abf9afa890166962e04eddb7120bf26f94ec42d72a72fee339',
    'aec/classic-stack-any-4': '9d5a3803d1de7f42dbe42be903a425061b6dae85511d68e60d384705a94c9102',
    'aec/classic-stack-same-3': '4b03ced1ce68c7ba89632a1d5147e17690f2bc3a649fd741856f7a0c51354308',
    'aec/classic-seven-zero-4': 'ad353002d4ca4b594202f80d66356b393e9865f5810128e0297414fca0a57797',
    'aec/classic-jump-in-3': '0545febdaf2ef17975b9e41ab45e4005874fab517c6afd97b79441b10c585552',
    'aec/classic-force-until-2': 'aaa76cce447d299c0568e9f43a210aa15946e272c432660cb7919774b30b9c0b',
    'aec/classic-no-voluntary-2': 'cd9a4d4560d1af54b55c1c8cdb0c45acd3045654bdcbb45f84d0086203f931b6',
    'aec/classic-auto-uno-match-3': '8e8b68b8024fdcfa5ae5dffa639ccd8a7646e6c699f540c65d3e38c001b6bcb5',
    'aec/classic-reshuffle-2': '9b8f5350e24a47f39c35180f6a518c315b74672b92edc3b03a97cc5acf78626c',
    'aec/classic-choose-colour-4': 'b63b00aea3b3fb9636a0a62b1ec439cdeca0fdf113afa3ffa0f1357f3e8ec913',
    'aec/classic-all-house-5': '8c2eb06a92058c01ae335dde017463dace48ce422a73691a96c0bda5bdf2c91d',
    'aec/pocket-2': 'fc8978ddbf824c7ad256f850f2860d40af094f1176b80cec17509baacc3219cd',
    'aec/pocket-5': 'ceaac16380c6a776b7c30431358a6227c82c911ac21858631464b99336967a9c',
    'aec/pocket-extra-wild-3': '48e35e650291e31af5f470e344b50d408ffd5df8d6c507c311ece1e62e9f5b7e',
    'aec/pocket-match-points-2': '348056a5e4cdd520c547fe34f35586c46a56bb8846ec67274ff655b8a8663a00',
    'aec/pocket-house-4': '7be75becd312388f63837e26b33eb035055c052e6b399886fd847c7445e3fa23',
    'aec/dice-2': '8b64804b8a42dc2889d33e25583c785922772acf3bb489410179d34d654e65d5',
    'aec/dice-4': '8dea260dd09c33dd63f684e04941cf77e3aa9959f9fa3d5bf9d31973b3f9f5ba',
    'aec/dice-bluff-3': 'cea6ed107052877a73dd809fb9bcfaeaec28549041ba87c8ce5f63dc66a6a6f1',
    'aec/dice-match-2': '96782e8040b961c0fd438625177d976793993deeb8ed7e6d5613c8eea2176b0e',
    'vector/classic-2-heuristic': 'ed70c71838f82b36eed3a995715387089456081417c59a1708a8ffc119a224b5',
    'vector/classic-4-greedy': 'e8c555e3602c1dec42c655649006610cd8ece278d8aa28f87bb7fbd478618bf4',
    'vector/classic-3-random': 'b0be389a78bc5ddf4023f3c2d11334a254227c43c1d83b6ca85fb9597a20ae73',
    'vector/pocket-3-heuristic': '94a50e0a935303edc58b40973183a18dbc2bae295daa1d7021b8627360e114ec',
    'vector/dice-2-heuristic': 'c2fac8d7b1701f9fb1d4c7a3ff3f037bf478c4df9e5e8ae52435c7d219da6e7c',
    'vector/dice-4-greedy': 'da7a7bcb0bfffd88efab1bf2ee050c2594ed53e42af707e9d2e880ca15cdbf32',
    'multi/classic-3': 'a7b101ca2590aba6fcd097f82e71f2e4be726f59cf07724873a28159937af32a',
    'multi/pocket-2': 'e5cfba7250ca71073333f09fd55f1611367e46aec4204754ec643b6ada57752c',
    'multi/dice-4': 'ed790109c485b78a399abb611db8edc94256e5bb57ed21d562688a17ea97083a',
    'agents/classic-2-heuristic-greedy': 'f51204cbacb0fb1aa40906da0a2d3de42b222c869136142371720493b2ec3397',
    'agents/classic-4-mixed': 'fa3dbe483461803d6b05cc85328b5dea8ffeb4e7c5784dff66bcc50f82bb276f',
    'agents/classic-2-rlcard': '9cdd8c8f0d562e486cdc28b171d13d1041b307925fce548d957b1f71aa6246d1',
    'agents/classic-2-ppo-ismcts': 'b3121cdb37c905014c03f5bc6ee017ddb4bc6696ab2712fc55b1e1928ad35130',
    'agents/pocket-2-ppo-heuristic': '68ddbb4d26846ffa39b1760e04e95b87d34d0a6c93c98e587af17b35dffa7f26',
    'agents/pocket-4-ppo': '97e62a653fb708c4cc8c79328a88f7a4578f836df247a84e2774b3c34d191b2c',
    'agents/pocket-2-ismcts': 'ba716fa5e651e549528cde329e2424c4faca18f7034a791c472a502a4b144778',
    'agents/dice-2-heuristic-ppo': '5cf7a41dca002e468635c05a24470b86f75325aa84926db2e0764a2f73420504',
    'agents/dice-4-mixed': '03bcb077eb39d0eb167e35893c293fd14808fcd8e35bf658a59262fb9523cd5a',
    'agents/dice-2-ismcts': 'ac01d66916bdde0a3c8f1e4a08edb358a33483046f95e0062030453b70880726',
}


@pytest.mark.parametrize("name,game,n,rules", AEC_CASES, ids=[c[0] for c in AEC_CASES])
def test_aec_games_unchanged(name, game, n, rules):
    assert _aec_digest(game, n, rules) == EXPECTED[f"aec/{name}"]


@pytest.mark.parametrize("name,game,n,opponents", VECTOR_CASES, ids=[c[0] for c in VECTOR_CASES])
def test_batched_games_against_kernel_opponents_unchanged(name, game, n, opponents):
    assert _vector_digest(game, n, opponents) == EXPECTED[f"vector/{name}"]


@pytest.mark.parametrize("game,n", [("classic", 3), ("pocket", 2), ("dice", 4)])
def test_batched_multi_agent_games_unchanged(game, n):
    assert _multi_vector_digest(game, n) == EXPECTED[f"multi/{game}-{n}"]


@pytest.mark.parametrize("name,game,n,specs", AGENT_CASES, ids=[c[0] for c in AGENT_CASES])
def test_agents_choices_unchanged(name, game, n, specs):
    assert _agents_digest(game, n, specs) == EXPECTED[f"agents/{name}"]


if __name__ == "__main__":
    digests = compute_all()
    text = "EXPECTED: dict[str, str] = {\n" + "".join(f"    {k!r}: {v!r},\n" for k, v in digests.items()) + "}\n"
    path = __file__
    src = open(path).read()
    start = src.index("EXPECTED: dict[str, str] = {")
    end = src.index("}\n", start) + 2
    open(path, "w").write(src[:start] + text + src[end:])
    print(f"wrote {len(digests)} digests into {path}", file=sys.stderr)
