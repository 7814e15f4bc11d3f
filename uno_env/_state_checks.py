"""The checks of what a shell saves beside the game, in one place: every way a state enters a shell runs them.

A shell's state is the game's (its state row and PRNG word, checked by ``uno_env.core.validate``, the one state
check) plus the shell's own part: the AEC env's agents, flags and rewards, the Gymnasium env's learner and random
streams, a batched game's episode counters.  ``load_state_dict`` reads that part from the ``"env"`` key of a state
dict; ``restore`` from a snapshot; a copy (``pickle``, ``copy.deepcopy``, ``copy.copy``) carries the shell's
constructor arguments and its state dict or snapshot (``_exact_copy.ExactCopy``), so it is loaded by the same
checks.  Each check raises ``ValueError``/``TypeError`` naming the key and what it must be, before anything is
written.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .core.layout import StateView
from .seeding import check_seed
from .yaml_io import FLOAT32_MAX, is_finite_number, short_repr

#: keys of the ``"env"`` part of an AEC state dict
AEC_KEYS = frozenset({"kind", "agents", "agent_selection", "skip_agent_selection", "rewards", "cumulative_rewards",
                      "terminations", "truncations", "infos", "seed", "episode", "illegal_ended"})
#: keys of the ``"env"`` part of a Gymnasium state dict (``carried_reward`` may be missing: older states)
GYM_KEYS = frozenset({"kind", "aec", "learner_seat", "done", "np_random", "opponents", "carried_reward"})
#: keys of the ``"env"`` part of a batched game's state dict, and those only the single-agent face has
VECTOR_KEYS = frozenset({"kind", "seed", "seed_blocks", "seed_pos", "episode", "episode_seed", "opponent_rng"})
VECTOR_LEARNER_KEYS = frozenset({"learner_seat", "opponent_ids", "carried_reward"})


def check_shell_part(env: Any, kind: str, keys: set[str] | frozenset[str], holds: str, shell: str) -> None:
    """Check the ``env`` part of a state dict: a mapping saved by a ``kind`` shell with exactly ``keys``; ``holds``
    says what it holds and ``shell`` names the loading shell, for the errors."""
    if not isinstance(env, Mapping):
        raise TypeError(f"env: expected a mapping ({holds}), got {type(env).__name__}")
    if env.get("kind") != kind:
        raise ValueError(f"env.kind: this state was saved by a {short_repr(env.get('kind'))} environment; {shell} "
                         f"loads {kind!r} states (drop the 'env' key to load only the game)")
    if set(env) != keys:
        raise ValueError(f"env: expected the keys {sorted(keys)}; missing {sorted(keys - set(env))}, unknown "
                         f"{sorted(map(str, set(env) - keys))}")


def json_ready(x: Any) -> bool:
    """An info dict of a state dict: a mapping that survives JSON (the state dict's promise)."""
    if not isinstance(x, Mapping):
        return False
    try:
        json.dumps(x, allow_nan=False)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return False
    return True


def _int_in(name: str, value: Any, lo: int, hi: int, wanted: str = "") -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise ValueError(f"{name}: expected {wanted or f'an int in {lo}..{hi}'}, got {short_repr(value)}")
    return value


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name}: expected True or False, got {short_repr(value)}")
    return value


# ---------------------------------------------------------------------------------------------- AEC
def check_aec_part(env: Any, view: StateView, possible_agents: list[str]) -> dict[str, Any]:
    """The AEC env's part of a state dict, checked against the game row it goes with (``view``): the agents left,
    the selection, one reward, flag and info per agent, the seed and episode, and whether they fit the game (a
    running game has every agent, none finished, and its seat to act selected)."""
    check_shell_part(env, "aec", AEC_KEYS, "the shell's state", "an AEC environment")
    agents = env["agents"]
    if not isinstance(agents, list) or any(a not in possible_agents for a in agents) \
            or agents != [a for a in possible_agents if a in agents]:
        raise ValueError(f"env.agents: expected agents of {possible_agents} in seat order, got "
                         f"{short_repr(agents)}")
    for key in ("agent_selection", "skip_agent_selection"):
        if env[key] not in possible_agents and not (key == "skip_agent_selection" and env[key] is None):
            raise ValueError(f"env.{key}: expected one of {possible_agents}, got {short_repr(env[key])}")
    _check_per_agent(env, agents)
    if env["seed"] is not None:
        check_seed(env["seed"], "env.seed")
    _int_in("env.episode", env["episode"], 0, 2**63 - 1, "an int >= 0")
    _flag("env.illegal_ended", env["illegal_ended"])
    _check_aec_fits_game(env, view, possible_agents)
    return dict(env)


def _check_per_agent(env: Mapping[str, Any], agents: list[str]) -> None:
    wanted = {float: "a finite number", bool: "True or False", dict: "a JSON-ready dict"}
    for key, kind in (("rewards", float), ("cumulative_rewards", float), ("terminations", bool),
                      ("truncations", bool), ("infos", dict)):
        value = env[key]
        if not isinstance(value, Mapping) or list(value) != agents:
            raise ValueError(f"env.{key}: expected one entry per agent of env.agents ({agents}), got "
                             f"{short_repr(value)}")
        for a, x in value.items():
            ok = json_ready(x) if kind is dict else isinstance(x, bool) if kind is bool else is_finite_number(x)
            if not ok:
                raise ValueError(f"env.{key}[{a!r}]: expected {wanted[kind]}, got {short_repr(x)}")


def _check_aec_fits_game(env: Mapping[str, Any], view: StateView, possible_agents: list[str]) -> None:
    agents = env["agents"]
    live = view.done == 0 and not env["illegal_ended"]
    if live and (agents != possible_agents or env["agent_selection"] != possible_agents[view.cur]
                 or any(env["terminations"].values()) or any(env["truncations"].values())):
        raise ValueError(f"env: the game is running with {possible_agents[view.cur]} to act, but the shell says "
                         f"agents {agents}, agent_selection {env['agent_selection']!r} and some agent finished")
    if not live and agents and not all(env["terminations"][a] or env["truncations"][a] for a in agents):
        raise ValueError("env: the game is over but an agent is neither terminated nor truncated")
    if not live and agents and env["agent_selection"] not in agents:
        raise ValueError(f"env.agent_selection: {env['agent_selection']!r} is not among the agents left {agents}")


# ---------------------------------------------------------------------------------------------- Gymnasium
def check_gym_part(env: Any, num_players: int, seat_choice: int | str, opponents: Sequence[Any]) -> dict[str, Any]:
    """The Gymnasium env's part of a state dict (everything but its ``aec`` part, which the AEC env checks): the
    learner's seat (the env's own unless it draws one per episode), whether the episode is over, the reward carried
    to the learner's first action, and the random streams of the env and of each opponent, each one the stream it
    is saved for.  Returns ``(learner_seat, done, carried, np_random, opponent states)`` by key, the generator
    built and nothing set."""
    keys = set(GYM_KEYS) if isinstance(env, Mapping) and "carried_reward" in env else set(GYM_KEYS) - {
        "carried_reward"}
    check_shell_part(env, "gymnasium", keys, "the shell's state", "a Gymnasium env")
    seat = _int_in("env.learner_seat", env["learner_seat"], 0, num_players - 1, f"a seat in 0..{num_players - 1}")
    if seat_choice != "random" and seat != seat_choice:
        raise ValueError(f"env.learner_seat: the state's learner is seat {seat}; this environment's is "
                         f"{seat_choice} (learner_seat={seat_choice!r})")
    _flag("env.done", env["done"])
    carried = env.get("carried_reward", 0.0)
    if not is_finite_number(carried, FLOAT32_MAX):  # the rewards are float32
        raise ValueError(f"env.carried_reward: expected a finite number, got {short_repr(carried)}")
    np_random = None if env["np_random"] is None else checked_rng_state("env.np_random", env["np_random"])
    states = env["opponents"]
    if not isinstance(states, list) or len(states) != len(opponents):
        raise ValueError(f"env.opponents: expected {len(opponents)} entries (one per other seat), got "
                         f"{short_repr(states)}")
    for i, (agent, state) in enumerate(zip(opponents, states)):
        if state is None:
            continue
        if has_rng_protocol(agent):
            check_protocol_state(f"env.opponents[{i}]", agent, state)
        elif isinstance(getattr(agent, "rng", None), np.random.Generator):
            checked_rng_state(f"env.opponents[{i}]", state)
        else:
            raise ValueError(f"env.opponents[{i}]: opponent {agent!r} has no random stream to set")
    return {"learner_seat": seat, "done": env["done"], "carried": float(carried), "np_random": np_random,
            "opponents": states}


def has_rng_protocol(agent: Any) -> bool:
    """Whether ``agent`` saves and restores its own random state (``get_rng_state`` / ``set_rng_state``)."""
    return callable(getattr(agent, "get_rng_state", None)) and callable(getattr(agent, "set_rng_state", None))


def rng_state(agent: Any) -> Any:
    """An opponent's random state for a state dict: its own protocol's, its numpy ``rng``'s, or None."""
    if has_rng_protocol(agent):
        # an agent may draw from more than a numpy Generator (ismcts searches from its own compiled word)
        return agent.get_rng_state()
    rng = getattr(agent, "rng", None)
    return dict(rng.bit_generator.state) if isinstance(rng, np.random.Generator) else None


def set_rng_state(agent: Any, state: Any) -> None:
    """Set an opponent's random state checked by :func:`check_gym_part` (None: left as it is)."""
    if state is None:
        return
    if has_rng_protocol(agent):
        agent.set_rng_state(state)
    else:
        agent.rng.bit_generator.state = state


def check_protocol_state(name: str, agent: Any, state: Any) -> None:
    """Raise ``ValueError`` naming ``name`` unless ``agent.set_rng_state`` takes ``state``; the agent is left as it
    was (it is set for real only once the whole state dict has been checked)."""
    before = agent.get_rng_state()
    try:
        agent.set_rng_state(state)
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise ValueError(f"{name}: not a random state of opponent {agent!r} ({exc})") from None
    finally:
        agent.set_rng_state(before)


def checked_rng_state(name: str, state: Any) -> np.random.Generator:
    """A generator set to ``state`` (a numpy bit generator's ``state`` dict), or an error naming ``name``."""
    if not isinstance(state, Mapping) or state.get("bit_generator") != "PCG64":
        raise ValueError(f"{name}: expected the state of a numpy PCG64 generator, got {short_repr(state)}")
    try:
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = dict(state)
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise ValueError(f"{name}: not a PCG64 state ({exc})") from None
    return rng


def np_random_part(env: Any) -> dict[str, Any]:
    """A Gymnasium env's (or vector env's) own random stream, for a copy: its generator's state and its seed."""
    rng = env._np_random  # Gymnasium's own fields: the ``np_random`` property would make a stream if there is none
    return {"np_random": None if rng is None else rng.bit_generator.state, "np_random_seed": env._np_random_seed}


def set_np_random_part(env: Any, part: Mapping[str, Any], what: str) -> None:
    """Set what :func:`np_random_part` took, checked first (``what`` names the env in the errors)."""
    seed = part["np_random_seed"]
    if seed is not None and type(seed) is not int:
        raise ValueError(f"{what}: np_random_seed must be an int, got {short_repr(seed)}")
    rng = None if part["np_random"] is None else checked_rng_state(f"{what}: np_random", part["np_random"])
    env._np_random, env._np_random_seed = rng, seed


# ---------------------------------------------------------------------------------------------- batched
def vector_counter_limits(seeds_per_refill: int) -> dict[str, tuple[int, int]]:
    """(lowest, highest) of a batched game's counters, by their state dict keys: a state dict's and a snapshot's."""
    # seed_blocks * seeds_per_refill must stay an int64 episode index
    return {"seed": (0, 2**64 - 1), "seed_blocks": (1, (2**63 - 1) // seeds_per_refill - 1),
            "seed_pos": (0, seeds_per_refill), "episode": (-1, 2**62), "episode_seed": (0, 2**63 - 1)}


def check_vector_part(env: Any, seeds_per_refill: int, num_players: int | None, pool_size: int) -> dict[str, Any]:
    """One batched game's part of a state dict: its episode counters and seed, the in-kernel opponents' PRNG word
    and, in the single-agent face (``num_players`` given), its learner's seat, opponent pool indices and the
    reward carried to the learner's first action."""
    keys = set(VECTOR_KEYS)
    if num_players is not None:
        keys |= VECTOR_LEARNER_KEYS
        if isinstance(env, Mapping) and "carried_reward" not in env:  # state dicts saved before it existed
            keys.discard("carried_reward")
    check_shell_part(env, "vector", keys, "the game's counters", "a vector env")
    for key, (lo, hi) in vector_counter_limits(seeds_per_refill).items():
        _int_in(f"env.{key}", env[key], lo, hi)
    r = env["opponent_rng"]
    if not isinstance(r, list) or len(r) != 1 or type(r[0]) is not int or not 0 <= r[0] < 2**64:
        raise ValueError(f"env.opponent_rng: expected a list of one int in [0, 2**64), got {short_repr(r)}")
    if num_players is not None:
        _int_in("env.learner_seat", env["learner_seat"], 0, num_players - 1, f"a seat in 0..{num_players - 1}")
        carried = env.get("carried_reward", 0.0)
        if not is_finite_number(carried, FLOAT32_MAX):  # it is kept as a float32
            raise ValueError(f"env.carried_reward: expected a finite number, got {short_repr(carried)}")
        ids = env["opponent_ids"]
        if not isinstance(ids, list) or len(ids) != num_players - 1 or any(
                type(x) is not int or not 0 <= x < pool_size for x in ids):
            raise ValueError(f"env.opponent_ids: expected {num_players - 1} indices into the opponent pool "
                             f"(0..{pool_size - 1}), got {short_repr(ids)}")
    return dict(env)


def check_arrays_like(what: str, given: Any, like: Sequence[np.ndarray], names: Sequence[str]) -> None:
    """``given`` is a tuple of arrays of the shapes and dtypes of ``like`` (a snapshot of this env, or the results
    a copy carries); ``names`` name them in the error."""
    if not isinstance(given, tuple) or len(given) != len(like):
        raise ValueError(f"{what}: expected a tuple of {len(like)} arrays ({', '.join(names)}), got "
                         f"{short_repr(given)}")
    for name, x, y in zip(names, given, like):
        if not isinstance(x, np.ndarray) or x.shape != y.shape or x.dtype != y.dtype:
            got = f"{x.dtype} {x.shape}" if isinstance(x, np.ndarray) else type(x).__name__
            raise ValueError(f"{what}: {name} must be an array of {y.dtype}, shape {y.shape}; got {got}")
        if x.dtype.kind == "f" and not np.isfinite(x).all():
            raise ValueError(f"{what}: {name} holds values that are not finite")
