"""Competitor loops for the side-by-side benchmarks (RLCard UNO, OpenSpiel crazy_eights).

Each ``*_loop`` function builds its competitor in *this* process and returns a burst function: ``burst(seconds)``
runs it for ``seconds`` of wall time and returns steps per second, with the game and random stream kept between
bursts, so a caller can alternate competitors' bursts with uno-env's own (``bench_aec.py``).  Each
``*_steps_per_sec`` function runs ``repeats`` bursts back to back and returns one figure per repeat. Importing
this module has no side effects: the competitor libraries are imported lazily inside each function, and a
missing one raises ``ImportError`` saying how to get it (``pip install -e .[bench]``).

What a "step" is, per loop:

* ``rlcard_uno_loop``: one ``env.step`` call of RLCard's own environment (``rlcard.make('uno')``),
  driven by a uniformly random legal action, full games back to back. This is RLCard's standard agent loop,
  including its state extraction (observation encoding and legal-action dict) on every step.
* ``openspiel_crazy_eights_loop(mode="rl_env")``: one ``rl_environment.Environment.step`` call
  (OpenSpiel's Python RL wrapper; it builds observation tensors and legal-action lists for every player, and
  resolves chance nodes internally).
* ``openspiel_crazy_eights_loop(mode="raw")``: one player ``state.apply_action`` on the C++ state;
  chance outcomes (deals, draws) are sampled and applied too but not counted. No observation tensors are
  built, so this is the bare C++ rules engine, with pybind11 call overhead.

``openspiel_crazy_eights_mcts`` is the search reference (``bench_search.py``): OpenSpiel's C++ ``MCTSBot``
choosing for one seat of ``crazy_eights``, timed per decision.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

__all__ = ["rlcard_uno_loop", "openspiel_crazy_eights_loop", "rlcard_uno_steps_per_sec",
           "openspiel_crazy_eights_steps_per_sec", "openspiel_crazy_eights_mcts"]

_BENCH_HINT = "pip install -e .[bench]"


def _import_rlcard():
    try:
        import rlcard  # noqa: PLC0415
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(f"RLCard is not installed; run `{_BENCH_HINT}` (needs the 'rlcard' package)") from exc
    return rlcard


def _import_pyspiel():
    try:
        import pyspiel  # noqa: PLC0415
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"OpenSpiel is not installed; run `{_BENCH_HINT}` (needs the 'open_spiel' package)"
        ) from exc
    return pyspiel


class _Uniforms:
    """Uniform [0, 1) floats from a seeded ``numpy.random.Generator``, drawn in blocks.

    One ``Generator.integers`` call per step costs about 2 us, which is a visible share of OpenSpiel's raw C++
    loop (about 5 us a step) and of ``np.random.choice(p=...)`` for chance nodes (about 20 us). Drawing 64k
    floats at once and indexing a list keeps the harness's own cost near 0.3 us a draw, so the figures
    measure the competitor, not the random agent.
    """

    __slots__ = ("_rng", "_buf", "_i")
    _BLOCK = 1 << 16

    def __init__(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)
        self._buf: list[float] = []
        self._i = self._BLOCK
        self._refill()

    def _refill(self) -> None:
        self._buf = self._rng.random(self._BLOCK).tolist()
        self._i = 0

    def uniform(self) -> float:
        if self._i == self._BLOCK:
            self._refill()
        u = self._buf[self._i]
        self._i += 1
        return u

    def index(self, n: int) -> int:
        """Uniform integer in ``[0, n)``."""
        return min(int(self.uniform() * n), n - 1)

    def weighted(self, outcomes: list[tuple[int, float]]) -> int:
        """Sample an action from OpenSpiel ``chance_outcomes()`` pairs ``(action, probability)`` by probability."""
        u = self.uniform()
        acc = 0.0
        for action, prob in outcomes:
            acc += prob
            if u < acc:
                return action
        return outcomes[-1][0]  # rounding: the probabilities may sum to slightly under 1


def _check_budget(seconds: float, repeats: int) -> None:
    if seconds <= 0:
        raise ValueError(f"seconds must be > 0, got {seconds}")
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")


def rlcard_uno_loop(num_players: int = 2, seed: int = 0) -> Callable[[float], float]:
    """RLCard UNO as a burst function: ``burst(seconds)`` plays full games with uniformly random legal actions for
    ``seconds`` of wall time and returns its ``env.step`` calls per second.  The environment and the random stream
    live on between bursts, so bursts can alternate with other engines' (``bench_aec.py``)."""
    rlcard = _import_rlcard()
    env = rlcard.make("uno", config={"seed": seed, "game_num_players": num_players})
    rng = _Uniforms(seed)

    def burst(seconds: float) -> float:
        _check_budget(seconds, 1)
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            state, _pid = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"].keys())
                action = legal[rng.index(len(legal))]
                state, _pid = env.step(action)
                steps += 1
            # Check the clock between games only: a game is ~50 steps (a few ms), far below the budget.
            if time.perf_counter() >= deadline:
                break
        return steps / (time.perf_counter() - start)

    return burst


def openspiel_crazy_eights_loop(players: int = 2, seed: int = 0, mode: str = "rl_env") -> Callable[[float], float]:
    """OpenSpiel ``crazy_eights`` as a burst function (see :func:`rlcard_uno_loop`): player steps per second with
    uniformly random legal actions.

    ``mode="rl_env"`` counts ``rl_environment.Environment.step`` calls; ``mode="raw"`` counts non-chance
    ``state.apply_action`` calls on the C++ state (chance outcomes sampled by probability, not counted).
    """
    if mode not in ("rl_env", "raw"):
        raise ValueError(f"mode must be 'rl_env' or 'raw', got {mode!r}")
    pyspiel = _import_pyspiel()
    game = pyspiel.load_game("crazy_eights", {"players": players})
    rng = _Uniforms(seed)
    # Checking the clock every step would cost a visible share of the raw loop; check every 256 steps.
    check_every = 256

    if mode == "raw":
        raw_state = [game.new_initial_state()]

        def raw_burst(seconds: float) -> float:
            _check_budget(seconds, 1)
            steps = 0
            state = raw_state[0]
            start = time.perf_counter()
            deadline = start + seconds
            while True:
                for _ in range(check_every):
                    if state.is_terminal():
                        state = game.new_initial_state()
                    if state.is_chance_node():
                        state.apply_action(rng.weighted(state.chance_outcomes()))
                    else:
                        legal = state.legal_actions()
                        state.apply_action(legal[rng.index(len(legal))])
                        steps += 1
                if time.perf_counter() >= deadline:
                    break
            raw_state[0] = state
            return steps / (time.perf_counter() - start)

        return raw_burst

    try:
        from open_spiel.python import rl_environment  # noqa: PLC0415
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(f"open_spiel.python.rl_environment is missing; run `{_BENCH_HINT}`") from exc
    env = rl_environment.Environment(game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed))
    last = [env.reset()]

    def env_burst(seconds: float) -> float:
        _check_budget(seconds, 1)
        steps = 0
        time_step = last[0]
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            for _ in range(check_every):
                if time_step.last():
                    time_step = env.reset()
                cur = time_step.observations["current_player"]
                legal = time_step.observations["legal_actions"][cur]
                time_step = env.step([legal[rng.index(len(legal))]])
                steps += 1
            if time.perf_counter() >= deadline:
                break
        last[0] = time_step
        return steps / (time.perf_counter() - start)

    return env_burst


def rlcard_uno_steps_per_sec(
    seconds: float = 2.0, repeats: int = 5, num_players: int = 2, seed: int = 0
) -> list[float]:
    """RLCard UNO: ``env.step`` calls per second with uniformly random legal actions, full games; one figure per
    repeat of ``seconds``."""
    _check_budget(seconds, repeats)
    burst = rlcard_uno_loop(num_players, seed)
    return [burst(seconds) for _ in range(repeats)]


def openspiel_crazy_eights_steps_per_sec(
    seconds: float = 2.0,
    repeats: int = 5,
    players: int = 2,
    seed: int = 0,
    mode: str = "rl_env",
) -> list[float]:
    """OpenSpiel ``crazy_eights`` (see :func:`openspiel_crazy_eights_loop`): one steps-per-second figure per repeat
    of ``seconds``."""
    _check_budget(seconds, repeats)
    burst = openspiel_crazy_eights_loop(players, seed, mode)
    return [burst(seconds) for _ in range(repeats)]


def openspiel_crazy_eights_mcts(players: int = 2, sims: int = 200, games: int = 2, seed: int = 0,
                                playouts: int = 10) -> dict[str, float | None]:
    """OpenSpiel's C++ ``MCTSBot`` (UCT, ``uct_c=2``, ``RandomRolloutEvaluator`` with one uniformly random rollout a
    leaf, ``sims`` simulations a decision) playing one seat of ``crazy_eights`` against uniformly random players
    for ``games`` games, the searching seat moving one place each game.

    OpenSpiel has no UNO and no information-set search for ``crazy_eights`` (its ``ISMCTSBot`` needs
    ``ResampleFromInfostate``, which the game does not implement), so this is its perfect-information MCTS searching
    the true state: it samples no deal, which makes each simulation cheaper than an information-set search's.
    Decisions with one legal action are played without a search, as the ``ismcts`` agent does.

    Returns simulations per CPU second of the ``bot.step`` calls, CPU ms a decision, and ``decisions_per_sim``:
    the bot's simulations are not instrumented, so this is the mean number of player decisions (chance outcomes
    left out) of ``playouts`` uniformly random playouts from each searched position, untimed; a simulation is its
    tree descent then a random rollout to the end, about one such playout. ``playouts=0`` plays none (a repeat of
    the same games needs them once) and gives ``decisions_per_sim`` as None.
    """
    pyspiel = _import_pyspiel()
    if sims < 1 or games < 1 or playouts < 0:
        raise ValueError(f"sims and games must be >= 1 and playouts >= 0, got {sims}, {games}, {playouts}")
    game = pyspiel.load_game("crazy_eights", {"players": players})
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, sims, 1000, False, seed, False)
    rng = _Uniforms(seed)
    cpu, searches, playout_decisions, playout_count = 0.0, 0, 0, 0
    for g in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.weighted(state.chance_outcomes()))
                continue
            legal = state.legal_actions()
            if state.current_player() == g % players and len(legal) > 1:
                start = time.process_time()
                action = bot.step(state)
                cpu += time.process_time() - start
                searches += 1
                for _ in range(playouts):
                    sim = state.clone()
                    while not sim.is_terminal():
                        if sim.is_chance_node():
                            sim.apply_action(rng.weighted(sim.chance_outcomes()))
                        else:
                            options = sim.legal_actions()
                            sim.apply_action(options[rng.index(len(options))])
                            playout_decisions += 1
                    playout_count += 1
            else:
                action = legal[rng.index(len(legal))]
            state.apply_action(action)
    if not searches:
        raise RuntimeError("the bot had no decision with a choice to search")
    return {"searches": searches, "sims_per_cpu_s": searches * sims / cpu, "ms_per_decision_cpu": 1000 * cpu / searches,
            "decisions_per_sim": playout_decisions / playout_count if playout_count else None}
