"""Recorded games: the rules, the seed and every action of a game, enough to replay it exactly.

A record is a JSON file::

    {"format": "uno-env-record", "version": 2, "game": "classic", "num_players": 2,
     "rules": {...RuleConfig.to_dict()...}, "seed": 123, "agents": ["heuristic", "random"],
     "actions": [12, 7, ...], "result": {"winner": 0, "rewards": [1.0, -1.0], "steps": 57}}

Replaying builds ``uno_env.raw_env(game, num_players, rules)``, calls ``reset(seed=seed)`` and steps the actions in
order, each by the agent in ``agent_selection``; that is the whole contract, so any tool can replay a record.
``result`` (optional) is what the recorded run ended with: ``winner`` (the match winner's seat, -1 when
truncated, ``None`` if the record stops before the end), each seat's total reward, and the number of actions.
``dice_set_sha256`` (UNO Dice with a dice-set file only) is the SHA-256 of that file's bytes: the rules name the file
by path, so the replay checks that the file still holds the dice the game was played with.  Records written before
this field existed replay with whatever the file holds now (nothing is there to check it against).

    rec = load_record("game.json")   # or GameRecord("classic", 2, RuleConfig.make("classic").to_dict(), 7, actions)
    for step in replay(rec):          # step.env is the live environment
        print(step.index, step.agent, step.action_name)

``uno-env evaluate ... --record DIR`` writes one record per arena game; ``uno-env replay FILE`` shows one.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._files import MAX_RECORD_BYTES, MAX_YAML_BYTES, InputFileError, read_bytes
from .config import RuleConfig
from .yaml_io import is_finite_number

__all__ = ["FORMAT", "VERSION", "RecordError", "GameRecord", "ReplayStep", "save_record", "load_record", "replay",
           "record_result", "save_arena_games"]

FORMAT = "uno-env-record"
VERSION = 2  # 2: UNO Dice plays by die (play_die actions); card games are the same as in 1
_GAMES = ("classic", "pocket", "dice")
#: the seeds ``reset`` accepts (uno_env.seeding.check_seed)
_SEED_LIMIT = 2**64
_HEX = frozenset("0123456789abcdef")


class RecordError(ValueError):
    """A record that is malformed, of an unknown format or version, or that does not replay."""


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value) if not isinstance(value, (list, dict)) else json.dumps(value, default=str)[: limit + 1]
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _custom_dice_set(game: str, rules: Mapping[str, Any]) -> str | None:
    """The dice-set file a UNO Dice record's rules name, or None (another game, or the packaged set)."""
    path = rules.get("dice_set", "default") if game == "dice" else "default"
    return None if path == "default" else os.fspath(path)


def _dice_set_digest(path: str | os.PathLike) -> str:
    """SHA-256 (hex) of a dice-set file's bytes: what a record keeps to tell that the file has not changed
    (:class:`~uno_env._files.InputFileError` if it is not a regular file of a dice set's size)."""
    return hashlib.sha256(read_bytes(path, "dice set", MAX_YAML_BYTES)).hexdigest()


@dataclass
class GameRecord:
    """One game: how to rebuild it (``game``, ``num_players``, ``rules``, ``seed``) and what was played."""

    game: str
    num_players: int
    rules: dict[str, Any]
    seed: int
    actions: list[int] = field(default_factory=list)
    agents: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None
    #: SHA-256 of the custom dice-set file (UNO Dice); None for other games, the packaged set and older records
    dice_set_sha256: str | None = None

    def __post_init__(self) -> None:
        self._validate()

    # -- validation ---------------------------------------------------------------------------------
    def _validate(self) -> None:
        rules = self._validate_game()
        self._validate_moves()
        self._validate_agents()
        self._validate_digest(rules)
        if self.result is not None:
            self._validate_result(self.result)

    def _validate_game(self) -> dict[str, Any]:
        """``game``, ``num_players`` and ``rules``, which must agree and make a valid configuration; the rules."""
        if self.game not in _GAMES:
            raise RecordError(f"record field 'game': expected one of {', '.join(_GAMES)}, got {_short(self.game)}")
        if not _is_int(self.num_players):
            raise RecordError(f"record field 'num_players': expected an integer, got {_short(self.num_players)}")
        if not isinstance(self.rules, Mapping):
            raise RecordError(f"record field 'rules': expected a mapping of rule options, got {_short(self.rules)}")
        rules = dict(self.rules)
        if rules.get("game", self.game) != self.game:
            raise RecordError(f"record field 'rules': the rules are for game {_short(rules['game'])}, "
                              f"but the record's game is {self.game!r}")
        if rules.get("num_players", self.num_players) != self.num_players:
            raise RecordError(f"record field 'rules': num_players is {_short(rules['num_players'])} in the rules "
                              f"but {self.num_players} in the record")
        try:
            RuleConfig.from_dict({**rules, "game": self.game, "num_players": int(self.num_players)})
        except OverflowError:  # e.g. a 400-digit int where the rules want a probability
            raise RecordError("record field 'rules': a number is too large for its rule option") from None
        except (ValueError, TypeError) as e:
            raise RecordError(f"record field 'rules': {e}") from None
        return rules

    def _validate_moves(self) -> None:
        """``seed`` (what ``reset`` accepts) and ``actions`` (integer action ids)."""
        if not _is_int(self.seed) or not 0 <= self.seed < _SEED_LIMIT:
            raise RecordError(f"record field 'seed': expected an integer in [0, 2**64), got {_short(self.seed)}")
        if not isinstance(self.actions, list):
            raise RecordError("record field 'actions': expected a list of integer action ids")
        bad = next((i for i, a in enumerate(self.actions) if not _is_int(a)), None)
        if bad is not None:
            raise RecordError(f"record field 'actions': expected a list of integer action ids (item {bad} is "
                              f"{_short(self.actions[bad])})")

    def _validate_agents(self) -> None:
        """``agents``: none, or one printable name per seat."""
        if not isinstance(self.agents, list) or not all(isinstance(a, str) for a in self.agents) or \
                len(self.agents) not in (0, self.num_players):
            raise RecordError(f"record field 'agents': expected a list of {self.num_players} agent names "
                              f"(one per seat), got {_short(self.agents)}")
        for i, name in enumerate(self.agents):
            # names are printed to terminals: control characters could move the cursor or rewrite the screen
            if not name.isprintable():
                raise RecordError(f"record field 'agents': item {i} ({_short(name)}) holds control or other "
                                  "non-printable characters")

    def _validate_digest(self, rules: Mapping[str, Any]) -> None:
        """``dice_set_sha256``: absent, or the 64 hex digits of the dice-set file a UNO Dice record's rules name."""
        digest = self.dice_set_sha256
        if digest is None:
            return
        if _custom_dice_set(self.game, rules) is None:
            raise RecordError("record field 'dice_set_sha256': only a UNO Dice record whose rules name a "
                              "dice-set file has one")
        if not isinstance(digest, str) or len(digest) != 64 or not set(digest) <= _HEX:
            raise RecordError(f"record field 'dice_set_sha256': expected 64 lowercase hex digits, got "
                              f"{_short(digest)}")

    def _validate_result(self, r: Any) -> None:
        if not isinstance(r, Mapping) or set(r) != {"winner", "rewards", "steps"}:
            raise RecordError("record field 'result': expected null or a mapping with exactly the keys "
                              f"'winner', 'rewards', 'steps'; got {_short(r)}")
        if r["winner"] is not None and (not _is_int(r["winner"]) or not -1 <= r["winner"] < self.num_players):
            raise RecordError(f"record field 'result.winner': expected a seat in 0..{self.num_players - 1}, "
                              f"-1 (truncated) or null; got {_short(r['winner'])}")
        rw = r["rewards"]
        if not isinstance(rw, list) or len(rw) != self.num_players or not all(is_finite_number(x) for x in rw):
            raise RecordError(f"record field 'result.rewards': expected {self.num_players} finite numbers, "
                              f"got {_short(rw)}")
        if r["steps"] != len(self.actions) or not _is_int(r["steps"]):
            raise RecordError(f"record field 'result.steps': expected {len(self.actions)} (the number of "
                              f"actions), got {_short(r['steps'])}")

    # -- plain data -----------------------------------------------------------------------------------
    def rule_config(self) -> RuleConfig:
        """The record's rules as a :class:`~uno_env.RuleConfig`."""
        return RuleConfig.from_dict({**self.rules, "game": self.game, "num_players": int(self.num_players)})

    def check_dice_set(self) -> None:
        """Raise :class:`RecordError` unless the dice-set file the rules name holds the bytes the record was made
        with (``dice_set_sha256``); nothing to check for other games, the packaged set, or records without it."""
        path = _custom_dice_set(self.game, self.rules)
        if path is None or self.dice_set_sha256 is None:
            return
        try:
            got = _dice_set_digest(path)
        except InputFileError as e:
            raise RecordError(str(e)) from None
        if got != self.dice_set_sha256:
            raise RecordError(f"dice set {path!r} is not the file this game was played with (its SHA-256 is "
                              f"{got[:16]}..., the record's is {self.dice_set_sha256[:16]}...): the file was "
                              "edited, or a relative path now names another file; replay from the directory the "
                              "game was recorded in, with the original dice set")

    def to_dict(self) -> dict[str, Any]:
        """The record as plain data, in the ``uno-env-record`` format."""
        d = {
            "format": FORMAT, "version": VERSION, "game": self.game, "num_players": int(self.num_players),
            "rules": dict(self.rules), "seed": int(self.seed), "agents": list(self.agents),
            "actions": [int(a) for a in self.actions], "result": self.result,
        }
        if self.dice_set_sha256 is not None:  # only then: card-game records stay as older uno-env reads them
            d["dice_set_sha256"] = self.dice_set_sha256
        return d

    def to_json(self) -> str:
        """The record as compact JSON."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: Any) -> GameRecord:
        """A record from plain data; RecordError names the first bad field."""
        if not isinstance(d, Mapping):
            raise RecordError(f"a record must be a JSON object, got {_short(d)}")
        if d.get("format") != FORMAT:
            raise RecordError(f"record field 'format': expected {FORMAT!r}, got {_short(d.get('format'))}; "
                              "this is not an uno-env game record")
        if d.get("version") == 1 and d.get("game") == "dice":
            raise RecordError("record field 'version': version-1 UNO Dice records play dice by face; this uno-env "
                              "plays them by die (version 2), so their action ids mean other moves: record again")
        if d.get("version") not in (1, VERSION) or not _is_int(d.get("version")):
            raise RecordError(f"record field 'version': this uno-env reads version {VERSION} (card games: 1 too), "
                              f"got {_short(d.get('version'))}")
        known = {"format", "version", "game", "num_players", "rules", "seed", "agents", "actions", "result",
                 "dice_set_sha256"}
        missing = sorted(known - {"agents", "result", "dice_set_sha256"} - set(d))
        if missing:
            raise RecordError(f"record is missing the field(s) {', '.join(missing)}")
        unknown = sorted(str(k) for k in set(d) - known)
        if unknown:
            raise RecordError(f"record has unknown field(s) {_short(', '.join(unknown))}")
        return cls(game=d["game"], num_players=d["num_players"], rules=d["rules"], seed=d["seed"],
                   actions=d["actions"], agents=d.get("agents", []), result=d.get("result"),
                   dice_set_sha256=d.get("dice_set_sha256"))

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        """A record from JSON text (size-capped); RecordError for bad JSON or a bad field."""
        if len(text) > MAX_RECORD_BYTES:
            raise RecordError(f"record is {len(text)} bytes; at most {MAX_RECORD_BYTES} are read")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as e:  # RecursionError: absurdly deep nesting
            raise RecordError(f"record is not valid JSON: {_short(str(e), 120)}") from None
        return cls.from_dict(data)


def save_record(path: str | os.PathLike, rec: GameRecord) -> None:
    """Write ``rec`` as JSON to ``path`` (the directory must exist)."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(rec.to_json())
        fh.write("\n")


def load_record(path: str | os.PathLike) -> GameRecord:
    """Read and validate a record; a :class:`RecordError` names what is wrong (format, version, field)."""
    path = os.fspath(path)
    try:
        text = read_bytes(path, "record", MAX_RECORD_BYTES, pipe_ok=True)  # uno-env replay <(...)
    except InputFileError as e:
        raise RecordError(str(e)) from None
    try:
        return GameRecord.from_json(text)
    except RecordError as e:
        raise RecordError(f"record {path!r}: {e}") from None


# ---------------------------------------------------------------------------------------------- replaying
@dataclass
class ReplayStep:
    """The game after ``index`` actions of the record (``index`` 0: the deal, before any action).

    ``env`` is the live replay environment (the same object at every step; copy what you keep);
    ``agent``/``action``/``action_name`` describe the action that led here (``None`` at index 0).
    """

    index: int
    env: Any
    agent: str | None = None
    action: int | None = None
    action_name: str | None = None


def record_result(env, totals: Sequence[float] | np.ndarray, steps: int) -> dict[str, Any]:
    """The ``result`` entry for a game played in the AEC ``env`` (``totals``: each seat's summed rewards)."""
    st = env.unwrapped.game_view
    done = st.done
    winner = None if done == 0 else (-1 if done == 2 else st.match_winner)
    return {"winner": winner, "rewards": [float(x) for x in totals], "steps": int(steps)}


def replay(rec: GameRecord, render_mode: str | None = None) -> Iterator[ReplayStep]:
    """Yield the game after the deal and after each recorded action; raise :class:`RecordError` (naming the step)
    when an action is not legal, the game ends before the actions do, or the end differs from ``rec.result``."""
    from .aec import raw_env

    rec.check_dice_set()
    env = raw_env(rec.game, num_players=rec.num_players, rules=rec.rule_config(), render_mode=render_mode)
    env.reset(seed=int(rec.seed))
    names = env.action_names
    totals = np.zeros(env.num_agents, dtype=np.float64)
    yield ReplayStep(0, env)
    for i, action in enumerate(rec.actions):
        agent = env.agent_selection
        if not env.agents or env.terminations[agent] or env.truncations[agent]:
            raise RecordError(f"step {i}: the game is over after {i} actions, but the record has "
                              f"{len(rec.actions)}")
        mask = env.observe(agent)["action_mask"]
        if not 0 <= action < len(names) or not mask[action]:
            legal = ", ".join(names[a] for a in np.flatnonzero(mask)[:12])
            what = f"{action} ({names[action]!r})" if 0 <= action < len(names) else f"{action} (out of range)"
            raise RecordError(f"step {i}: action {what} is not legal for {agent}; legal now: {legal}")
        name = env.unwrapped.game.describe_action(int(action), env.unwrapped.game_view.row)
        env.step(int(action))
        totals += [env.rewards[a] for a in env.possible_agents]
        yield ReplayStep(i + 1, env, agent, int(action), name)
    if rec.result is not None:
        got = record_result(env, totals, len(rec.actions))
        want = rec.result
        if got["winner"] != want["winner"] or not np.allclose(got["rewards"], want["rewards"], rtol=0, atol=1e-5):
            raise RecordError(f"step {len(rec.actions)}: the replay ends with winner {got['winner']} and rewards "
                              f"{got['rewards']}, but the record says winner {want['winner']} and rewards "
                              f"{want['rewards']}")


def save_arena_games(directory: str | os.PathLike, rules: RuleConfig, games: Sequence[tuple[int, Sequence[str],
                     Mapping[str, Any]]]) -> list[str]:
    """Write one record per arena game into ``directory`` (created if needed); return the paths.

    ``games``: ``(index, seat labels, play_game result)``; the result holds ``seed`` (the env seed of the deal),
    ``actions``, ``winner`` and ``rewards``.
    """
    os.makedirs(directory, exist_ok=True)
    paths = []
    rule_dict = rules.to_dict()
    dice_path = _custom_dice_set(rules.game, rule_dict)
    digest = None if dice_path is None else _dice_set_digest(dice_path)
    for index, labels, res in games:
        n = int(rules.num_players or 0)  # an option of every game: never None
        rec = GameRecord(game=rules.game, num_players=n, rules=rule_dict, seed=int(res["seed"]),
                         actions=[int(a) for a in res["actions"]], agents=list(labels),
                         result={"winner": res["winner"], "rewards": list(res["rewards"]),
                                 "steps": len(res["actions"])}, dice_set_sha256=digest)
        path = os.path.join(os.fspath(directory), f"game_{index:06d}.json")
        save_record(path, rec)
        paths.append(path)
    return paths
