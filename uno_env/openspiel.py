"""The three games as OpenSpiel games: ``pyspiel.load_game("uno_env_classic")``, ``uno_env_pocket``, ``uno_env_dice``.

Importing this module registers them (it needs OpenSpiel: ``pip install "uno-env[openspiel]"``). Then OpenSpiel's
own tools run on the games of this package, on the same compiled rules core as the PettingZoo and Gymnasium
environments::

    import pyspiel
    import uno_env.openspiel  # registers the games
    game = pyspiel.load_game("uno_env_classic(players=4,rules=official)")
    state = game.new_initial_state()

Parameters: ``players`` (each game's range; by default as many as the rules say, 2 for a preset) and ``rules``
(a preset name such as ``standard``, ``official`` or ``rlcard``, or a YAML rules file; default ``standard``).

What OpenSpiel sees:

* **The deal is chance, explicit** (``EXPLICIT_STOCHASTIC``): a game starts with four chance nodes of 256 equally
  likely outcomes each, the bytes of a deal number ``d`` (most significant first). After them the game is the one
  ``uno_env.env(...).reset(seed=d)`` deals, and everything later that is random (reshuffles, draws, rolls) comes
  from that deal's own random stream, as in the other environments: a trajectory here and in the AEC environment
  can be compared step by step. So OpenSpiel's own chance sampling (``rl_environment``'s seed, a bot's
  ``random_state``) decides the deals, and the game object keeps no random state. ``game.new_initial_state(d)``
  (this package's shortcut) returns the state after the four chance actions of ``d``.
* **Observations, not information states.** ``observation_tensor(player)`` is the environment's observation of that
  seat (the same float32 vector, :attr:`UnoGame.observation_layout` names its blocks; all zeros before the deal)
  and ``observation_string`` lists its non-zero entries by block. Neither depends on anything the seat may not know
  (the privacy tests of the environment hold for it); the deal bytes are not observed. There is no perfect-recall
  information state: asking for one raises an error, as ``provides_information_state_*`` says.
* **Returns** are the environment's rewards summed (the ``reward`` option: ``win_loss``, +1 for the winner and
  -1/(n-1) for the others, a zero-sum game; or ``points``, a general-sum one), delivered as they are paid
  (``rewards()``): at the end (``RewardModel.TERMINAL``), or every round in a match scored by points
  (``REWARDS``). A game cut off at ``max_turns`` ends with what it had.
* **Actions** are the environment's action ids (:attr:`UnoGame.action_names`); an illegal or out-of-range action
  raises ``ValueError`` and leaves the state as it was (-1 is OpenSpiel's invalid action, which pyspiel refuses
  itself).
* **``resample_from_infostate(player, sampler)``** returns a state drawn uniformly among those ``player`` cannot
  tell from this one (the compiled determinization the ``ismcts`` agent searches on): the hidden hands and the
  draw pile are redrawn, in UNO Dice the future rolls. So OpenSpiel's information-set search
  (``open_spiel.python.algorithms.ismcts.ISMCTSBot``, with ``use_observation_string=True``) plays these games.
  ``sampler`` is OpenSpiel's ``UniformProbabilitySampler`` (seed it for repeatable samples), or any zero-argument
  callable or object with ``random()`` giving floats in [0, 1). The sample's ``history()`` is empty: it is a
  state, not a replay of the actions that led to one.

``pyspiel.serialize_game_and_state``, ``copy.deepcopy`` and ``pickle`` keep a state exactly.  A deserialized state
goes through the one state check of the environments (its state row, deal and rewards, against the game it is
deserialized with) and is refused with ``ValueError`` if it does not hold together.  pyspiel serializes a Python
game's state by pickling its fields (OpenSpiel's design for Python games), so deserialize and unpickle only what you
made yourself.
"""
from __future__ import annotations

from typing import Any, cast

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError("uno_env.openspiel needs OpenSpiel: pip install \"uno-env[openspiel]\" (the open_spiel "
                      "package)") from exc

from .config import GAMES, OPTIONS, make_rules
from .core import engine as E
from .core.cards import COL_COUNT, COL_POINTS
from .core.game import Game
from .core.layout import MAX_ITEMS, MAX_PLAYERS, StateView
from .core.observe import observe_one
from .core.step_result import decode_step
from .players.determinize import SAMPLE_OK, determinize
from .render import render_ansi
from .seeding import episode_seed
from .yaml_io import short_repr

#: OpenSpiel's name of each game
SHORT_NAMES = {game: f"uno_env_{game}" for game in GAMES}
#: chance nodes before the deal, and the outcomes of each: the bytes of the deal number
DEAL_BYTES = 4
DEAL_LIMIT = 256**DEAL_BYTES
_CHANCE_OUTCOMES = [(byte, 1.0 / 256) for byte in range(256)]
_RULES_PLAYERS = -1  # the players parameter's default: as many as the rules say (2 for a preset)


class _Shared:
    """The immutable data of one configured game, shared by all its states: ``copy.deepcopy`` (which pyspiel's
    ``clone()`` applies to every field of a Python state) returns it as is, and pickling rebuilds it from the rules."""

    def __init__(self, rules: Any):
        self.core = Game(rules)
        self.cfg, self.spec, self.dice = self.core.cfg, self.core.spec, self.core.dice
        self.offsets = self.core.obs_offsets
        self.num_players = self.core.num_players
        self.num_actions = self.core.num_actions
        # every observation entry's name for observation strings: block[kind name] where a block has one entry per
        # kind, else block[index]
        k = self.core.num_kinds
        kinds = self.core.kinds.names
        self.entry_names = [f"{name}[{kinds[i] if size == k else i}]"
                            for _, size, name, _ in self.core.observation_layout for i in range(size)]

    def __deepcopy__(self, memo: dict) -> _Shared:
        return self

    def __reduce__(self):
        return (_shared_from_dict, (self.core.rules.to_dict(),))


def _shared_from_dict(rules: dict) -> _Shared:
    return _Shared(make_rules(rules["game"], None, rules))


def _game_type(game: str, zero_sum: bool, terminal_rewards: bool) -> Any:
    lo, hi = OPTIONS["num_players"].allowed_for(game)
    return pyspiel.GameType(
        short_name=SHORT_NAMES[game],
        long_name={"classic": "UNO (uno-env)", "pocket": "UNO Pocket Pizza Pizza (uno-env)",
                   "dice": "UNO Dice (uno-env)"}[game],
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=(pyspiel.GameType.RewardModel.TERMINAL if terminal_rewards
                      else pyspiel.GameType.RewardModel.REWARDS),
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": _RULES_PLAYERS, "rules": "standard"},
    )


def _utility_bounds(shared: _Shared) -> tuple[float, float]:
    """(min, max) of a seat's return under the rules' ``reward`` and ``episode`` options."""
    rules = shared.core.rules
    n = shared.num_players
    if rules.reward == "win_loss":
        return -1.0 / (n - 1), 1.0
    spec = shared.spec
    # the most points one round can move, over the target (a winner scores the other hands, a loser pays its own)
    target = float(cast(int, rules.target_score))  # an option of every game, never None
    round_points = float((spec[:, COL_POINTS] * np.maximum(spec[:, COL_COUNT], 6)).sum()) / target
    if rules.episode == "round":
        return -round_points, round_points
    # a match: a seat's gains stop once it reaches the target (at most one round's points past it); every seat's
    # losses are the others' gains, which end below the target for all but the winner
    return -(n + round_points), 1.0 + round_points


class UnoGame(pyspiel.Game):
    """One of the three games under one set of rules, as an OpenSpiel game (see the module's docstring)."""

    game_name = "classic"

    def __init__(self, params: dict | None = None):
        params = dict(params or {})
        unknown = set(params) - {"players", "rules"}
        if unknown:
            raise ValueError(f"{SHORT_NAMES[self.game_name]}: unknown parameter(s) {', '.join(sorted(unknown))}; "
                             f"the parameters are players, rules")
        players = params.get("players", _RULES_PLAYERS)
        rules_name = params.get("rules", "standard")
        if not isinstance(rules_name, str):
            raise TypeError(f"{SHORT_NAMES[self.game_name]}: rules must be a preset name or a YAML rules file; "
                            f"got {type(rules_name).__name__}")
        # pyspiel fills in every parameter's default before a game is made, so "not given" is a value of its own:
        # a rules file that names its player count then needs no players parameter
        rules = make_rules(self.game_name, None if players == _RULES_PLAYERS else players, rules_name)
        self._shared = _Shared(rules)
        self.rules = rules
        lo, hi = _utility_bounds(self._shared)
        zero_sum = rules.reward == "win_loss"
        info = pyspiel.GameInfo(
            num_distinct_actions=self._shared.num_actions,
            max_chance_outcomes=256,
            num_players=self._shared.num_players,
            min_utility=lo,
            max_utility=hi,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=int(cast(int, rules.max_turns)),
        )
        # a match scored by points pays every round; otherwise the only reward is at the end (OpenSpiel's MCTSBot
        # asks for that)
        terminal = not (rules.reward == "points" and rules.episode == "match")
        super().__init__(_game_type(self.game_name, zero_sum, terminal), info,
                         {"players": self._shared.num_players, "rules": rules_name})

    @property
    def action_names(self) -> list[str]:
        """The name of every action id (as the environment's ``action_names``)."""
        return list(self._shared.core.action_names)

    @property
    def core_game(self) -> Game:
        """The compiled core's static game data (what ``load_agent`` and the agents take as the game)."""
        return self._shared.core

    @property
    def observation_layout(self) -> list[tuple[int, int, str, str]]:
        """``(offset, length, name, description)`` of every block of the observation tensor."""
        return list(self._shared.core.observation_layout)

    def new_initial_state(self, deal: int | None = None) -> UnoState:
        """A new game at its first chance node; with ``deal`` (this package's shortcut, an int in [0, 2**32)) the
        state after the four chance actions of that deal number, the game of ``env.reset(seed=deal)``."""
        state = UnoState(self, self._shared)
        if deal is not None:
            if not _int_in(deal, 0, DEAL_LIMIT):
                raise ValueError(f"deal must be an int in [0, 2**32) or None; got {deal!r}")
            for shift in range(8 * (DEAL_BYTES - 1), -1, -8):
                state.apply_action((int(deal) >> shift) & 255)
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> UnoObserver:
        """OpenSpiel's observer hook: the seat's observation (public information plus its own private part)."""
        return UnoObserver(self._shared, iig_obs_type, params)


class ClassicGame(UnoGame):
    """``uno_env_classic``: classic UNO, 2-10 players."""

    game_name = "classic"


class PocketGame(UnoGame):
    """``uno_env_pocket``: UNO Pocket Pizza Pizza, 2-5 players."""

    game_name = "pocket"


class DiceGame(UnoGame):
    """``uno_env_dice``: UNO Dice, 2-4 players."""

    game_name = "dice"


GAME_CLASSES = {"classic": ClassicGame, "pocket": PocketGame, "dice": DiceGame}


class _Progress:
    """A game in progress, everything an :class:`UnoState` holds: the deal's bytes so far, the core's state row and
    random stream from the deal on, the returns so far, and what follows from them (the legal mask, its actions,
    the player to act), kept so that search loops, which ask after every action, read a field.

    A pickle (what ``pyspiel.serialize_game_and_state``, ``copy.deepcopy`` and ``pickle`` of a state carry)
    holds only the first four; the rest is computed again when it is loaded into a state, after the one state check
    (``UnoState.__setattr__``)."""

    __slots__ = ("shared", "deal", "chance_left", "row", "rng", "step_rewards", "returns", "mask", "legal", "player")

    def __init__(self, shared: _Shared | None):
        self.shared = shared  # None for an unpickled one, until it is checked against a state's game
        self.deal = 0  # the deal number's bytes so far, most significant first
        self.chance_left = DEAL_BYTES
        self.row: np.ndarray | None = None
        self.rng: np.ndarray | None = None
        self.step_rewards = np.zeros(MAX_PLAYERS, dtype=np.float32)
        self.returns = np.zeros(0 if shared is None else shared.num_players, dtype=np.float64)
        self.mask = np.zeros(0 if shared is None else shared.num_actions, dtype=np.int8)
        self.legal: list[int] | None = []  # the mask's actions, listed when first asked for
        self.player = int(pyspiel.PlayerId.CHANCE)

    def __reduce__(self) -> tuple[Any, ...]:
        return _unpickled_progress, (self.deal, self.chance_left, self.row, self.rng, self.step_rewards, self.returns)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Progress:
        # a state's clone(): a copy of a checked progress of the same game, so nothing is checked again
        copy = _Progress.__new__(_Progress)
        copy.shared, copy.deal, copy.chance_left, copy.player = self.shared, self.deal, self.chance_left, self.player
        copy.row = None if self.row is None else self.row.copy()
        copy.rng = None if self.rng is None else self.rng.copy()
        copy.step_rewards, copy.returns, copy.mask = self.step_rewards.copy(), self.returns.copy(), self.mask.copy()
        copy.legal = None if self.legal is None else list(self.legal)
        return copy

    def start(self, row: np.ndarray, rng: np.ndarray) -> None:
        """Take the core's state row and random stream (the deal, or a sampled state) and what follows from it."""
        sh = cast(_Shared, self.shared)
        self.row, self.rng, self.chance_left = row, rng, 0
        E.legal_mask(row, sh.cfg, sh.spec, sh.dice, self.mask)
        self.legal = None
        view = StateView(row)
        self.player = int(pyspiel.PlayerId.TERMINAL) if view.done else int(view.cur)

    def adopt(self, shared: _Shared, history: list[int], move_number: int) -> None:
        """Check an unpickled progress against ``shared``'s game and the ``history`` pyspiel restored beside it,
        and complete it; ``ValueError`` naming what does not hold together (the deal, the state row by the one
        state check, the rewards)."""
        n = shared.num_players
        if type(self.chance_left) is not int or not 0 <= self.chance_left <= DEAL_BYTES:
            raise ValueError(f"a serialized {SHORT_NAMES[shared.core.name]} state: the chance nodes left must be an "
                             f"int in 0..{DEAL_BYTES}, got {short_repr(self.chance_left)}")
        if type(self.deal) is not int or not 0 <= self.deal < 256 ** (DEAL_BYTES - self.chance_left):
            raise ValueError(f"a serialized state: the deal's bytes so far are not {DEAL_BYTES - self.chance_left} "
                             f"bytes, got {short_repr(self.deal)}")
        _check_floats("the rewards of the last action", self.step_rewards, (MAX_PLAYERS,), np.float32)
        _check_floats("the returns", self.returns, (n,), np.float64)
        if self.step_rewards[n:].any():
            raise ValueError("a serialized state: rewards were paid to seats the game does not have")
        _check_deal(self.deal, self.chance_left, history, move_number)
        row, rng = self.row, self.rng
        self.shared, self.mask = shared, np.zeros(shared.num_actions, dtype=np.int8)
        if self.chance_left:
            if row is not None or rng is not None or self.returns.any() or self.step_rewards.any():
                raise ValueError("a serialized state: before the deal there is no state row and nothing is paid")
            return
        if not isinstance(rng, np.ndarray) or rng.dtype != np.uint64 or rng.shape != (1,):
            raise ValueError(f"a serialized state: the random stream must be a uint64 array of shape (1,), got "
                             f"{short_repr(rng)}")
        if not isinstance(row, np.ndarray):
            raise ValueError(f"a serialized state: its state row must be an array, got {short_repr(row)}")
        problem = shared.core.state_problem(row)
        if problem:
            raise ValueError(f"a serialized state does not hold together: {problem}")
        if history and len(history) - DEAL_BYTES != StateView(row).turns:  # (a sampled state has no history)
            raise ValueError(f"a serialized state: its history holds {len(history) - DEAL_BYTES} decisions, its "
                             f"state {StateView(row).turns}")
        _check_paid(shared, self.returns, self.step_rewards, StateView(row).done != 0)
        self.start(np.array(row), np.array(rng))


def _check_deal(deal: int, chance_left: int, history: list[int], move_number: int) -> None:
    """The deal's bytes so far are the history's first actions (a state sampled by ``resample_from_infostate``
    has no history: then there is nothing to compare)."""
    if not history:
        return
    if move_number != len(history):
        raise ValueError(f"a serialized state: move number {move_number} for a history of {len(history)} actions")
    dealt = min(len(history), DEAL_BYTES)
    expected = 0
    for byte in history[:dealt]:
        expected = (expected << 8) | byte
    if chance_left != DEAL_BYTES - dealt or deal != expected:
        raise ValueError(f"a serialized state: its deal ({DEAL_BYTES - chance_left} bytes, {deal}) is not the "
                         f"history's first actions ({history[:dealt]})")


def _check_paid(shared: _Shared, returns: np.ndarray, step_rewards: np.ndarray, over: bool) -> None:
    """Returns a game can pay: within the utility bounds, summing to 0 in a zero-sum game, and nothing paid before
    the end where the rewards come only at the end (``RewardModel.TERMINAL``)."""
    lo, hi = _utility_bounds(shared)
    rules = shared.core.rules
    if (returns < lo - 1e-6).any() or (returns > hi + 1e-6).any():
        raise ValueError(f"a serialized state: returns {returns.tolist()} outside the game's utilities {lo}..{hi}")
    if rules.reward == "win_loss" and abs(float(returns.sum())) > 1e-6:
        raise ValueError(f"a serialized state: returns {returns.tolist()} do not sum to 0 in a zero-sum game")
    terminal_rewards = not (rules.reward == "points" and rules.episode == "match")
    if terminal_rewards and not over and (returns.any() or step_rewards.any()):
        raise ValueError("a serialized state: rewards are paid only at the end of the game, and it is running")


def _check_floats(what: str, x: Any, shape: tuple[int, ...], dtype: Any) -> None:
    if not isinstance(x, np.ndarray) or x.dtype != dtype or x.shape != shape or not np.isfinite(x).all():
        raise ValueError(f"a serialized state: {what} must be finite {np.dtype(dtype).name} values of shape "
                         f"{shape}, got {short_repr(x)}")


def _unpickled_progress(deal: Any, chance_left: Any, row: Any, rng: Any, step_rewards: Any, returns: Any) -> _Progress:
    """A progress as a pickle holds it: unchecked, until it is set on a state (:class:`_CheckedProgress`)."""
    p = _Progress(None)
    p.deal, p.chance_left, p.row, p.rng, p.step_rewards, p.returns = deal, chance_left, row, rng, step_rewards, returns
    return p


class UnoState(pyspiel.State):
    """A game in progress: the state row and random stream of the compiled core, and the returns so far."""

    _p: _Progress  # the state's one attribute (:meth:`__setattr__`)

    def __init__(self, game: UnoGame, shared: _Shared):
        super().__init__(game)
        self._p = _Progress(shared)

    def __setattr__(self, name: str, value: Any) -> None:
        """The state's one attribute, ``_p`` (a :class:`_Progress`), checked when it is set.

        pyspiel rebuilds a state (``deserialize_game_and_state``, ``pickle``, ``copy.deepcopy``, ``clone()``) by
        making the game's initial state and setting every attribute of the pickled ``__dict__`` on it: an unpickled
        progress arrives here, is checked against the state's own game (the one state check for its row) and
        against the history pyspiel restored, and is completed, or refused with ``ValueError``; so is any other
        attribute.  Nothing unchecked reaches the compiled core.  Play sets no attribute of the state (it changes
        the progress), so this costs nothing while playing."""
        if name != "_p":
            raise ValueError(f"a uno_env state holds its game in one attribute, '_p'; {name!r} is not one of its "
                             f"attributes (a state serialized by another version of uno-env?)")
        if not isinstance(value, _Progress):
            raise TypeError(f"a uno_env state's game is a progress object, got {type(value).__name__}")
        current = self.__dict__.get("_p")
        if current is not None:
            if value.shared is None:
                value.adopt(current.shared, self.history(), self.move_number())
            elif value.shared is not current.shared and \
                    value.shared.core.rules_dict != current.shared.core.rules_dict:
                raise ValueError("a copied state belongs to another game or other rules")
        elif value.shared is None:
            raise ValueError("an unpickled progress needs a state of its game")
        self.__dict__["_p"] = value

    def current_player(self) -> int:
        """The seat to act; ``PlayerId.CHANCE`` before the deal, ``PlayerId.TERMINAL`` once the game is over."""
        return self._p.player

    def is_terminal(self) -> bool:
        """Whether the game is over (won, or cut off at ``max_turns``)."""
        return self._p.player == pyspiel.PlayerId.TERMINAL

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The 256 equally likely bytes of the deal number (a chance node is one of the game's first four)."""
        if self._p.row is not None:
            raise ValueError("chance_outcomes: the deal is done; chance nodes are the game's first four")
        return list(_CHANCE_OUTCOMES)

    def _legal_actions(self, player: int) -> list[int]:
        p = self._p
        if p.legal is None:
            p.legal = np.flatnonzero(p.mask).tolist()
        return list(p.legal)

    def _apply_action(self, action: int) -> None:
        p = self._p
        if p.row is None:
            if not _int_in(action, 0, 256):
                raise ValueError(f"chance outcome {action!r} is out of range [0, 256) (a byte of the deal number)")
            p.deal = (p.deal << 8) | int(action)
            p.chance_left -= 1
            if p.chance_left == 0:
                self._start(p.deal)
            return
        st = p.row
        sh = cast(_Shared, p.shared)
        if p.player == pyspiel.PlayerId.TERMINAL:
            raise ValueError("the game is over: no action applies to a terminal state")
        if not _int_in(action, 0, sh.num_actions):
            raise ValueError(f"action {action!r} is out of range [0, {sh.num_actions})")
        if not p.mask[action]:
            legal = ", ".join(f"{a} ({sh.core.action_names[a]})" for a in np.flatnonzero(p.mask))
            raise ValueError(f"action {action} ({sh.core.action_names[action]}) is not legal for player "
                             f"{StateView(st).cur} now; legal: {legal}")
        code = E.step_masked(st, p.rng, sh.cfg, sh.spec, sh.dice, int(action), p.mask, p.step_rewards)
        status, rewarded, done, seat = decode_step(code)
        if status:  # the mask said legal: the core disagreeing is a bug, not bad input
            raise RuntimeError(f"core rejected action {action} with code {code}")
        p.legal = None
        p.player = int(pyspiel.PlayerId.TERMINAL) if done else seat
        if rewarded:
            p.returns += p.step_rewards[: sh.num_players]

    def _start(self, deal: int) -> None:
        p = self._p
        sh = cast(_Shared, p.shared)
        rows, rngs = sh.core.new_states(1)
        E.reset_one(rows[0], rngs[0], sh.cfg, sh.spec, sh.dice, episode_seed(deal, 0))  # as env.reset(seed=deal)
        p.start(rows[0], rngs[0])

    def _action_to_string(self, player: int, action: int) -> str:
        p = self._p
        sh = cast(_Shared, p.shared)
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal byte {action}"
        if p.row is None or not 0 <= action < sh.num_actions:
            return f"action {action}"
        return sh.core.describe_action(int(action), p.row)

    def rewards(self) -> list[float]:
        """The rewards of the last action, one per player."""
        p = self._p
        return [float(r) for r in p.step_rewards[: cast(_Shared, p.shared).num_players]]

    def returns(self) -> list[float]:
        """Every player's rewards so far, summed."""
        return [float(r) for r in self._p.returns]

    def __str__(self) -> str:
        p = self._p
        if p.row is None:
            return f"dealing: {DEAL_BYTES - p.chance_left} of {DEAL_BYTES} bytes of the deal number chosen"
        return render_ansi(cast(_Shared, p.shared).core, p.row)

    def observe(self, player: int, out: np.ndarray) -> None:
        """Write ``player``'s observation into ``out`` (float32, the observation size; zeros before the deal)."""
        p = self._p
        sh = cast(_Shared, p.shared)
        _check_player(player, sh.num_players)
        if p.row is None:
            out[:] = 0.0
            return
        observe_one(p.row, sh.cfg, sh.spec, sh.offsets, player, out)

    def core_state(self) -> np.ndarray:
        """A copy of the compiled core's state row, every hidden card in it: what the arena hands a search agent
        (``ismcts``'s ``act_from_state``), which reads it only through the determinization. Raises before the deal."""
        if self._p.row is None:
            raise ValueError("core_state: nothing is dealt yet (a chance node)")
        return self._p.row.copy()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> UnoState:
        """A state drawn uniformly among those ``player_id`` cannot tell from this one (see the module docstring)."""
        p = self._p
        sh = cast(_Shared, p.shared)
        _check_player(player_id, sh.num_players)
        if p.row is None:
            raise ValueError("resample_from_infostate: nothing is dealt yet (a chance node); resample after the deal")
        word = np.array([_random_word(probability_sampler)], dtype=np.uint64)
        sample = UnoState(self.get_game(), sh)
        rows, rngs = sh.core.new_states(1)
        pool = np.zeros(MAX_ITEMS, dtype=np.int32)
        if determinize(p.row, sh.cfg, sh.spec, player_id, rows[0], rngs[0], word, pool) != SAMPLE_OK:
            raise ValueError("this state's public counts do not add up (an edited state?): no sample fits it")
        q = sample._p
        q.start(rows[0], rngs[0])
        q.returns[:] = p.returns  # rewards paid so far are public
        q.step_rewards[:] = p.step_rewards
        return sample


class UnoObserver:
    """OpenSpiel's Python observer interface: ``tensor`` (the observation), ``dict``, ``set_from``, ``string_from``."""

    def __init__(self, shared: _Shared, iig_obs_type: Any, params: Any):
        if params:
            raise ValueError(f"uno_env observers take no parameters; got {params!r}")
        if iig_obs_type is not None and (iig_obs_type.perfect_recall or not iig_obs_type.public_info
                                         or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError(
                "uno_env games give each seat its observation (public information and its own private part, "
                "without perfect recall): observation_tensor / observation_string. There is no information state "
                "(perfect recall) and no public-only or all-private observation; for OpenSpiel's ISMCTSBot use "
                "use_observation_string=True")
        self._shared = shared
        self.tensor = np.zeros(shared.core.obs_dim, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: UnoState, player: int) -> None:
        """Write ``player``'s observation of ``state`` into ``tensor``."""
        state.observe(player, self.tensor)

    def string_from(self, state: UnoState, player: int) -> str:
        """The non-zero entries of ``player``'s observation by name (``hand[red 5]=2``): equal strings, equal
        observations."""
        obs = np.empty(self._shared.core.obs_dim, dtype=np.float32)
        state.observe(player, obs)
        nz = np.flatnonzero(obs)
        names = self._shared.entry_names
        return f"player {player}: " + " ".join(f"{names[i]}={v:g}" for i, v in zip(nz.tolist(), obs[nz].tolist()))


def _check_player(player: Any, n: int) -> None:
    if not _int_in(player, 0, n):
        raise ValueError(f"player must be an int in [0, {n}); got {player!r}")


def _int_in(value: Any, lo: int, hi: int) -> bool:
    """``value`` is an int (not a bool) with ``lo <= value < hi``."""
    return (isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
            and lo <= int(value) < hi)


def _random_word(sampler: Any) -> int:
    """A 64-bit word from two uniform draws of ``sampler`` (a callable or an object with ``random()``)."""
    draw = sampler if callable(sampler) else getattr(sampler, "random", None)
    if draw is None:
        raise TypeError("the sampler must be callable (pyspiel.UniformProbabilitySampler) or have random(), giving "
                        f"floats in [0, 1); got {type(sampler).__name__}")
    word = 0
    for _ in range(2):
        u = draw()
        if isinstance(u, bool) or not isinstance(u, (float, int, np.floating)) or not 0.0 <= float(u) < 1.0:
            raise ValueError(f"the sampler must give floats in [0, 1); got {u!r}")
        word = (word << 32) | int(float(u) * 2**32)
    return word


def register() -> None:
    """Register the three games with pyspiel (importing this module does it; calling it again does nothing)."""
    known = set(pyspiel.registered_names())
    for game, cls in GAME_CLASSES.items():
        if SHORT_NAMES[game] not in known:
            pyspiel.register_game(_game_type(game, True, True), cls)


register()
