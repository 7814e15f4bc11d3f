"""The validated rule configuration of the three games.

Every rule decision the rules sheets leave open is a named option here. :data:`OPTIONS` is the
single table of options (kind, allowed values, per-game default, source, meaning): it drives
validation, :func:`rules_table_markdown` (the docs' rules table) and :func:`options_for`.

A :class:`RuleConfig` is immutable, hashable and always valid::

    cfg = RuleConfig.make("classic")                       # the standard rules
    cfg = RuleConfig.make("classic", "rlcard")             # RLCard's rule set
    cfg = RuleConfig.make("pocket", num_players=4, stacking=True)
    cfg = RuleConfig.from_yaml("configs/rules/dice_standard.yaml")
    cfg2 = cfg.replace(episode="match", reward="points")
    RuleConfig.from_dict(cfg.to_dict()) == cfg             # True

Options that do not exist for a game are ``None`` on that game's config. Every mistake is a
:class:`ValueError` naming the option, the game and the allowed values; values are never
silently fixed up (``1`` is not a bool, ``2.0`` is not an int, ``"Round"`` is not ``"round"``).
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import yaml

from .yaml_io import load_yaml_file, short_repr

if TYPE_CHECKING:  # pragma: no cover
    from uno_env.core.dice_set import DiceSet

__all__ = [
    "GAMES",
    "OptionSpec",
    "OPTIONS",
    "PRESETS",
    "RuleConfig",
    "options_for",
    "presets_for",
    "rules_table_markdown",
]

#: The games, in documentation order.
GAMES: tuple[str, ...] = ("classic", "pocket", "dice")

_KINDS = ("bool", "int", "float", "choice", "path")


@dataclass(frozen=True)
class OptionSpec:
    """One rule option.

    ``allowed`` is the tuple of choices (kind "choice"), an inclusive ``(min, max)`` (kinds
    "int"/"float"), or a mapping game -> ``(min, max)`` when the range differs per game;
    ``()`` for "bool" and "path". ``default`` maps game -> default value; a game missing from it
    does not have the option.
    """

    name: str
    kind: str
    allowed: Any
    default: Mapping[str, Any]
    source: str
    doc: str
    #: the slot of the compiled options array that holds this option (None: the rules do not read it there);
    #: the value stored is the int, the bool as 0/1, the index of the choice in ``allowed``, or float * scale
    slot: str | None = None
    scale: int = 1
    #: values read as another value, e.g. the old boolean ``stacking: true`` -> ``"same"``
    aliases: Mapping[Any, Any] = dataclasses.field(default_factory=dict)

    def encode(self, value: Any) -> int:
        """The int64 the compiled rules read for ``value`` (see ``slot``)."""
        if self.kind == "choice":
            return self.allowed.index(value)
        if self.kind == "float":
            return int(round(value * self.scale))
        return int(value)

    @property
    def games(self) -> tuple[str, ...]:
        """The games that have this option, in GAMES order."""
        return tuple(g for g in GAMES if g in self.default)

    def applies_to(self, game: str) -> bool:
        """Whether ``game`` has this option."""
        return game in self.default

    def allowed_for(self, game: str) -> Any:
        """The allowed choices / ``(min, max)`` range for ``game``."""
        if isinstance(self.allowed, Mapping):
            return self.allowed[game]
        return self.allowed

    def check(self, game: str, value: Any) -> Any:
        """Return ``value`` (normalised to a plain Python type) or raise a ValueError."""
        return _check_value(self, game, value)


def _opt(name, kind, allowed, default, source, doc, slot=None, scale=1, aliases=None) -> OptionSpec:
    assert kind in _KINDS, kind
    return OptionSpec(name, kind, allowed, dict(default), source, doc, slot, scale, dict(aliases or {}))


_CP = ("classic", "pocket")


def _every(value, games=GAMES) -> dict[str, Any]:
    return {g: value for g in games}


#: Every rule option, in documentation order.
OPTIONS: dict[str, OptionSpec] = {
    o.name: o
    for o in (
        _opt("num_players", "int",
             {"classic": (2, 10), "pocket": (2, 5), "dice": (2, 4)},
             {"classic": 2, "pocket": 2, "dice": 2},
             "rule sheets (classic, Pocket, Dice)",
             "Number of seats (player_0 .. player_{n-1}).",
             slot="np"),
        _opt("episode", "choice", ("round", "match"), _every("round"),
             "project rules, all games",
             "round: the episode ends with the round; match: rounds continue until a total "
             "reaches target_score (scores then in the observation).",
             slot="episode_match"),
        _opt("reward", "choice", ("win_loss", "points"), _every("win_loss"),
             "project rules, all games",
             "win_loss: winner +1, others -1/(n-1); points: winner +points/target, "
             "each loser -(its hand's points)/target.",
             slot="reward_points"),
        _opt("target_score", "int", (1, 100_000),
             {"classic": 500, "pocket": 250, "dice": 500},
             "rule sheets (classic, Pocket, Dice)",
             "Score that ends a match; also the divisor of the points reward.",
             slot="target"),
        _opt("uno_call", "choice", ("explicit", "auto"), _every("explicit"),
             "project rules, all games",
             "explicit: calling UNO is part of the play action (\"play red 7 + UNO\"); "
             "auto: always called.",
             slot="uno_auto"),
        _opt("uno_catch_probability", "float", (0.0, 1.0), _every(1.0),
             "project rules, all games",
             "Chance that a player who failed to call UNO is caught (and draws 2) "
             "before the next player acts.",
             slot="catch_threshold", scale=2**32),
        _opt("max_turns", "int", (1, 10_000_000), _every(5000),
             "project (truncation)",
             "Decisions per episode before the episode is truncated.",
             slot="max_turns"),
        _opt("first_wild", "choice", ("redeal", "reshuffle", "choose_colour", "random_colour"), {"classic": "redeal"},
             "classic sheet (redeal); project (reshuffle); older retail rules (choose_colour); RLCard (random_colour)",
             "A Wild or Wild Draw Four flipped as the first card. redeal: every card back, shuffle, the same "
             "dealer deals again (classic sheet: \"sekoita kortit uudelleen ja aloita alusta\"); reshuffle: the "
             "card goes back into the draw pile, which is reshuffled and flipped again (hands kept); "
             "choose_colour: a Wild stays and the first player names the colour (a Wild Draw Four is "
             "reshuffled); random_colour (RLCard): a Wild takes a random colour and the first player plays (a "
             "Wild Draw Four is reshuffled).",
             slot="first_wild"),
        _opt("first_draw_two", "choice", ("skip", "play"), {"classic": "skip"},
             "classic sheet; play = RLCard",
             "A Draw Two flipped as the first card: the first player draws 2 and is skipped (skip), or draws 2 "
             "and then plays (play).",
             slot="first_draw_two_play"),
        _opt("first_reverse", "choice", ("dealer_right", "dealer"), {"classic": "dealer_right"},
             "project rules; dealer = RLCard",
             "A Reverse flipped as the first card flips the direction; the first to play is the dealer's right "
             "(dealer_right) or the dealer (dealer; RLCard's last seat). With 2 players and "
             "reverse_two_players: skip both mean the dealer.",
             slot="first_reverse_dealer"),
        _opt("reverse_two_players", "choice", ("skip", "reverse"), {"classic": "skip"},
             "classic sheet; reverse = RLCard",
             "A Reverse with 2 players: acts as Skip (skip), or only flips the direction so the other player "
             "plays next (reverse).",
             slot="reverse_no_skip"),
        _opt("draw_until_playable", "bool", (), _every(False, _CP),
             "classic sheet (its variant)",
             "Drawing continues until a playable card is drawn (instead of one card).",
             slot="draw_until_playable"),
        _opt("voluntary_draw", "bool", (), _every(True, _CP),
             "project rules; false = RLCard",
             "Drawing is allowed even with a playable card; false: only when nothing "
             "is playable.",
             slot="voluntary_draw"),
        _opt("wd4_legality", "choice", ("colour", "any_playable"),
             {"classic": "any_playable", "pocket": "any_playable"},
             "classic sheet (\"vain, kun mikään muu kädessä oleva kortti ei sovi\"), Pocket sheet; "
             "colour: retail rules (preset official)",
             "When Wild Draw Four (pocket: Wild Draw 2) is legal: colour = no card of the current "
             "colour in hand; any_playable = no other playable card.",
             slot="wd_legal_any_playable"),
        _opt("wd4_challenge", "bool", (), {"classic": False, "pocket": True},
             "Pocket sheet (the challenge); the classic sheet has none (classic false); retail rules: preset official",
             "An illegal Wild Draw Four / Wild Draw 2 may be played as a bluff and challenged (the challenged "
             "hand is then shown to the challenger, observation block shown_hand); false: offered only when "
             "legal, no challenge step.",
             slot="challenge"),
        _opt("stacking", "choice", ("off", "same", "any"), _every("off", _CP),
             "house rule",
             "A draw card may be answered with a draw card and the penalties add up. off: no "
             "stacking; same: the same kind of draw card (Draw Two on Draw Two, Wild Draw Four on "
             "Wild Draw Four); any: any draw card (a Draw Two answers a Wild Draw Four and the "
             "reverse). The old booleans are read as false = off, true = same.",
             slot="stacking", aliases={False: "off", True: "same"}),
        _opt("seven_zero", "bool", (), _every(False, _CP),
             "house rule",
             "7: swap hands with a chosen player; 0: all hands pass in the play direction.",
             slot="seven_zero"),
        _opt("jump_in", "bool", (), _every(False, _CP),
             "house rule",
             "A card identical to the top card may be played out of turn.",
             slot="jump_in"),
        _opt("force_play", "bool", (), _every(False, _CP),
             "house rule",
             "A playable drawn card must be played (no keep option).",
             slot="force_play"),
        _opt("drawn_card", "choice", ("decide", "rlcard"), {"classic": "decide"},
             "classic sheet; rlcard = RLCard",
             "decide: the player plays or keeps a playable drawn card (force_play: plays it). rlcard: no "
             "decision: a drawn card of the current colour is played at once with its effect, a drawn wild "
             "(Wild Draw Four too, without its penalty) is played at once naming a random colour, any other "
             "drawn card is kept, even one that matches by number or symbol. Needs force_play and "
             "draw_until_playable false.",
             slot="drawn_rlcard"),
        _opt("extra_wild", "bool", (), {"pocket": False},
             "Pocket sheet (the unnamed 52nd card)",
             "Adds a second plain Wild: 52 cards instead of 51."),
        _opt("dice_wd4_bluff", "bool", (), {"dice": False},
             "Dice sheet; project option",
             "Wild Draw Four may be played while another die matches (bluff); "
             "false: offered only when legal.",
             slot="dice_bluff"),
        _opt("dice_set", "path", (), {"dice": "default"},
             "project (its own dice set)",
             "The dice in the bag: the packaged 24-dice set or your own file "
             "(validated on load; needs 5 per player + 1)."),
    )
}


def options_for(game: str) -> list[str]:
    """The option names that exist for ``game``, in documentation order."""
    _check_game(game)
    return [name for name, spec in OPTIONS.items() if spec.applies_to(game)]


def _defaults(game: str) -> dict[str, Any]:
    return {name: OPTIONS[name].default[game] for name in options_for(game)}


def presets_for(game: str) -> list[str]:
    """The preset names of ``game``, sorted."""
    _check_game(game)
    return sorted(PRESETS[game])


# ---------------------------------------------------------------------------------------------
# validation helpers


def _suggest(word: Any, choices) -> str:
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    if not close:
        lowered = [c for c in choices if c.lower() == word.lower()]
        close = lowered[:1]
    return f" (did you mean {close[0]!r}?)" if close else ""


def _check_game(game: Any) -> None:
    if not isinstance(game, str) or game not in GAMES:
        raise ValueError(
            f"unknown game {game!r}{_suggest(game, GAMES)}; known games: {', '.join(GAMES)}"
        )


def _check_option_name(game: str, name: Any) -> OptionSpec:
    """The spec of option ``name`` for ``game``, or a ValueError."""
    if not isinstance(name, str):
        raise ValueError(
            f"rule option names must be strings; got {name!r} for game {game!r}"
        )
    spec = OPTIONS.get(name)
    if spec is None:
        known = options_for(game)
        raise ValueError(
            f"unknown rule option {name!r} for game {game!r}{_suggest(name, known)}; "
            f"known options: {', '.join(known)}"
        )
    if not spec.applies_to(game):
        raise ValueError(
            f"rule option {name!r} does not apply to game {game!r}; it applies to: "
            f"{', '.join(spec.games)}"
        )
    return spec


def _type_name(v: Any) -> str:
    return type(v).__name__


def _check_value(spec: OptionSpec, game: str, value: Any) -> Any:
    """Validate one option value for ``game``; return it as a plain Python value."""
    name = spec.name
    tail = f" (game {game!r})"
    allowed = spec.allowed_for(game)

    if spec.kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, np.bool_):
            return bool(value)
        raise ValueError(
            f"rule option {name!r} must be a bool (true or false); "
            f"got {short_repr(value)} ({_type_name(value)}){tail}"
        )

    if spec.kind == "int":
        lo, hi = allowed
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ValueError(
                f"rule option {name!r} must be an int in the range {lo}..{hi}; "
                f"got {short_repr(value)} ({_type_name(value)}){tail}"
            )
        value = int(value)
        if not lo <= value <= hi:
            raise ValueError(
                f"rule option {name!r} must be an int in the range {lo}..{hi}; got {short_repr(value)}{tail}"
            )
        return value

    if spec.kind == "float":
        lo, hi = allowed
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(
                f"rule option {name!r} must be a number in the range {lo}..{hi}; "
                f"got {short_repr(value)} ({_type_name(value)}){tail}"
            )
        value = float(value)
        if math.isnan(value) or not lo <= value <= hi:
            raise ValueError(
                f"rule option {name!r} must be a number in the range {lo}..{hi}; "
                f"got {short_repr(value)}{tail}"
            )
        return value

    if spec.kind == "choice":
        if isinstance(value, (bool, np.bool_)) and bool(value) in spec.aliases:
            return spec.aliases[bool(value)]
        if not isinstance(value, str) or value not in allowed:
            raise ValueError(
                f"rule option {name!r} must be one of {', '.join(repr(a) for a in allowed)}"
                f"{_aliases_text(spec)}; got {short_repr(value)}{tail}{_suggest(value, allowed)}"
            )
        return value

    if spec.kind == "path":
        return _check_dice_set_path(spec, game, value)

    raise AssertionError(spec.kind)  # pragma: no cover


def _aliases_text(spec: OptionSpec) -> str:
    if not spec.aliases:
        return ""
    return " (" + ", ".join(f"{_md(k).strip('`')} means {v!r}" for k, v in spec.aliases.items()) + ")"


def _check_dice_set_path(spec: OptionSpec, game: str, value: Any) -> str:
    name = spec.name
    tail = f" (game {game!r})"
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value:
        raise ValueError(
            f"rule option {name!r} must be 'default' or a path to a YAML/JSON dice-set file; "
            f"got {short_repr(value)}{tail}"
        )
    if value != "default" and not os.path.exists(value):  # what is there but not a file: the loader says what
        raise ValueError(
            f"rule option {name!r} must be 'default' or an existing YAML/JSON dice-set file; "
            f"no such file: {short_repr(value)}{tail}"
        )
    return value


def _load_dice_set(game: str, path: str) -> DiceSet:
    from uno_env.core.dice_set import load_dice_set

    try:
        return load_dice_set(path)
    except ValueError as e:
        raise ValueError(f"rule option 'dice_set' (game {game!r}): {e}") from None


#: RLCard 1.2.0's UNO (rlcard/games/uno), for comparison with published results.  Every classic option is
#: spelled out here, none taken from the defaults, so a change of a default never changes this game (a test
#: checks that every classic option is listed).  What RLCard does that this preset does not copy (its bugs) is
#: listed on the docs' classic UNO page (Presets).
RLCARD_PRESET: dict[str, Any] = {
    "num_players": 2,
    "episode": "round",  # one game, no match
    "reward": "win_loss",  # +1 / -1
    "target_score": 500,  # unused with a single round
    "uno_call": "auto",  # RLCard has no UNO call
    "uno_catch_probability": 1.0,  # unused with automatic calls
    "max_turns": 5000,  # RLCard has no limit; this project truncates
    "first_wild": "random_colour",  # flip_top_card: a Wild gets a random colour; a Wild Draw Four goes back
    "first_draw_two": "play",  # perform_top_card: player 0 draws 2 and still plays
    "first_reverse": "dealer",  # perform_top_card: the direction flips and the last seat plays first
    "reverse_two_players": "reverse",  # _preform_non_number_action: a Reverse never skips
    "draw_until_playable": False,
    "voluntary_draw": False,  # get_legal_actions: "draw" only when nothing else is legal
    "wd4_legality": "any_playable",  # get_legal_actions: Wild Draw Four only when nothing else is legal
    "wd4_challenge": False,
    "stacking": "off",
    "seven_zero": False,
    "jump_in": False,
    "force_play": False,  # no decision after a draw at all: drawn_card decides
    "drawn_card": "rlcard",  # _perform_draw_action
}

#: Named rule sets: game -> preset name -> the full option mapping of that preset.
#: Every game has "standard" (the defaults); classic also has "official" (retail rules) and "rlcard".
PRESETS: dict[str, dict[str, dict[str, Any]]] = (
    {
        "classic": {
            "standard": _defaults("classic"),
            # today's retail rules, not in the seeds: Wild Draw Four legal with no card of the current
            # colour, bluffing allowed, the next player may challenge (and then sees the hand)
            "official": {
                **_defaults("classic"),
                "wd4_legality": "colour",
                "wd4_challenge": True,
            },
            "rlcard": dict(RLCARD_PRESET),
        },
        "pocket": {"standard": _defaults("pocket")},
        "dice": {"standard": _defaults("dice")},
    }
)


def _check_preset(game: str, preset: Any) -> dict[str, Any]:
    if preset is None:
        preset = "standard"
    if not isinstance(preset, str) or preset not in PRESETS[game]:
        known = presets_for(game)
        raise ValueError(
            f"unknown preset {preset!r} for game {game!r}{_suggest(preset, known)}; "
            f"known presets: {', '.join(known)}"
        )
    return PRESETS[game][preset]


# ---------------------------------------------------------------------------------------------
# RuleConfig


@dataclasses.dataclass(frozen=True, repr=False)
class RuleConfig:
    """The validated rules of one game. Build it with :meth:`make`, :meth:`from_dict` or :meth:`from_yaml`;
    options that do not exist for ``game`` are ``None``. Fields: ``game`` and one per option of :data:`OPTIONS`."""

    # one field per row of OPTIONS; the tests check that this block is what the table generates
    # generated-types:start rule-config (tools/gen_typing.py writes this block; do not edit)
    game: str
    num_players: int | None = None
    episode: str | None = None
    reward: str | None = None
    target_score: int | None = None
    uno_call: str | None = None
    uno_catch_probability: float | None = None
    max_turns: int | None = None
    first_wild: str | None = None
    first_draw_two: str | None = None
    first_reverse: str | None = None
    reverse_two_players: str | None = None
    draw_until_playable: bool | None = None
    voluntary_draw: bool | None = None
    wd4_legality: str | None = None
    wd4_challenge: bool | None = None
    stacking: str | None = None
    seven_zero: bool | None = None
    jump_in: bool | None = None
    force_play: bool | None = None
    drawn_card: str | None = None
    extra_wild: bool | None = None
    dice_wd4_bluff: bool | None = None
    dice_set: str | None = None
    # generated-types:end rule-config

    # -- construction -------------------------------------------------------------------------

    def __post_init__(self) -> None:
        game = self.game
        _check_game(game)
        for name, spec in OPTIONS.items():
            value = getattr(self, name)
            if not spec.applies_to(game):
                if value is not None:
                    _check_option_name(game, name)  # raises "does not apply to game"
                continue
            if value is None:
                raise ValueError(
                    f"rule option {name!r} is missing for game {game!r}; "
                    f"build configs with RuleConfig.make(game, preset, **overrides)"
                )
            checked = _check_value(spec, game, value)
            if checked is not value:
                object.__setattr__(self, name, checked)
        if game == "classic" and self.drawn_card == "rlcard":
            for name in ("force_play", "draw_until_playable"):
                if getattr(self, name):
                    raise ValueError(
                        f"rule option {name!r} must be false with drawn_card='rlcard' (game 'classic'): that rule "
                        f"decides the drawn card itself (one card, played or kept without a decision); got "
                        f"{name}=true"
                    )
        if game == "dice":
            dice_set, num_players = cast(str, self.dice_set), cast(int, self.num_players)  # options of every dice game
            dice = _load_dice_set(game, dice_set)
            need = 5 * num_players + 1
            if len(dice.faces) < need:
                raise ValueError(
                    f"rule option 'dice_set' (game 'dice'): the dice set {self.dice_set!r} has "
                    f"{len(dice.faces)} dice but num_players={self.num_players} needs "
                    f"{need} (5 per hand + 1 centre die); at most "
                    f"{(len(dice.faces) - 1) // 5} players fit"
                )

    @classmethod
    def make(cls, game: str, preset: str | None = None, **overrides: Any) -> RuleConfig:
        """The rules of ``game``: the ``preset`` (default ``"standard"``) with ``overrides``."""
        _check_game(game)
        values = dict(_check_preset(game, preset))
        for name, value in overrides.items():
            _check_option_name(game, name)
            if value is None:
                spec = OPTIONS[name]
                _check_value(spec, game, value)  # raises with the option's allowed values
            values[name] = value
        return cls(game=game, **values)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RuleConfig:
        """Build from a mapping: ``game`` (required), optional ``preset``, then options."""
        if not isinstance(d, Mapping):
            raise ValueError(
                f"a rule configuration must be a mapping with a 'game' key; got {_type_name(d)}"
            )
        if "game" not in d:
            raise ValueError(
                f"a rule configuration needs the key 'game' (one of {', '.join(GAMES)}); "
                f"got keys: {', '.join(map(str, d)) or '(none)'}"
            )
        rest = {k: v for k, v in d.items() if k not in ("game", "preset")}
        for k in rest:
            if not isinstance(k, str):
                _check_game(d["game"])
                _check_option_name(d["game"], k)
        return cls.make(d["game"], d.get("preset"), **rest)

    @classmethod
    def from_yaml(cls, path: str | os.PathLike) -> RuleConfig:
        """Read a rules YAML file (``game:``, optional ``preset:``, then options).

        A relative ``dice_set`` path is resolved against the YAML file's directory.
        """
        path = os.fspath(path)
        data = load_yaml_file(path, "rules file")
        if data is None:
            raise ValueError(f"rules file {path!r}: the file is empty; expected a mapping "
                             f"with at least 'game'")
        if not isinstance(data, dict):
            raise ValueError(
                f"rules file {path!r}: the top level must be a mapping (game: ..., options); "
                f"got {_type_name(data)}"
            )
        if "game" not in data:
            raise ValueError(
                f"rules file {path!r}: missing the required key 'game' "
                f"(one of {', '.join(GAMES)})"
            )
        ds = data.get("dice_set")
        if isinstance(ds, str) and ds != "default" and not os.path.isabs(ds):
            data = {**data, "dice_set": os.path.join(os.path.dirname(path), ds)}
        try:
            return cls.from_dict(data)
        except ValueError as e:
            raise ValueError(f"rules file {path!r}: {e}") from None

    # -- use ----------------------------------------------------------------------------------

    options_for = staticmethod(options_for)
    presets_for = staticmethod(presets_for)

    def options(self) -> dict[str, Any]:
        """This game's options and their values (no ``game`` key)."""
        return {name: getattr(self, name) for name in options_for(self.game)}

    def to_dict(self) -> dict[str, Any]:
        """Plain data (``game`` plus this game's options); ``from_dict`` round-trips it."""
        return {"game": self.game, **self.options()}

    def to_yaml(self) -> str:
        """The config as YAML text that :meth:`from_yaml` reads back."""
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    def replace(self, **overrides: Any) -> RuleConfig:
        """A new config with ``overrides`` applied, validated like :meth:`make`."""
        if "game" in overrides:
            raise ValueError(
                "replace() cannot change the game (its options differ); "
                "use RuleConfig.make(game, ...)"
            )
        values = self.options()
        for name, value in overrides.items():
            _check_option_name(self.game, name)
            if value is None:
                _check_value(OPTIONS[name], self.game, value)
            values[name] = value
        return type(self)(game=self.game, **values)

    def non_defaults(self) -> dict[str, Any]:
        """The options whose value differs from the game's standard default."""
        defaults = _defaults(self.game)
        return {k: v for k, v in self.options().items() if v != defaults[k]}

    def load_dice_set(self) -> DiceSet:
        """The validated dice set (UNO Dice only)."""
        if self.game != "dice":
            raise ValueError(f"game {self.game!r} has no dice set; only 'dice' does")
        return _load_dice_set(self.game, cast(str, self.dice_set))

    def __repr__(self) -> str:
        parts = [repr(self.game)] + [f"{k}={v!r}" for k, v in self.non_defaults().items()]
        return f"RuleConfig.make({', '.join(parts)})"

    __str__ = __repr__


_FIELD_TYPES = {"bool": "bool | None", "int": "int | None", "float": "float | None", "choice": "str | None",
                "path": "str | None"}

#: The validated rules of one game; its fields are ``game`` and one per row of :data:`OPTIONS`.
# ---------------------------------------------------------------------------------------------
# documentation


def _md(value: Any) -> str:
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, str):
        return f"`{value}`"
    if isinstance(value, int):
        return f"{value:,}".replace(",", "_") if value >= 10_000 else str(value)
    return str(value)


def _allowed_md(spec: OptionSpec, game: str) -> str:
    allowed = spec.allowed_for(game)
    if spec.kind == "bool":
        return "`true`, `false`"
    if spec.kind == "choice":
        return ", ".join(_md(a) for a in allowed)
    if spec.kind in ("int", "float"):
        lo, hi = allowed
        return f"{_md(lo)}..{_md(hi)}"
    return "`default` or a path to a YAML/JSON dice-set file"


def _per_game(spec: OptionSpec, games: tuple[str, ...], fn) -> str:
    cells = {g: fn(g) for g in games}
    if len(set(cells.values())) == 1:
        return next(iter(cells.values()))
    return "; ".join(f"{g}: {cells[g]}" for g in games)


def rules_table_markdown(game: str | None = None) -> str:
    """The rules table as Markdown: all options, or only ``game``'s with its defaults/ranges."""
    if game is not None:
        _check_game(game)
    lines = [
        "| option | games | default | allowed values | meaning | source |",
        "|---|---|---|---|---|---|",
    ]
    for name, spec in OPTIONS.items():
        if game is not None and not spec.applies_to(game):
            continue
        games = spec.games if game is None else (game,)
        default = _per_game(spec, games, lambda g, spec=spec: _md(spec.default[g]))
        allowed = _per_game(spec, games, lambda g, spec=spec: _allowed_md(spec, g))
        row = [
            f"`{name}`",
            ", ".join(spec.games),
            default,
            allowed,
            spec.doc,
            spec.source,
        ]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
    return "\n".join(lines) + "\n"


# -- `uno-env rules`: print the options table -----------------------------------------------------


def add_arguments(parser) -> None:
    """Command-line options of ``uno-env rules``."""
    parser.add_argument("--game", choices=GAMES, default=None, help="only this game's options")


def run(args) -> int:
    """``uno-env rules``: print the rules options table (of one game with ``--game``) as Markdown."""
    print(rules_table_markdown(args.game))
    return 0


def make_rules(game: str, num_players: int | None, rules: Any) -> RuleConfig:
    """Normalise the ``rules`` argument: None, a preset name, a dict, a YAML path or a :class:`RuleConfig`."""
    if isinstance(rules, RuleConfig):
        if rules.game != game:
            raise ValueError(f"rules are for game {rules.game!r}, but the environment is {game!r}")
        cfg = rules
    elif rules is None:
        cfg = RuleConfig.make(game)
    elif _is_yaml_path(rules):
        cfg = RuleConfig.from_yaml(rules)
        if cfg.game != game:
            raise ValueError(f"rules file {rules!r} is for game {cfg.game!r}, but the environment is {game!r}")
    elif isinstance(rules, str):
        cfg = RuleConfig.make(game, preset=rules)
    elif isinstance(rules, Mapping):
        d = dict(rules)
        if d.setdefault("game", game) != game:
            raise ValueError(f"rules are for game {d['game']!r}, but the environment is {game!r}")
        cfg = RuleConfig.from_dict(d)
    else:
        raise TypeError(
            f"rules must be None, a preset name, a dict, a YAML path or a RuleConfig; got {type(rules).__name__}"
        )
    if num_players is not None:
        # a float or bool equal to the rules' count would pass the comparison below unnoticed
        num_players = _check_value(OPTIONS["num_players"], cfg.game, num_players)
    if num_players is not None and num_players != cfg.num_players:
        if _gives_num_players(rules):
            raise ValueError(f"num_players is given twice with different values: num_players={short_repr(num_players)} "
                             f"but the rules say num_players={cfg.num_players}; give it once (for a RuleConfig: "
                             f"rules.replace(num_players=...))")
        cfg = cfg.replace(num_players=num_players)
    return cfg


def _is_yaml_path(rules: Any) -> bool:
    """Whether a ``rules`` string names a YAML file (``.yaml``/``.yml`` in any case) rather than a preset."""
    return isinstance(rules, str) and rules.lower().endswith((".yaml", ".yml"))


def _gives_num_players(rules: Any) -> bool:
    """Whether the ``rules`` argument itself sets num_players (a preset name or None leaves it to the caller)."""
    if isinstance(rules, RuleConfig):
        return True
    if isinstance(rules, Mapping):
        return "num_players" in rules
    if _is_yaml_path(rules):
        try:
            data = load_yaml_file(rules, "rules file")  # already read and checked once by from_yaml
        except ValueError:
            return False
        return isinstance(data, Mapping) and "num_players" in data
    return False
