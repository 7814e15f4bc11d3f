"""``uno-env evaluate``, the arena: play many games between agents and report win rates with 95% Wilson intervals.

``uno-env evaluate heuristic random --game classic --num-players 2 --games 20000 --seed 0``

* Agents are baseline names (``random``, ``greedy``, ``heuristic``) or saved policies: the pickle-free
  ``policy.npz`` a training run writes (or its run directory); SB3 zips and RLlib checkpoints only with
  ``--trust-pickle``, since loading them unpickles (runs code from) the file.
* Seats rotate so that no agent profits from its position: with ``m`` agents at ``n`` seats (``m <= n``) the
  seats are split into ``m`` contiguous blocks of copies, and both the block order (cyclic shifts of the
  agents) and the seat offset (``n`` rotations) cycle, so over every ``m * n`` games each agent occupies each
  seat equally often.  With more agents than seats, every ``n``-subset of the pool plays all ``n`` rotations.
* An agent with several seats wins a game when one of its seats wins; a truncated game (``max_turns``) is a
  win for nobody and is counted in its own column.  Game length counts decisions.
* Every game ``i`` gets its own seeds from ``(seed, i)`` (for the deal and for each agent's random stream), so
  the table does not depend on ``--workers``: a fixed ``--seed`` reproduces it exactly.
* ``--duplicate`` plays every deal once with each block order, as duplicate bridge does: the ``m`` games of one
  rotation share the deal (and each block of seats its random stream), so the cards favour every agent equally
  and the interval is computed over deals (:func:`duplicate_interval`).  Two copies of one deterministic agent
  then score exactly 50%, and a small edge between similar agents shows with far fewer games.
* A pool of 3 or more agents is also rated with OpenSkill (Plackett-Luce), games taken in index order, when
  ``openskill`` is installed (the ``train`` extra); without it the table says the ratings were skipped.
* The ``heuristic`` agent is its compiled player (``uno_env.players``), asked batch by batch.
* Games are played in lockstep batches (:func:`play_lockstep`: ``--batch-size`` games at once, each agent asked
  once per round for all its decisions with ``act_batch``, the games stepped by a compiled kernel) when every
  agent supports it (:func:`lockstep_mode`: the baselines and numpy policies do; ``ismcts``, ``human``, torch
  policies and unknown agents do not, and then every game is played alone by :func:`play_game`).  Both paths play
  the same games: each game keeps its deal, its lineup and each agent's random stream for that game, so every
  record, and the table, is the same (``--sequential`` forces one game at a time).

The command lives here; the arena itself is in modules of its own, whose public names this module re-exports:
:mod:`.arena` (:func:`run_arena`, :func:`against_baselines`), :mod:`.arena_seating` (seat rotation and seeds),
:mod:`.arena_duplicate` (the duplicate format), :mod:`.arena_games` (one game at a time), :mod:`.arena_lockstep`
(lockstep play), :mod:`.arena_results` (the result tables), :mod:`.arena_ratings` (OpenSkill) and
:mod:`.intervals` (Wilson's interval and the interval over deals).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from uno_env.agents.registry import UnknownAgentError

from .arena import against_baselines, run_arena
from .arena_duplicate import arena_seeds, duplicate_deal
from .arena_games import IllegalAgentActionError, play_game
from .arena_lockstep import LOCKSTEP_MODES, ROW_LOOP, ROW_STREAMS, STATELESS, lockstep_mode, play_lockstep
from .arena_results import AgentStats, ArenaResult, format_table
from .arena_seating import game_seeds, lineup_cycle, seat_lineup
from .intervals import Z95, duplicate_interval, wilson_interval
from .limits import ARENA_SEED_MAX as SEED_MAX
from .limits import MAX_GAMES, MAX_WORKERS

__all__ = [
    "wilson_interval",
    "lineup_cycle",
    "seat_lineup",
    "game_seeds",
    "duplicate_deal",
    "arena_seeds",
    "duplicate_interval",
    "play_game",
    "play_lockstep",
    "lockstep_mode",
    "IllegalAgentActionError",
    "AgentStats",
    "ArenaResult",
    "run_arena",
    "against_baselines",
    "format_table",
    "add_arguments",
    "run",
    # besides, importable as before: the bounds and the lockstep modes
    "MAX_GAMES",
    "MAX_WORKERS",
    "SEED_MAX",
    "Z95",
    "STATELESS",
    "ROW_STREAMS",
    "ROW_LOOP",
    "LOCKSTEP_MODES",
]


# ---------------------------------------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env evaluate``."""
    parser.add_argument("agents", nargs="+", metavar="AGENT",
                        help="agents to play: baseline names (random, greedy, heuristic) or saved policies "
                             "(runs/NAME/policy.npz, or a run directory); repeat a name to play copies")
    parser.add_argument("--game", default="classic", choices=("classic", "pocket", "dice"), help="which game")
    parser.add_argument("-n", "--num-players", type=int, default=None,
                        help="seats at the table (default: the rules' number, 2)")
    parser.add_argument("--rules", default=None,
                        help="rules preset name (e.g. standard, rlcard) or path of a rules YAML file")
    parser.add_argument("-g", "--games", type=int, default=1000, help="number of games (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed; the same seed reproduces the table (default 0)")
    parser.add_argument("-w", "--workers", type=int, default=1, help="processes to spread games over (default 1)")
    parser.add_argument("--json", metavar="PATH", default=None, help="also write the results as JSON to PATH")
    parser.add_argument("--ratings", action="store_true",
                        help="rate with OpenSkill even with two agents (done by default for 3 or more, when "
                             "openskill is installed: the train extra)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--trust-pickle", action="store_true",
                        help="also load Stable-Baselines3 .zip files and RLlib checkpoints: they unpickle, so a "
                             "crafted file runs code; use only for files you trust")
    parser.add_argument("--batch-size", type=int, default=256, metavar="N",
                        help="games played at once in lockstep, one act_batch call per agent and round (default 256)")
    parser.add_argument("--sequential", action="store_true",
                        help="play one game at a time (the same games and results; by default the arena plays in "
                             "lockstep batches when every agent supports it)")
    parser.add_argument("--duplicate", action="store_true",
                        help="play every deal once with each block order (as duplicate bridge) and compute the "
                             "intervals over deals: the luck of the cards cancels, so small edges show in fewer "
                             "games; 2 to N agents, GAMES a multiple of their number")
    parser.add_argument("--record", metavar="DIR", default=None,
                        help="save every game as a replayable record DIR/game_NNNNNN.json (see uno-env replay)")


def run(args: argparse.Namespace) -> int:
    """``uno-env evaluate``: play the agents against each other and print (or save) the table; returns the exit status.
    """
    problem = _check_options(args)
    if problem:
        print(f"uno-env evaluate: error: {problem}", file=sys.stderr)
        return 2
    progress = not args.quiet and sys.stderr.isatty()
    try:
        result = run_arena(args.agents, game=args.game, num_players=args.num_players, rules=args.rules,
                           games=args.games, seed=args.seed, workers=args.workers, progress=progress,
                           ratings=True if args.ratings else None, allow_pickle=args.trust_pickle,
                           record_dir=args.record, batched=False if args.sequential else None,
                           batch_size=args.batch_size, duplicate=args.duplicate)
    except (UnknownAgentError, OSError, ValueError, TypeError, ImportError, IllegalAgentActionError) as exc:
        print(f"uno-env evaluate: error: {exc}", file=sys.stderr)
        return 2
    print(format_table(result))
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump(result.to_dict(), fh, indent=2)
                fh.write("\n")
        except OSError as exc:
            print(f"uno-env evaluate: error: --json {args.json!r}: cannot write it: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
    return 0


def _check_options(args: argparse.Namespace) -> str | None:
    """What is wrong with the numbers and the output path of the command line, or None; checked before any game is
    played, so that a typo does not cost the whole run."""
    if not 1 <= args.games <= MAX_GAMES:
        return f"--games must be from 1 to {MAX_GAMES:,}, got {args.games}"
    if not 1 <= args.workers <= MAX_WORKERS:
        return f"--workers must be from 1 to {MAX_WORKERS}, got {args.workers}"
    if not 0 <= args.seed <= SEED_MAX:
        return f"--seed must be from 0 to {SEED_MAX}, got {args.seed}"
    if args.batch_size < 1:
        return f"--batch-size: batch_size must be a positive integer, got {args.batch_size}"
    if args.json:
        return _check_output_file("--json", args.json)
    return None


def _check_output_file(option: str, path: str) -> str | None:
    if "\0" in path:
        return f"{option} {path!r}: a path cannot hold a NUL character"
    if os.path.isdir(path):
        return f"{option} {path!r} is a directory; give a file path, e.g. {os.path.join(path, 'results.json')}"
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"{option} {path!r}: the directory {parent!r} does not exist"
    target = path if os.path.exists(path) else parent
    if not os.access(target, os.W_OK):
        return f"{option} {path!r}: {target!r} is not writable"
    return None

