"""The ``uno-env`` command: one entry point, one subcommand per job.

Each subcommand lives in its own module, which provides ``add_arguments(parser)`` and ``run(args) -> int``;
they are imported only when chosen, so ``uno-env play`` does not import torch.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from . import __version__
from ._files import InputFileError

SUBCOMMANDS = {
    "evaluate": ("uno_env.training.evaluate", "play agents against each other and print win rates with intervals"),
    "play": ("uno_env.agents.play", "play UNO in the terminal against agents"),
    "train": ("uno_env.training.train", "train a policy with PPO (the batched trainer, or sb3-contrib MaskablePPO)"),
    "distill": ("uno_env.training.distill", "teach the shipped policies' network where a search improves on the "
                "heuristic (search distillation)"),
    "train-rllib": ("uno_env.training.rllib_train", "train with Ray RLlib (needs the rllib extra)"),
    "rules": ("uno_env.config", "print the rules options table of a game"),
    "replay": ("uno_env.replay_cli", "show a recorded game step by step in the terminal, or write it as a web page"),
    "serve": ("uno_env.viewer.serve", "play agents in the browser (a local page on 127.0.0.1)"),
    "precompile": ("uno_env.precompile", "compile every kernel into numba's on-disk cache, so later starts are fast"),
}


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; Ctrl-C ends it with one line and status 130, a closed output pipe ends it quietly."""
    try:
        code = _main(argv)
        sys.stdout.flush()  # a pipe closed early (`uno-env rules | head`) shows up here at the latest
        return code
    except KeyboardInterrupt:
        print("\nuno-env: interrupted", file=sys.stderr)
        return 130
    except InputFileError as e:  # a file refused where the subcommand does not catch it: still one line, status 2
        print(f"uno-env: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away: nothing more to say; point stdout at devnull so the interpreter's final flush at
        # exit does not raise again (the recipe of the Python docs, "Note on SIGPIPE")
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _main(argv: list[str] | None) -> int:
    """Run ``uno-env`` with ``argv`` (default: the command line); returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    # import only the chosen subcommand's module (others may need extras that are not installed)
    parser = argparse.ArgumentParser(prog="uno-env", description="UNO environments for reinforcement learning")
    parser.add_argument("-V", "--version", action="version", version=f"uno-env {__version__}")
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in SUBCOMMANDS:
        sub = parser.add_subparsers(dest="command", metavar="COMMAND")
        for name, (_, help_text) in SUBCOMMANDS.items():
            sub.add_parser(name, help=help_text)
        if not argv:
            parser.print_help()
            return 2
        parser.parse_args(argv)  # prints help or the "invalid choice" error and exits
        return 2
    name = argv[0]
    module, help_text = SUBCOMMANDS[name]
    sub_parser = argparse.ArgumentParser(prog=f"uno-env {name}", description=help_text)
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        extra = "train,rllib" if name == "train-rllib" else "train"
        print(f"uno-env {name}: cannot import {module}: {exc}. Install the extra it needs: "
              f"pip install 'uno-env[{extra}]'", file=sys.stderr)
        return 1
    mod.add_arguments(sub_parser)
    args = sub_parser.parse_args(argv[1:])
    return int(mod.run(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
