"""Corrupted saved environments, loaded the ways a state enters: pickle, ``copy.deepcopy`` and OpenSpiel's
deserialization.  Run by ``test_state_entries.py`` in a child process, so that a crash fails a test instead of
ending the test run: ``python state_entries.py <corpus> [first [every]]`` prints one line per case from
the case numbered ``first`` (every ``every``-th case), ``<number>\\t<case>\\t<outcome>``, the case's name
before it is tried (so a crash names it).

A case starts from a mid-game environment and changes one thing in what a copy carries: an entry of the instance's
state (set to None, another value of its type, an array of ones, an empty array, another dtype), an entry of a state
row (by the public layout: a seat, a pile size, a card id the game does not have...), or a game's tables.  The loaded
object must then either be refused (``ValueError``/``TypeError`` while loading) or hold a state the one state check
accepts and behave exactly as that state: a fresh environment loaded from the copy's ``state_dict()`` must show the
same observations, masks, rewards and flags over the next steps.  Outcomes: ``refused``, ``same`` (as its own state
dict), ``fresh`` (the copy says it was never reset, and after a reset it plays as a fresh environment), or what went
wrong.
"""
from __future__ import annotations

import base64
import copy
import pickle
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import uno_env
from uno_env.core import layout as L
from uno_env.core.game import Game

#: entries of a state row set to values no reachable state holds (field, index into the field, value)
ROW_CASES: list[tuple[str, int, int]] = [
    ("disc_n", 0, 30000), ("disc_n", 0, 0), ("draw_n", 0, -1), ("draw_n", 0, 200), ("cur", 0, 9), ("cur", 0, -1),
    ("top", 0, 200), ("phase", 0, 99), ("dir", 0, 0), ("colour", 0, 7), ("pending", 0, -5), ("done", 0, 1),
    ("hand", 0, -1), ("hand", 1, 30), ("hand_n", 0, 99), ("disc", 0, 127), ("draw", 0, -3), ("called", 0, 5),
    ("die_loc", 0, 50), ("die_face", 0, 9), ("wd_player", 0, 55), ("jump_from", 0, 40), ("drawn", 0, 300),
    ("turns", 1, -1), ("scores", 0, -1),
]


class _Reduced:
    """Pickles as ``func(*args)``: an object that pickles through ``__reduce__``, with its arguments corrupted."""

    def __init__(self, func: Any, args: tuple):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


class _Instance:
    """Pickles as an instance of ``cls`` with the instance state ``state`` (what a corrupted file would hold)."""

    def __init__(self, cls: type, state: Any):
        self.cls, self.state = cls, state

    def __reduce__(self):
        return object.__new__, (self.cls,), self.state


def _value_cases(value: Any) -> Iterator[tuple[str, Any]]:
    yield "None", None
    if isinstance(value, np.ndarray):
        if value.dtype != np.uint64:  # PRNG words: every word is a random stream, so ones would be a valid state
            yield "ones", np.ones_like(value)
        yield "empty", np.zeros((0,) * max(value.ndim, 1), dtype=value.dtype)
        yield "retyped", value.astype(np.int64 if value.dtype.kind == "f" else np.float64)
    elif isinstance(value, (bool, np.bool_)):
        yield "flipped", not value
    elif isinstance(value, int):
        yield "plus one", value + 1
        yield "negative", -value - 7
        yield "huge", 10**9
    elif isinstance(value, float):
        yield "nan", float("nan")
    elif isinstance(value, str):
        yield "renamed", value + "_x"
    elif isinstance(value, dict):
        yield "emptied", {}
        if value:
            yield "first entry None", {**value, next(iter(value)): None}
    elif isinstance(value, list):
        yield "emptied", []
        if value:
            yield "doubled", value + value[:1]
    elif isinstance(value, Game):
        yield from _tampered_games(value)


def _tampered_games(game: Game) -> Iterator[tuple[str, Game]]:
    def tampered(**tables: np.ndarray) -> Game:
        g = object.__new__(Game)
        g.__dict__.update(vars(game))
        for name, table in tables.items():
            setattr(g, name, table)
        return g

    cfg = game.cfg.copy()
    cfg[L.CFG_INDEX["np"]] = L.MAX_PLAYERS
    yield "cfg players", tampered(cfg=cfg)
    cfg = game.cfg.copy()
    cfg[L.CFG_INDEX["k"]] = L.MAX_KINDS + 40
    yield "cfg kinds", tampered(cfg=cfg)
    spec = game.spec.copy()
    spec[0, 3] += 40
    yield "spec count", tampered(spec=spec)
    dice = game.dice.copy()
    dice[0, 0] = 500
    yield "dice face", tampered(dice=dice)


def _corrupt_row(rows: np.ndarray, n: int, field: str, index: int, value: int) -> np.ndarray | None:
    f = L.FIELD_BY_NAME[field]
    if index >= f.size_for(n):
        return None
    rows = rows.copy()
    row = rows if rows.ndim == 1 else rows[-1]
    row[L.OFFSETS[field] + index] = value
    return rows


def _corrupt_fields(d: dict, n: int, field: str, index: int, value: int) -> dict | None:
    """A versioned state dict (the public format) with one entry of ``fields`` set (a wide field's ``index`` counts
    entries, two per value)."""
    f = L.FIELD_BY_NAME[field]
    if index >= f.size_for(n):
        return None
    fields = dict(d["fields"])
    if not f.shape:
        fields[field] = value
    else:
        flat = np.array(fields[field], dtype=object).reshape(-1)
        flat[index // 2 if f.wide else index] = value
        fields[field] = np.array(flat.tolist(), dtype=object).reshape(f.shape_for(n)).tolist()
    return {**d, "fields": fields}


def _nested_cases(value: Any, n: int, state_len: int, depth: int) -> Iterator[tuple[str, Any]]:
    """(what, corrupted ``value``) for every corruption of ``value``'s entries: each entry of a dict or tuple as
    :func:`_value_cases` (and, ``depth`` levels down, the entries inside it), the state rows of any int16 array of
    rows, and the fields of any versioned state dict."""
    if isinstance(value, np.ndarray) and value.dtype == L.STATE_DTYPE and value.ndim in (1, 2) \
            and value.shape[-1] == state_len:
        for field, index, v in ROW_CASES:
            rows = _corrupt_row(value, n, field, index, v)
            if rows is not None:
                yield f"{field}[{index}]={v}", rows
    if isinstance(value, dict) and "format" in value and isinstance(value.get("fields"), dict):
        for field, index, v in ROW_CASES:
            d = _corrupt_fields(value, n, field, index, v)
            if d is not None:
                yield f"fields.{field}[{index}]={v}", d
    if isinstance(value, (dict, tuple)) and depth:
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        for key, item in items:
            cases = list(_value_cases(item)) + list(_nested_cases(item, n, state_len, depth - 1))
            for what, bad in cases:
                if isinstance(value, dict):
                    yield f"{key}.{what}" if " " not in what else f"{key} {what}", {**value, key: bad}
                else:
                    yield f"[{key}] {what}", value[:key] + (bad,) + value[key + 1:]


def instance_cases(env: Any, n: int, state_len: int) -> Iterator[tuple[str, bytes]]:
    """(name, pickle bytes) of every corruption of ``env``'s pickled instance state."""
    state = env.__reduce_ex__(2)[2]
    for what, bad in _nested_cases(state, n, state_len, depth=4):
        yield what, pickle.dumps(_Instance(type(env), bad))


def _outcome(load: Callable[[], Any], check: Callable[[Any], str]) -> str:
    try:
        obj = load()
    except (ValueError, TypeError, MemoryError) as exc:  # MemoryError: a batch too large to build
        return "refused" if str(exc) else "refused without a message"
    except Exception as exc:  # noqa: BLE001 - reported, the test fails on it
        return f"load raised {type(exc).__name__}: {exc}"[:300]
    try:
        return check(obj)
    except Exception as exc:  # noqa: BLE001 - reported, the test fails on it
        return f"accepted, then {type(exc).__name__}: {exc}"[:300]


# ---------------------------------------------------------------------------------------------- AEC
def _aec_seen(env: Any, agent: str) -> tuple[np.ndarray, np.ndarray]:
    """(observation vector, mask) of ``agent`` under either ``flat_obs`` option."""
    seen = env.observe(agent)
    return (seen["observation"] if isinstance(seen, dict) else seen), env.action_mask(agent)


def _aec_view(env: Any) -> tuple:
    seen = {a: _aec_seen(env, a) for a in env.possible_agents}
    return (env.agent_selection, list(env.agents),
            {a: (obs.tobytes(), mask.tobytes()) for a, (obs, mask) in seen.items()},
            dict(env.rewards), env.cumulative_rewards, dict(env.terminations), dict(env.truncations))


def _aec_same(a: Any, b: Any, steps: int = 12) -> str:
    rng = np.random.default_rng(3)
    for step in range(steps):
        if _aec_view(a) != _aec_view(b):
            return f"accepted, and differs from its own state dict at step {step}"
        if not b.agents:
            break
        agent = b.agent_selection
        done = b.terminations[agent] or b.truncations[agent]
        action = None if done else int(rng.choice(np.flatnonzero(_aec_seen(b, agent)[1])))
        a.step(action)
        b.step(action)
    return "same" if a.state_dict() == b.state_dict() else "accepted, and its state dict drifts"


def _aec_check() -> Callable[[Any], str]:
    def check(env: Any) -> str:
        def make() -> Any:  # the copy's own configuration: it may hold any the constructor accepts
            return uno_env.raw_env(env.game.name, rules=env.rules, illegal_action=env.illegal_action,
                                   flat_obs=env.observation_space(env.possible_agents[0]).shape is not None)

        try:
            d = env.state_dict()
        except uno_env.OrderError:
            env.reset(seed=5)
            twin = make()
            twin.reset(seed=5)
            return "fresh" if _aec_same(env, twin) == "same" else "accepted as never reset, but plays otherwise"
        twin = make()
        try:
            twin.load_state_dict(d)
        except (ValueError, TypeError) as exc:
            return f"accepted a state the check refuses: {exc}"[:300]
        return _aec_same(env, twin)
    return check


def aec_corpus() -> Iterator[tuple[str, Callable[[], Any], Callable[[Any], str]]]:
    for game, n in (("classic", 2), ("dice", 3)):
        def make(game: str = game, n: int = n) -> Any:
            return uno_env.raw_env(game, num_players=n)

        env = make()
        env.reset(seed=4)
        rng = np.random.default_rng(0)
        for _ in range(9):
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
        for name, data in instance_cases(env, n, env.game.state_len):
            yield f"aec {game} {name}", (lambda data=data: pickle.loads(data)), _aec_check()
        # a deep copy of a corrupted environment: the copy is checked as the unpickled one is
        row = env.game_state
        row.disc_n = 30000
        yield f"aec {game} deepcopy of an edited row", (lambda env=env: copy.deepcopy(env)), _aec_check()


# ---------------------------------------------------------------------------------------------- Gymnasium
def _gym_check() -> Callable[[Any], str]:
    def check(env: Any) -> str:
        from uno_env.gym_env import UnoGymEnv

        def make() -> Any:  # the copy's own configuration (its opponents are the objects it carries)
            return UnoGymEnv(env.game.name, rules=env.rules, opponents=copy.deepcopy(env.opponents),
                             learner_seat="random" if isinstance(env.learner_seat, str) else env.learner_seat,
                             illegal_action=env.illegal_action, flat_obs=env.flat_obs)

        try:
            d = env.state_dict()
        except uno_env.OrderError:
            return "fresh" if env.action_masks().sum() == 0 else "accepted as never reset, but offers actions"
        twin = make()
        try:
            twin.load_state_dict(d)
        except (ValueError, TypeError) as exc:
            return f"accepted a state the check refuses: {exc}"[:300]
        rng = np.random.default_rng(3)
        for step in range(10):
            if not np.array_equal(env.action_masks(), twin.action_masks()):
                return f"accepted, and its masks differ from its own state dict's at step {step}"
            legal = np.flatnonzero(twin.action_masks())
            if not legal.size:
                break
            action = int(rng.choice(legal))
            a, b = env.step(action), twin.step(action)
            if repr(a[:4]) != repr(b[:4]):
                return f"accepted, and differs from its own state dict at step {step}"
        return "same"
    return check


def gym_corpus() -> Iterator[tuple[str, Callable[[], Any], Callable[[Any], str]]]:
    from uno_env.gym_env import UnoGymEnv

    def make() -> Any:
        return UnoGymEnv("pocket", num_players=3, opponents="random", learner_seat=1)

    env = make()
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(4):
        env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    for name, data in instance_cases(env, 3, env.game.state_len):
        yield f"gym {name}", (lambda data=data: pickle.loads(data)), _gym_check()


# ---------------------------------------------------------------------------------------------- batched
def _vector_check() -> Callable[[Any], str]:
    def check(env: Any) -> str:
        def make() -> Any:  # the copy's own configuration
            if hasattr(env, "learner_seat"):
                twin = type(env)(env.game.name, num_envs=env.num_envs, rules=env.rules,
                                 learner_seat=env.learner_seat.copy(), num_threads=1)
                twin.set_opponent_pool(copy.deepcopy(env.opponents))
                return twin
            return type(env)(env.game.name, num_envs=env.num_envs, rules=env.rules, num_threads=1)

        try:
            dicts = [env.state_dict(b) for b in range(env.num_envs)]
        except uno_env.OrderError:
            return "fresh"
        twin = make()
        twin.reset(seeds=9)
        try:
            for b, d in enumerate(dicts):
                twin.load_state_dict(b, d)
        except (ValueError, TypeError) as exc:
            return f"accepted a state the check refuses: {exc}"[:300]
        rng = np.random.default_rng(3)
        for step in range(8):
            if not (np.array_equal(env.masks, twin.masks) and np.array_equal(env.observations, twin.observations)):
                return f"accepted, and differs from its own state dicts at step {step}"
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in twin.masks], dtype=np.int64)
            a, b = env.step(actions), twin.step(actions)
            if repr(a[:-1]) != repr(b[:-1]):
                return f"accepted, and its step differs from its own state dicts' at step {step}"
        return "same"
    return check


def vector_corpus() -> Iterator[tuple[str, Callable[[], Any], Callable[[Any], str]]]:
    from uno_env.vector import UnoSingleAgentVectorEnv, UnoVectorEnv

    makers = {
        "multi": lambda: UnoVectorEnv("classic", num_envs=3, num_players=3, num_threads=1),
        "single": lambda: UnoSingleAgentVectorEnv("dice", num_envs=3, num_players=2, opponents="heuristic",
                                                  learner_seat="rotate", num_threads=1),
    }
    for face, make in makers.items():
        env = make()
        env.reset(seeds=1)
        rng = np.random.default_rng(0)
        for _ in range(5):
            env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.masks], dtype=np.int64))
        n = env.num_players
        for name, data in instance_cases(env, n, env.game.state_len):
            yield f"vector {face} {name}", (lambda data=data: pickle.loads(data)), _vector_check()


# ---------------------------------------------------------------------------------------------- OpenSpiel
def openspiel_corpus() -> Iterator[tuple[str, Callable[[], Any], Callable[[Any], str]]]:
    """Serialized states (``pyspiel.serialize_game_and_state``) whose pickled attributes are corrupted: each
    attribute set to None or another value of its type, and the bytes of the state row (by the layout), of the legal
    mask (all legal) and of the returns (not a number) replaced where the pickle holds them."""
    import pyspiel

    import uno_env.openspiel  # noqa: F401 - registers the games

    for spec, n in (("uno_env_classic(players=2)", 2), ("uno_env_dice(players=3)", 3)):
        game = pyspiel.load_game(spec)
        state = game.new_initial_state(7)
        rng = np.random.default_rng(0)
        for _ in range(6):
            state.apply_action(int(rng.choice(state.legal_actions())))
        text = pyspiel.serialize_game_and_state(game, state)
        head, _, encoded = text.rpartition("__dict__=")
        raw = base64.b64decode(encoded)
        attrs = pickle.loads(raw)

        def load(blob: bytes, head: str = head) -> Any:
            return pyspiel.deserialize_game_and_state(head + "__dict__=" + base64.b64encode(blob).decode())[1]

        def check(loaded: Any, original: Any = state, n: int = n) -> str:
            a, b = loaded, original.clone()
            rng = np.random.default_rng(5)
            for step in range(12):
                if (a.current_player(), a.legal_actions(), a.returns()) != \
                        (b.current_player(), b.legal_actions(), b.returns()) or any(
                            a.observation_string(p) != b.observation_string(p) for p in range(n)):
                    return f"accepted, and differs from the original at step {step}"
                if b.is_terminal():
                    break
                action = int(rng.choice(b.legal_actions()))
                a.apply_action(action)
                b.apply_action(action)
            return "same"

        for key in sorted(attrs):
            for what, value in _value_cases(attrs[key]):
                blob = pickle.dumps({**attrs, key: value})
                yield f"openspiel {spec} {key} {what}", (lambda blob=blob: load(blob)), check
            reduced = attrs[key].__reduce__() if not isinstance(attrs[key], (np.ndarray, int, float, list, dict,
                                                                             type(None))) else None
            if isinstance(reduced, tuple) and len(reduced) == 2 and callable(reduced[0]):
                func, args = reduced  # an object pickled as func(*args): corrupt each argument
                for i, arg in enumerate(args):
                    for what, value in _value_cases(arg):
                        blob = pickle.dumps({**attrs, key: _Reduced(func, args[:i] + (value,) + args[i + 1:])})
                        yield f"openspiel {spec} {key} argument {i} {what}", (lambda blob=blob: load(blob)), check
        row = state.core_state()
        for field, index, value in ROW_CASES:
            bad = _corrupt_row(row, n, field, index, value)
            if bad is not None:
                blob = raw.replace(row.tobytes(), bad.tobytes())
                assert blob != raw, "the state row's bytes are in the serialized state"
                yield f"openspiel {spec} row {field}[{index}]={value}", (lambda blob=blob: load(blob)), check
        mask = np.zeros(game.num_distinct_actions(), dtype=np.int8)
        mask[state.legal_actions()] = 1
        for name, find, bad in (
                ("mask all legal", mask.tobytes(), np.ones_like(mask).tobytes()),
                ("returns nan", np.array(state.returns()).tobytes(), np.full(n, np.nan).tobytes())):
            if raw.count(find) == 1:  # a serialized state that holds the array: corrupt it there
                blob = raw.replace(find, bad)
                yield f"openspiel {spec} {name}", (lambda blob=blob: load(blob)), check


CORPORA = {"aec": aec_corpus, "gym": gym_corpus, "vector": vector_corpus, "openspiel": openspiel_corpus}


#: cases tried whatever ``every`` says: the reported crash (``disc_n`` 30000 in a copy) and the OpenSpiel states that
#: played illegal actions (an all-ones mask) or paid what cannot be paid
ALWAYS = ("disc_n[0]=30000", "mask all legal", "returns nan", "argument 2 ", "argument 5 ")


def main(corpus: str, start: int = 0, every: int = 1) -> None:
    for i, (name, load, check) in enumerate(CORPORA[corpus]()):
        if i < start or (i % every and not any(key in name for key in ALWAYS)):
            continue
        print(f"{i}\t{name}", end="\t", flush=True)
        print(" ".join(_outcome(load, check).split()), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], *(int(x) for x in sys.argv[2:4]))
