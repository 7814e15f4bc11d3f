"""uno-env: reinforcement-learning environments for UNO, UNO Pocket Pizza Pizza and UNO Dice.

``uno_env.env("classic", num_players=2)`` gives a PettingZoo AEC environment, ``uno_env.parallel_env(...)`` a
PettingZoo Parallel one; see the docs for the rules
options, the observation layout and the action table of each game.
"""
from __future__ import annotations

import os
import sys
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .aec import ActionOutOfRangeError, IllegalActionError, OrderError, env, raw_env
    from .config import RuleConfig
    from .parallel import parallel_env

__all__ = ["env", "raw_env", "parallel_env", "RuleConfig", "action_id", "action_names", "IllegalActionError",
           "ActionOutOfRangeError", "OrderError", "GAMES"]
__version__ = "0.1.0"
GAMES = ("classic", "pocket", "dice")


_LAZY = {"env": ".aec", "raw_env": ".aec", "IllegalActionError": ".aec", "ActionOutOfRangeError": ".aec",
         "OrderError": ".aec", "RuleConfig": ".config", "parallel_env": ".parallel"}


def __getattr__(name: str):
    # the compiled core loads on first use, so `import uno_env` (and the `uno-env` command's start) stays quick
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def _game(game: str):
    from .config import RuleConfig
    from .core.game import Game

    return Game(RuleConfig.make(game))


def action_names(game: str) -> list[str]:
    """The action table of ``game`` (index = action id). The same for every option and player count."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
    return list(_game(game).action_names)


def action_id(game: str, name: str) -> int:
    """The id of the action named ``name`` (e.g. ``"play red 7"``) in ``game``."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
    return _game(game).action_id(name)


def _register() -> None:
    import pettingzoo

    if hasattr(pettingzoo, "register"):  # PettingZoo's registry exists from 1.25 on
        for game in GAMES:
            env_id = f"uno_env/{game}-v0"
            if env_id not in pettingzoo.aec_registry:
                pettingzoo.register("aec", env_id, entry_point=f"uno_env.{game}_v0:env")
            if env_id not in pettingzoo.parallel_registry:
                pettingzoo.register("parallel", env_id, entry_point=f"uno_env.{game}_v0:parallel_env")


    import gymnasium

    for game in GAMES:
        gym_id = f"uno_env/{game.capitalize()}-v0"
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                gym_id,
                entry_point="uno_env.gym_env:UnoGymEnv",
                vector_entry_point="uno_env.vector:make_gym_vector_env",
                kwargs={"game": game},
                disable_env_checker=False,
            )


#: subpackages whose sources live outside this folder (pyproject's package-dir: agents/, training/, configs/); an
#: install puts them inside the package, an editable install maps them
_MAPPED = ("agents", "training", "configs")


def _check_not_shadowing() -> None:
    """Refuse to run as a source checkout that hides an installed uno-env which has the mapped subpackages.

    Python started in the checkout's root puts the current directory first on ``sys.path``, so ``import uno_env``
    finds the checkout's ``uno_env/`` (without agents/, training/, configs/) instead of the installed copy, and the
    first use of an agent would fail far away with "No module named 'uno_env.agents'".
    """
    here = os.path.dirname(os.path.abspath(__file__))
    if os.path.isdir(os.path.join(here, _MAPPED[0])):  # an installed copy holds them itself
        return
    import importlib.util

    missing = [name for name in _MAPPED if importlib.util.find_spec(f"{__name__}.{name}") is None]
    if not missing:  # an editable install maps them
        return
    installed = []
    for entry in sys.path:
        candidate = os.path.join(os.path.abspath(entry or os.curdir), __name__)
        if os.path.isdir(os.path.join(candidate, _MAPPED[0])) and not os.path.samefile(candidate, here):
            installed.append(candidate)
    if installed:
        raise ImportError(
            f"uno_env was imported from the source checkout {here}, not from the installed uno-env at "
            f"{installed[0]}, which comes later on sys.path (Python puts the current directory first when it "
            f"starts in the checkout's root, {os.path.dirname(here)}). The checkout's uno_env/ does not contain "
            f"{', '.join(f'uno_env.{name}' for name in missing)}: their sources are the checkout's top-level "
            "folders, which only an install maps into the package. Start Python from another directory to use the "
            "installed copy, or install the checkout in editable mode (pip install -e .) to use the checkout.")


_check_not_shadowing()
_register()
