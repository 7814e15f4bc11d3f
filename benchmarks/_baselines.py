"""Competitor loops for the side-by-side benchmarks (RLCard UNO, OpenSpiel crazy_eights).

Each ``*_loop`` function builds its competitor in *this* process and returns a burst function: ``burst(seconds)``
runs it for ``seconds`` of CPU time (:func:`clock`) and returns steps per CPU second, with the game and random
stream kept between bursts, so a caller can alternate competitors' bursts with uno-env's own (``bench_aec.py``).
Importing this module has no side effects: the competitor libraries are imported lazily inside each function, and a
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
from pathlib import Path

import numpy as np

__all__ = ["rlcard_uno_loop", "openspiel_crazy_eights_loop", "openspiel_crazy_eights_mcts", "aec_loop",
           "pettingzoo_classic_env", "null_aec_env", "Run", "machine", "alternate", "quartiles", "fmt", "clock"]

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


def clock() -> float:
    """The clock of every burst here: CPU seconds of this process. Every engine timed with it runs on one thread, so
    its CPU time is the time it ran; a shared machine's other load slows the wall clock, not these figures."""
    return time.process_time()


def _check_budget(seconds: float) -> None:
    if seconds <= 0:
        raise ValueError(f"seconds must be > 0, got {seconds}")


def rlcard_uno_loop(num_players: int = 2, seed: int = 0) -> Callable[[float], float]:
    """RLCard UNO as a burst function: ``burst(seconds)`` plays full games with uniformly random legal actions for
    ``seconds`` of wall time and returns its ``env.step`` calls per second.  The environment and the random stream
    live on between bursts, so bursts can alternate with other engines' (``bench_aec.py``)."""
    rlcard = _import_rlcard()
    env = rlcard.make("uno", config={"seed": seed, "game_num_players": num_players})
    rng = _Uniforms(seed)

    def burst(seconds: float) -> float:
        _check_budget(seconds)
        steps = 0
        start = clock()
        deadline = start + seconds
        while True:
            state, _pid = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"].keys())
                action = legal[rng.index(len(legal))]
                state, _pid = env.step(action)
                steps += 1
            # Check the clock between games only: a game is ~50 steps (a few ms), far below the budget.
            if clock() >= deadline:
                break
        return steps / (clock() - start)

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
            _check_budget(seconds)
            steps = 0
            state = raw_state[0]
            start = clock()
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
                if clock() >= deadline:
                    break
            raw_state[0] = state
            return steps / (clock() - start)

        return raw_burst

    try:
        from open_spiel.python import rl_environment  # noqa: PLC0415
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(f"open_spiel.python.rl_environment is missing; run `{_BENCH_HINT}`") from exc
    env = rl_environment.Environment(game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed))
    last = [env.reset()]

    def env_burst(seconds: float) -> float:
        _check_budget(seconds)
        steps = 0
        time_step = last[0]
        start = clock()
        deadline = start + seconds
        while True:
            for _ in range(check_every):
                if time_step.last():
                    time_step = env.reset()
                cur = time_step.observations["current_player"]
                legal = time_step.observations["legal_actions"][cur]
                time_step = env.step([legal[rng.index(len(legal))]])
                steps += 1
            if clock() >= deadline:
                break
        last[0] = time_step
        return steps / (clock() - start)

    return env_burst


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


# ------------------------------------------------------------------------------------- the suite's shared parts
RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> dict:
    """What the figures were measured on: CPU model, cores (and those this process may use), load average, the
    versions of Python and of every library a benchmark imports, and the source commit."""
    import importlib.metadata
    import os
    import platform
    import subprocess

    model = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), model)
    except OSError:
        pass
    versions = {"python": platform.python_version()}
    for dist in ("uno-env", "numpy", "numba", "pettingzoo", "gymnasium", "rlcard", "open_spiel", "torch",
                 "stable-baselines3", "sb3-contrib"):
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = None
    root = Path(__file__).resolve().parents[1]
    commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or None
    dirty = bool(subprocess.run(["git", "-C", str(root), "status", "--porcelain", "uno_env", "agents", "training"],
                                capture_output=True, text=True).stdout.strip())
    return {"cpu": model, "cores": os.cpu_count(), "usable_cores": len(os.sched_getaffinity(0)),
            "platform": platform.platform(), "versions": versions, "commit": commit, "uncommitted_changes": dirty}


class Run:
    """One benchmark script's run: the machine and the load average at its start, its headline figures (ours beside
    the reference, as a ratio) and its details, written at the end as ``benchmarks/results/<name>.json``.

    A headline is what the docs and the README quote: ``label`` (what was measured), ``ours`` and ``reference``
    (medians, in ``unit``), ``reference_name``, and ``ratio`` = ours / reference (how many times the reference's
    figure ours is; for times, where less is better, the script says so in ``better``)."""

    def __init__(self, name: str, argv: list[str] | None, quick: bool) -> None:
        import os
        import sys
        import time as _time

        self.name, self.quick = name, quick
        self.started = _time.time()
        self.load_before = list(os.getloadavg())
        self.command = "python benchmarks/" + name + ".py" + "".join(
            " " + a for a in (sys.argv[1:] if argv is None else argv))
        self.headlines: list[dict] = []
        self.details: dict = {}

    def headline(self, key: str, label: str, ours: float, reference: float | None, reference_name: str | None,
                 unit: str, better: str = "higher", spread: list[float] | None = None,
                 interval: list[float] | None = None) -> dict:
        """Record (and print) one figure beside its reference; ``spread`` is the per-round ratios' quartiles,
        ``interval`` a 95% confidence interval of ``ours`` (a win rate's)."""
        ratio = ours / reference if reference else None
        row = {"key": key, "label": label, "ours": ours, "reference": reference, "reference_name": reference_name,
               "unit": unit, "ratio": ratio, "better": better, "ratio_quartiles": spread, "interval": interval}
        self.headlines.append(row)
        text = f"{label}: {fmt(ours)} {unit}"
        if reference is not None:
            text += f"; {reference_name} {fmt(reference)} {unit}; ratio {ratio:.2f}x"
            if spread:
                text += f" [{spread[0]:.2f}, {spread[2]:.2f}]"
        if interval:
            text += f" [{fmt(interval[0])}, {fmt(interval[1])}]"
        print(text, flush=True)
        return row

    def write(self, out: Path | None = None) -> Path:
        import json
        import os
        import time as _time

        path = out or RESULTS / f"{self.name}.json"
        data = {"benchmark": self.name, "command": self.command, "quick": self.quick,
                "machine": {**machine(), "load_average_before": self.load_before,
                            "load_average_after": list(os.getloadavg())},
                "started": _time.strftime("%Y-%m-%d %H:%M:%S", _time.localtime(self.started)),
                "wall_seconds": round(_time.time() - self.started, 1),
                "headlines": self.headlines, "details": self.details}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, default=float) + "\n", encoding="utf-8")
        load = data["machine"]
        print(f"load average {load['load_average_before'][0]:.2f} before, {load['load_average_after'][0]:.2f} after; "
              f"wrote {path}", flush=True)
        return path


def fmt(x: float) -> str:
    """A figure as the tables print it: thousands separated above 100, three significant digits below."""
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.3g}"


def quartiles(values: list[float]) -> list[float]:
    """First quartile, median, third quartile (all three the value itself for one value)."""
    import statistics

    if len(values) < 2:
        return [values[0]] * 3
    q1, _, q3 = statistics.quantiles(values, n=4)
    return [q1, statistics.median(values), q3]


def alternate(bursts: dict[str, Callable[[float], float]], rounds: int, seconds: float) -> dict[str, list[float]]:
    """Rounds of one burst per engine, every other round in reverse order, so that a drift of a shared machine's
    speed hits every engine alike; each engine's figures in round order."""
    for burst in bursts.values():
        burst(min(0.2, seconds))  # warm up (first games, caches) outside the timed rounds
    runs: dict[str, list[float]] = {name: [] for name in bursts}
    order = list(bursts.items())
    for i in range(rounds):
        for name, burst in (order if i % 2 == 0 else order[::-1]):
            runs[name].append(burst(seconds))
    return runs


def aec_loop(env, seed: int = 0) -> Callable[[float], float]:  # type: ignore[no-untyped-def]
    """A PettingZoo AEC env in the canonical loop (``agent_iter()``, ``last()``, a uniformly random legal action from
    the mask, ``step()``) as a burst function: player steps per CPU second (:func:`clock`), whole games until the
    burst's seconds are spent, the env, its episode count and the random stream kept between bursts. Used for
    uno-env's env, PettingZoo's own classic envs and the do-nothing env alike."""
    rng = _Uniforms(seed)
    episodes = [0]
    env.reset(seed=seed)

    def burst(seconds: float) -> float:
        _check_budget(seconds)
        steps = 0
        start = clock()
        while True:
            env.reset(seed=seed + episodes[0])
            episodes[0] += 1
            for _agent in env.agent_iter():
                obs, _reward, termination, truncation, _info = env.last()
                if termination or truncation:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.index(len(legal))]))
                steps += 1
            elapsed = clock() - start
            if elapsed >= seconds:
                return steps / elapsed

    return burst


def pettingzoo_classic_env(name: str = "connect_four_v3"):  # type: ignore[no-untyped-def]
    """One of PettingZoo's own classic environments (``pettingzoo.classic.<name>``), made with its standard wrappers."""
    import importlib

    try:
        module = importlib.import_module(f"pettingzoo.classic.{name}")
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(f"pettingzoo.classic.{name} cannot be imported ({exc}); run `{_BENCH_HINT}`") from exc
    return module.env()


def null_aec_env(num_actions: int = 61, obs_dim: int = 256, game_length: int = 50):  # type: ignore[no-untyped-def]
    """A 2-player AEC env that does nothing: every action is legal, the observation is a preallocated array, and a
    game ends after ``game_length`` steps (about a random 2-player UNO game's). It is the floor of the canonical
    loop: what ``agent_iter()``, ``last()``, the mask lookup and ``step()`` cost in Python with no game behind them."""
    from gymnasium import spaces
    from pettingzoo import AECEnv

    class NullEnv(AECEnv):
        metadata = {"name": "null_v0", "is_parallelizable": False}

        def __init__(self) -> None:
            super().__init__()
            self.possible_agents = ["player_0", "player_1"]
            self._obs = {"observation": np.zeros(obs_dim, np.int8), "action_mask": np.ones(num_actions, np.int8)}
            space = spaces.Dict({"observation": spaces.MultiBinary(obs_dim),
                                 "action_mask": spaces.MultiBinary(num_actions)})
            self.observation_spaces = {a: space for a in self.possible_agents}
            self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}

        def observe(self, agent: str) -> dict:
            return self._obs

        def reset(self, seed: int | None = None, options: dict | None = None) -> None:
            self.agents = list(self.possible_agents)
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
            self.terminations = dict.fromkeys(self.agents, False)
            self.truncations = dict.fromkeys(self.agents, False)
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = self.agents[0]
            self._steps = 0

        def step(self, action: int | None) -> None:
            if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
                self._was_dead_step(action)
                return
            self._steps += 1
            if self._steps >= game_length:
                self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[self._steps % 2]

    return NullEnv()
