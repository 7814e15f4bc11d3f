"""``uno-env play``: a person plays one game in the terminal against any agents.

``uno-env play --game classic --opponents heuristic`` deals a game; the opponents are
:func:`~uno_env.agents.registry.load_agent`'s names or saved policies, and the person plays through the ``human``
agent (:mod:`uno_env.agents.human`, which says how a choice is typed).
"""
from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

import numpy as np

from uno_env import raw_env
from uno_env.opponents import agent_action
from uno_env.render import render_ansi

from .human import HumanAgent, HumanQuit
from .registry import UnknownAgentError, load_agent

__all__ = ["play_cli", "add_arguments", "run"]


def _split_opponents(text: str) -> list[str]:
    """A comma list of agent specs; ``key=value`` pieces belong to the spec before them
    (``"ismcts:sims=50,rollout=greedy,heuristic"`` is two specs)."""
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if specs and "=" in piece and ":" not in piece and ":" in specs[-1]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def play_cli(
    game: str = "classic",
    num_players: int | None = None,
    rules: Any = None,
    opponents: str | list[str] = "heuristic",
    seat: int | str = 0,
    seed: int | None = None,
    input_stream: TextIO | None = None,
    output_stream: TextIO | None = None,
    allow_pickle: bool = False,
) -> int:
    """Play one game in the terminal (or on the given streams). Returns an exit code (0 also on Ctrl-D).

    ``allow_pickle``: opponents may be SB3 zips or RLlib checkpoints, which run code from the file when loaded.
    """
    out = output_stream if output_stream is not None else sys.stdout

    def say(text: str = "") -> None:
        out.write(text + "\n")
        out.flush()

    env = raw_env(game, num_players=num_players, rules=rules)
    g = env.game
    n = g.num_players
    rng = np.random.default_rng(seed)
    if seat == "random":
        seat = int(rng.integers(n))
    if not isinstance(seat, (int, np.integer)) or not 0 <= int(seat) < n:
        raise ValueError(f"seat must be 0..{n - 1} or 'random', got {seat!r}")
    seat = int(seat)
    specs = _split_opponents(opponents) if isinstance(opponents, str) else list(opponents)
    if len(specs) == 1:
        specs = specs * (n - 1)
    if len(specs) != n - 1:
        raise ValueError(f"give one opponent or {n - 1} (one per other seat), got {len(specs)}: {specs}")
    seat_agents: dict[int, Any] = {}
    others = [s for s in range(n) if s != seat]
    labels = {}
    for s, spec in zip(others, specs):
        seat_agents[s] = load_agent(spec, g, seed=int(rng.integers(2**63 - 1)), allow_pickle=allow_pickle)
        labels[s] = f"player_{s} ({spec})"
    human = HumanAgent(g, input_stream=input_stream, output_stream=out, state_fn=lambda: env.game_view.row)
    labels[seat] = f"player_{seat} (you)"
    env.reset(seed=int(rng.integers(2**63 - 1)))
    say(f"UNO {g.name}, {n} players. You are player_{seat}. Type a number or an action name; "
        f"'help' repeats the actions, 'quit' or Ctrl-D leaves.")
    try:
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            cur = env.agent_selection
            s = int(cur.split("_")[1])
            obs = env.observe(cur)
            if s == seat:
                say("")
                action = human.act(obs["observation"], obs["action_mask"])
                say(f"{labels[s]}: {g.action_names[action]}")
            else:
                action = int(agent_action(seat_agents[s], env.game_view.row, obs["observation"], obs["action_mask"]))
                say(f"{labels[s]}: {g.action_names[action]}")
            env.step(action)
    except (HumanQuit, KeyboardInterrupt):
        say("\nGoodbye.")
        return 0
    st = env.game_view
    say("")
    say(render_ansi(g, st.row))
    if st.done == 2:
        say(f"The game was cut off after {st.turns} decisions (max_turns): nobody wins.")
    else:
        w = st.match_winner
        say("You win!" if w == seat else f"{labels[w]} wins.")
        say("Scores: " + ", ".join(f"player_{i} {int(x)}" for i, x in enumerate(st.scores[:n])))
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env play``."""
    parser.add_argument("--game", default="classic", choices=("classic", "pocket", "dice"), help="which game")
    parser.add_argument("-n", "--num-players", type=int, default=None, help="seats at the table (default 2)")
    parser.add_argument("--opponents", default="heuristic",
                        help="one agent for every other seat, or a comma list (one per seat): baseline names "
                             "(random, greedy, heuristic) or paths of saved policies (default heuristic)")
    parser.add_argument("--seat", default="0", help="your seat number, or 'random' (default 0)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the deal and the opponents")
    parser.add_argument("--rules", default=None, help="rules preset name or path of a rules YAML file")
    parser.add_argument("--trust-pickle", action="store_true",
                        help="also load Stable-Baselines3 .zip files and RLlib checkpoints as opponents: they "
                             "unpickle, so a crafted file runs code; use only for files you trust")


def run(args: argparse.Namespace) -> int:
    """``uno-env play``: a game in the terminal against the chosen agents; returns the exit status."""
    seat: int | str = args.seat
    if isinstance(seat, str) and seat != "random":
        try:
            seat = int(seat)
        except ValueError:
            print(f"uno-env play: error: --seat must be a number or 'random', got {args.seat!r}", file=sys.stderr)
            return 2
    try:
        return play_cli(game=args.game, num_players=args.num_players, rules=args.rules, opponents=args.opponents,
                        seat=seat, seed=args.seed, allow_pickle=args.trust_pickle)
    except (UnknownAgentError, FileNotFoundError, ValueError) as exc:
        print(f"uno-env play: error: {exc}", file=sys.stderr)
        return 2
