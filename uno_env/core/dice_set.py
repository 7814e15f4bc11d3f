"""UNO Dice: the dice set as data.

A dice set is a YAML or JSON file (chosen by extension: ``.yaml``/``.yml`` or ``.json``)
holding one mapping::

    name: my_set            # optional; defaults to the file's stem
    dice:                   # one list of six face codes per die
      - [R1, Y3, G5, B1, RS, W]
      - [R1, Y3, G5, B1, RS, GR]
      ...

Face codes (case-sensitive, no spaces): a colour letter ``R``, ``Y``, ``G``, ``B`` followed by
``1``..``6`` (a number), ``S`` (Skip), ``R`` (Reverse) or ``D`` (Draw Two); ``W`` (Wild) and
``W4`` (Wild Draw Four). :data:`FACE_CODES` lists all 38 in their canonical order; a face's
integer id everywhere in the project is its index in that tuple.

``load_dice_set("default")`` loads the packaged set ``uno_env/data/dice_default.yaml`` (the
project's own 24 dice). Every problem with a file is a :class:`ValueError` naming the file,
the die (1-based) and the face.

This module imports only the standard library, PyYAML, numpy and the state's limits (for the most dice a
game holds, :data:`MAX_DICE`).
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from .._files import MAX_YAML_BYTES, read_text
from ..yaml_io import describe_yaml_error, load_yaml
from .limits import MAX_DICE

__all__ = [
    "COLOURS",
    "NUMBERS",
    "COMMANDS",
    "FACE_CODES",
    "FACE_INDEX",
    "FACES_PER_DIE",
    "DICE_PER_HAND",
    "MIN_DICE",
    "MAX_DICE",
    "DiceSet",
    "dice_set_from_data",
    "load_dice_set",
    "is_number_face",
    "min_dice_for_players",
]

COLOURS: tuple[str, ...] = ("R", "Y", "G", "B")
NUMBERS: tuple[str, ...] = ("1", "2", "3", "4", "5", "6")
COMMANDS: tuple[str, ...] = ("S", "R", "D")  # Skip, Reverse, Draw Two

#: All valid face codes in canonical order: per colour R, Y, G, B the numbers 1..6 then S, R, D
#: (9 per colour, 36 in all), then W (Wild) and W4 (Wild Draw Four).
FACE_CODES: tuple[str, ...] = tuple(
    c + s for c in COLOURS for s in NUMBERS + COMMANDS
) + ("W", "W4")

#: face code -> index in FACE_CODES
FACE_INDEX: dict[str, int] = {code: i for i, code in enumerate(FACE_CODES)}

FACES_PER_DIE = 6
DICE_PER_HAND = 5
#: The smallest usable set: two hands of five plus the centre die.
MIN_DICE = 2 * DICE_PER_HAND + 1

DEFAULT_SOURCE = "default"
_DEFAULT_RESOURCE = "dice_default.yaml"
_ALLOWED_KEYS = ("name", "dice")


def is_number_face(code: str) -> bool:
    """True for a coloured number face such as ``"R1"``."""
    return len(code) == 2 and code[0] in COLOURS and code[1] in NUMBERS


def min_dice_for_players(num_players: int) -> int:
    """Dice a set needs for ``num_players`` hands of five plus the centre die."""
    return DICE_PER_HAND * num_players + 1


def _valid_codes_text() -> str:
    return ", ".join(FACE_CODES)


@dataclass(frozen=True)
class DiceSet:
    """A validated dice set: ``faces[d]`` is the tuple of six face codes of die ``d``."""

    name: str
    faces: tuple[tuple[str, ...], ...]
    path: str | None = None

    def __post_init__(self) -> None:
        # Direct construction is validated exactly like a loaded file.
        where = f"dice set {self.path!r}" if self.path else f"dice set {self.name!r}"
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"{where}: 'name' must be a non-empty string; got {self.name!r}")
        _check_dice(self.faces, where)
        object.__setattr__(self, "faces", tuple(tuple(d) for d in self.faces))

    @property
    def num_dice(self) -> int:
        """How many dice the bag holds."""
        return len(self.faces)

    def __len__(self) -> int:
        return len(self.faces)

    def max_players(self) -> int:
        """The most players this set supports (5 dice a hand plus the centre die)."""
        return (len(self.faces) - 1) // DICE_PER_HAND

    def face_index_array(self) -> np.ndarray:
        """Face ids, shape ``(n_dice, 6)``, dtype int32: ``FACE_INDEX[faces[d][k]]``."""
        return np.array(
            [[FACE_INDEX[code] for code in die] for die in self.faces], dtype=np.int32
        ).reshape(len(self.faces), FACES_PER_DIE)

    def face_counts(self) -> dict[str, int]:
        """How many faces across the whole set show each code (codes never shown omitted)."""
        counts: dict[str, int] = {}
        for die in self.faces:
            for code in die:
                counts[code] = counts.get(code, 0) + 1
        return {code: counts[code] for code in FACE_CODES if code in counts}


def _check_dice(dice: Any, where: str) -> None:
    if not isinstance(dice, (list, tuple)):
        raise ValueError(
            f"{where}: 'dice' must be a list of dice (each a list of six face codes); "
            f"got {type(dice).__name__}"
        )
    for d, die in enumerate(dice, start=1):
        if not isinstance(die, (list, tuple)):
            raise ValueError(
                f"{where}: die {d} must be a list of six face codes; got {die!r}"
            )
        if len(die) != FACES_PER_DIE:
            raise ValueError(
                f"{where}: die {d} has {len(die)} faces; every die must have exactly "
                f"{FACES_PER_DIE}"
            )
        for k, code in enumerate(die, start=1):
            if not isinstance(code, str) or code not in FACE_INDEX:
                hint = ""
                if isinstance(code, str):
                    close = difflib.get_close_matches(code, FACE_CODES, n=1)
                    if not close and code.upper() in FACE_INDEX:
                        close = [code.upper()]
                    if close:
                        hint = f" (did you mean {close[0]!r}?)"
                else:
                    hint = f" (a {type(code).__name__}, not a string)"
                raise ValueError(
                    f"{where}: die {d} face {k}: {code!r} is not a face code{hint}; "
                    f"valid codes are {_valid_codes_text()}"
                )
    if len(dice) > MAX_DICE:
        raise ValueError(
            f"{where}: the set has {len(dice)} dice; at most {MAX_DICE} fit in the game's state"
        )
    if len(dice) < MIN_DICE:
        raise ValueError(
            f"{where}: the set has {len(dice)} dice; at least {MIN_DICE} are needed "
            f"(two hands of {DICE_PER_HAND} plus the centre die)"
        )
    if not any(is_number_face(code) for die in dice for code in die):
        raise ValueError(
            f"{where}: no die has a number face; the centre die must be able to show a number"
        )


def dice_set_from_data(data: Any, source: str = "<data>", default_name: str | None = None) -> DiceSet:
    """Validate already-parsed data (``{"name": ..., "dice": [[...], ...]}``) into a DiceSet.

    ``source`` names the origin in error messages and becomes ``DiceSet.path`` unless it is
    a ``<placeholder>``.
    """
    where = f"dice set {source!r}"
    if data is None:
        raise ValueError(f"{where}: the file is empty; expected a mapping with a 'dice' list")
    if not isinstance(data, dict):
        raise ValueError(
            f"{where}: the top level must be a mapping with keys 'name' and 'dice'; "
            f"got {type(data).__name__}"
        )
    unknown = [k for k in data if k not in _ALLOWED_KEYS]
    if unknown:
        raise ValueError(
            f"{where}: unknown top-level key(s) {', '.join(repr(k) for k in unknown)}; "
            f"allowed keys are 'name' and 'dice'"
        )
    if "dice" not in data:
        raise ValueError(f"{where}: missing the 'dice' key (a list of dice, six face codes each)")
    if "name" in data:
        name = data["name"]
        if not isinstance(name, str) or not name:
            raise ValueError(f"{where}: 'name' must be a non-empty string; got {name!r}")
    else:
        name = default_name or "unnamed"
    _check_dice(data["dice"], where)
    path = None if source.startswith("<") else source
    return DiceSet(name=name, faces=tuple(tuple(die) for die in data["dice"]), path=path)


class _DuplicateKeyError(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json keeps the last of two equal keys without a word; YAML refuses them, and so does this
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKeyError(f"duplicate key {key!r} in a JSON object; give each key once")
        out[key] = value
    return out


def _parse_text(text: str, path: str, suffix: str) -> Any:
    where = f"dice set {path!r}"
    if not text.strip():
        raise ValueError(f"{where}: the file is empty; expected a mapping with a 'dice' list")
    if suffix == ".json":
        try:
            return json.loads(text, object_pairs_hook=_unique_keys)
        except _DuplicateKeyError as e:
            raise ValueError(f"{where}: {e}") from None
        except json.JSONDecodeError as e:
            raise ValueError(
                f"{where}: malformed JSON at line {e.lineno}, column {e.colno}: {e.msg}"
            ) from None
        except RecursionError:
            raise ValueError(
                f"{where}: refused: the JSON nests too deeply to read (a dice set is a mapping of lists "
                f"of face codes, three levels deep)"
            ) from None
        except ValueError as e:  # e.g. an integer of more digits than int() reads
            raise ValueError(f"{where}: malformed JSON: {e}") from None
    try:
        return load_yaml(text)
    except yaml.YAMLError as e:
        raise ValueError(f"{where}: {describe_yaml_error(e)}") from None


def load_dice_set(source: str | os.PathLike = DEFAULT_SOURCE) -> DiceSet:
    """Load and validate a dice set: ``"default"`` (the packaged set) or a .yaml/.yml/.json file."""
    if not isinstance(source, (str, os.PathLike)):
        raise ValueError(
            f"dice set must be 'default' or a path to a .yaml/.yml/.json file; got {source!r}"
        )
    if isinstance(source, str) and source == DEFAULT_SOURCE:
        from importlib import resources

        res = resources.files("uno_env.data").joinpath(_DEFAULT_RESOURCE)
        text = res.read_text(encoding="utf-8")
        path = str(res) if isinstance(res, Path) else None
        data = _parse_text(text, path or DEFAULT_SOURCE, ".yaml")
        ds = dice_set_from_data(data, path or "<default>", default_name=DEFAULT_SOURCE)
        return ds

    path = os.fspath(source)
    where = f"dice set {path!r}"
    suffix = Path(path).suffix.lower()
    if suffix not in (".yaml", ".yml", ".json"):
        raise ValueError(
            f"{where}: unsupported file extension {suffix or '(none)'!r}; "
            f"use .yaml, .yml or .json"
        )
    if not os.path.exists(path):
        raise ValueError(f"{where}: no such file")
    data = _parse_text(read_text(path, "dice set", MAX_YAML_BYTES), path, suffix)
    return dice_set_from_data(data, path, default_name=Path(path).stem)
