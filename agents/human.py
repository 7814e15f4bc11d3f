"""``human``: a person plays in the terminal; ``uno-env play`` (:mod:`uno_env.agents.play`) seats one at a table.

At each of your turns you see the public state, your hand and the legal actions, numbered; type a number or the
exact action name (e.g. ``play red 7``, ``draw``, ``choose colour blue``).  An unknown or illegal choice is refused
with the reason and you are asked again.  ``help`` lists the actions again, ``quit`` or Ctrl-D leaves.
"""
from __future__ import annotations

import difflib
import re
import sys
from collections.abc import Callable
from typing import Any, TextIO

import numpy as np

from uno_env.core.cards import COLOURS, WILD_DRAW_FOUR, WILD_DRAW_TWO
from uno_env.core.queries import (
    PH_COLOUR,
    PH_DRAWN,
    PH_GIVE,
    PH_JUMP,
    PH_PENDING,
    PH_SWAP,
    PHASE_NAMES,
)
from uno_env.render import render_ansi

from .base import BaseAgent, NoLegalActionError, split_observation

__all__ = ["HumanAgent", "HumanQuit"]

_QUIT_WORDS = {"q", "quit", "exit"}
_HELP_WORDS = {"?", "h", "help"}


class HumanQuit(Exception):
    """The person ended the game (Ctrl-D / end of input, or ``quit``)."""


_CHOICE_NUMBER = re.compile(r"-?[0-9]+")
#: longest input line read; the rest of a longer line is read in pieces of this size and dropped, so a pasted
#: megabyte costs no more memory than this
MAX_LINE = 4096
#: how much of an unknown choice is quoted back
_ECHO = 40


class _Unreadable(Exception):
    """An input line that was dropped; the message says why."""


def _clip(text: str, limit: int = _ECHO) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _norm(text: str) -> str:
    return " ".join(text.strip().lower().split())


class HumanAgent(BaseAgent):
    """Asks a person for each action, reading ``input_stream`` and writing ``output_stream`` (default: the terminal).

    ``state_fn`` (optional) returns the game's state row so the full public table can be shown with
    :func:`uno_env.render.render_ansi`; without it the public part of the observation is shown.
    """

    name = "human"
    #: it reads the terminal: a program that owns the terminal itself (``uno-env serve``) must not seat it
    needs_terminal = True

    def __init__(
        self,
        game: Any = "classic",
        seed: int | None = None,
        input_stream: TextIO | None = None,
        output_stream: TextIO | None = None,
        state_fn: Callable[[], np.ndarray] | None = None,
        prompt: str = "your choice> ",
    ):
        super().__init__(game, seed)
        self.input_stream = input_stream
        self.output_stream = output_stream
        self.state_fn = state_fn
        self.prompt = prompt
        self._names = [_norm(n) for n in self.game.action_names]
        self._ids = {n: i for i, n in enumerate(self._names)}

    def __getstate__(self):  # streams and callbacks do not travel to other processes
        d = dict(self.__dict__)
        d["input_stream"] = d["output_stream"] = d["state_fn"] = None
        return d

    # ------------------------------------------------------------------------------------------ I/O
    @property
    def _in(self) -> TextIO:
        return self.input_stream if self.input_stream is not None else sys.stdin

    @property
    def _out(self) -> TextIO:
        return self.output_stream if self.output_stream is not None else sys.stdout

    def say(self, text: str = "") -> None:
        """Write a line to the player's terminal."""
        self._out.write(text + "\n")
        self._out.flush()

    def _read(self) -> str:
        """One line of input; :class:`_Unreadable` for a line that is too long or not text."""
        self._out.write(self.prompt)
        self._out.flush()
        try:
            line = self._in.readline(MAX_LINE)
        except UnicodeDecodeError:
            raise _Unreadable("that line is not UTF-8 text") from None
        if line == "":  # end of input (Ctrl-D)
            raise HumanQuit("end of input")
        if len(line) >= MAX_LINE and not line.endswith("\n"):
            while True:
                try:
                    rest = self._in.readline(MAX_LINE)
                except UnicodeDecodeError:
                    continue
                if rest == "" or rest.endswith("\n"):
                    break
            raise _Unreadable(f"that line is longer than {MAX_LINE - 1} characters")
        return line

    # ------------------------------------------------------------------------------------------ display
    def describe(self, obs: np.ndarray, mask: np.ndarray) -> str:
        """The public state (table), the hand and the numbered legal actions."""
        ov, g = self.obs_view, self.game
        names = g.kinds.names
        lines = []
        if self.state_fn is not None:
            lines.append(render_ansi(g, self.state_fn()))
        else:
            top = names[int(np.argmax(obs[ov.top]))]
            colour = COLOURS[int(np.argmax(obs[ov.colour]))]
            sizes = ", ".join(str(int(x)) for x in obs[ov.hand_sizes])
            lines.append(f"top: {top}   colour: {colour}   hand sizes (you first): {sizes}   "
                         f"draw pile: {int(obs[ov.draw_size.start])}")
        hand = obs[ov.hand]
        lines.append("your hand: " + (", ".join(
            names[k] + (f" x{int(c)}" if c > 1 else "") for k, c in enumerate(hand) if c) or "(empty)"))
        drawn = obs[ov.drawn]
        if drawn.any():
            lines.append(f"you drew: {names[int(np.argmax(drawn))]}")
        phase = PHASE_NAMES[int(np.argmax(obs[ov.phase]))]
        lines.append(f"phase: {phase}. Legal actions:")
        for i, a in enumerate(np.flatnonzero(mask), start=1):
            lines.append(f"  {i:>2}. {self._label(int(a), obs)}")
        return "\n".join(lines)

    def _label(self, action: int, obs: np.ndarray) -> str:
        """The action's name; a ``play die`` action also says the face the die shows."""
        name = self.game.action_names[action]
        if self.actions.num_dice and action >= self.actions.play_die:
            name += f" ({self.game.kinds.names[self.actions.play_kind(action, obs)]})"
        return name

    def why_illegal(self, action: int, obs: np.ndarray) -> str:
        """A short reason why ``action`` is not legal in the observed state."""
        ov, av, g = self.obs_view, self.actions, self.game
        name = g.action_names[action]
        phase = int(np.argmax(obs[ov.phase]))
        hand = obs[ov.hand]
        k = av.k
        drawn = obs[ov.drawn]
        if phase == PH_COLOUR:
            return "first name the colour of your wild (a 'choose colour ...' action)"
        if phase == PH_DRAWN:
            d = g.kinds.names[int(np.argmax(drawn))] if drawn.any() else "a card"
            return f"you just drew {d}: play it (when it can be played) or keep it"
        if phase == PH_PENDING:
            return "a draw card is aimed at you: accept it (or challenge or stack it, when listed)"
        if phase == PH_GIVE:
            return "give one card of your hand to the next player (a 'give ...' action)"
        if phase == PH_SWAP:
            return "choose whom to swap hands with (a 'swap hands ...' action)"
        if phase == PH_JUMP:
            return "you may only jump in with the card identical to the top card, or pass"
        if av.num_dice and action >= av.play_die:
            die = (action - av.play_die) % av.num_dice
            if obs[ov.die_place][die * (g.num_players + 2)] != 1:
                return f"you do not hold die {die}"
            if action >= av.play_die_uno and int(hand.sum()) != 2:
                return "call UNO only with the play that leaves you one die"
            kname = g.kinds.names[av.play_kind(action, obs)]
            if av.kind_symbol[av.play_kind(action, obs)] == WILD_DRAW_FOUR:
                return f"{kname} is legal only when no other die of yours matches the centre die"
            return f"die {die} shows {kname}, which does not match the centre die"
        if action < av.colour:
            kind = action % k
            kname = g.kinds.names[kind]
            if hand[kind] <= 0:
                return f"you do not hold {kname}"
            if action >= k and int(hand.sum()) != 2:
                return "call UNO only with the play that leaves you one card"
            top_kind, colour_id = int(np.argmax(obs[ov.top])), int(np.argmax(obs[ov.colour]))
            top, colour = g.kinds.names[top_kind], COLOURS[colour_id]
            sym = int(av.kind_symbol[kind])
            if sym in (WILD_DRAW_FOUR, WILD_DRAW_TWO) and not self.rules_query.restricted_wild_legal(hand, top_kind,
                                                                                               colour_id):
                return (f"{kname} is legal only when you have no other card to play"
                        if g.rules.wd4_legality != "colour" else
                        f"{kname} is legal only when you hold no card of the current colour ({colour})")
            return f"{kname} does not match the top card ({top}, colour {colour})"
        if action == av.draw:
            if self.game.name == "dice":
                return "you may draw only after a reroll (reroll first)"
            return "you may draw only when you cannot play"
        if action == av.reroll:
            return "reroll is only possible at the start of your turn" if g.name == "dice" else "there are no dice here"
        return f"'{name}' is not possible now (phase {PHASE_NAMES[phase]})"

    def parse(self, text: str, obs: np.ndarray, mask: np.ndarray) -> tuple[int | None, str]:
        """``(action, "")`` for a valid choice, else ``(None, reason)``."""
        legal = np.flatnonzero(mask)
        t = _norm(text)
        if not t:
            return None, f"type a number from 1 to {len(legal)} or an action name"
        # ASCII digits only: str.isdigit() also passes superscripts such as "²", which int() refuses
        if _CHOICE_NUMBER.fullmatch(t):
            i = int(t) if len(t) <= 9 else None  # int() refuses thousands of digits; no list is that long anyway
            if i is not None and 1 <= i <= len(legal):
                return int(legal[i - 1]), ""
            shown = str(i) if i is not None else t[:12] + "..."
            return None, f"there is no choice {shown}; type a number from 1 to {len(legal)} or an action name"
        if self.actions.num_dice:  # UNO Dice: "play red 1" names the die showing it, when only one does
            av = self.actions
            names = self.game.kinds.names
            same = [int(a) for a in legal if a >= av.play_die and t == _norm(
                f"play {names[av.play_kind(int(a), obs)]}" + (" + uno" if a >= av.play_die_uno else ""))]
            if len(same) == 1:
                return same[0], ""
            if same:
                return None, ("several dice show it: " + ", ".join(self._label(a, obs) for a in same)
                              + "; type its number or 'play die N'")
        if t in self._ids:
            a = self._ids[t]
            if mask[a]:
                return a, ""
            return None, f"'{self.game.action_names[a]}' is not legal now: {self.why_illegal(a, obs)}"
        close = difflib.get_close_matches(t, [self._names[a] for a in legal], n=1, cutoff=0.6)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        return None, f"unknown action {_clip(text.strip())!r}{hint}"

    # ------------------------------------------------------------------------------------------ Agent
    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """Show the table and the legal actions, then read the player's choice (a number or an action name)."""
        obs, mask = split_observation(observation, action_mask)
        if not np.any(mask):
            raise NoLegalActionError("human: no legal action (all-zero mask)")
        self.say(self.describe(obs, mask))
        while True:
            try:
                line = self._read()
            except _Unreadable as exc:
                self.say(f"  {exc}. Try again.")
                continue
            t = _norm(line)
            if t in _QUIT_WORDS:
                raise HumanQuit("quit")
            if t in _HELP_WORDS:
                self.say(self.describe(obs, mask))
                continue
            action, reason = self.parse(line, obs, mask)
            if action is not None:
                return action
            self.say(f"  {reason}. Try again.")
