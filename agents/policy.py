"""Trained policies in a pickle-free format, played with numpy alone (no torch needed to play them).

A saved policy is two files: ``<stem>.npz`` holds the actor's layers (``W0, b0, ... Wn, bn``, plain float32
arrays, read with ``allow_pickle=False``) and a JSON string ``meta`` with the architecture (activation, input
transform, whether the mask is an input) and what it was trained for (game, players, rules, sizes);
``<stem>.json`` beside it repeats that metadata for people and tools.  Loading runs no code from the file,
unlike Stable-Baselines3 zips and RLlib checkpoints, which unpickle Python objects.

* :class:`PolicyWeights`: the network (an MLP over ``symlog(observation)`` and, optionally, the action mask and
  the heuristic's suggestion, ``advice``).
* :func:`save_policy_files` / :func:`load_weights`: write and read the two files.
* :class:`NumpyPolicyAgent`: a policy as an agent (``act``, ``act_batch``, ``reset``): the most likely legal
  action, or a sample from the masked softmax with its own seeded stream.
* :func:`heuristic_advisor`: the heuristic's choice for a batch of decisions, the ``advice`` input (the compiled
  heuristic of :mod:`uno_env.players.card_heuristic`: numba, a core dependency, so still no torch).
"""
from __future__ import annotations

import ast
import json
import math
import os
import re
import sys
import zipfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from uno_env._files import MAX_POLICY_FILE_BYTES, InputFileError, open_regular
from uno_env.config import GAMES
from uno_env.core.layout import MAX_PLAYERS
from uno_env.yaml_io import is_finite_number, short_repr

from .base import NoLegalActionError, resolve_game, split_observation

__all__ = ["PolicyWeights", "save_weights", "save_policy_files", "load_weights", "NumpyPolicyAgent",
           "heuristic_advisor", "compiled_heuristic", "PolicyFormatError", "POLICY_FORMAT"]

#: the ``format`` field of a policy's metadata
POLICY_FORMAT = "uno-env policy v1"
_ACTIVATIONS = ("tanh", "relu")
_TRANSFORMS = ("symlog", "none")
#: what a policy may be told besides the observation: nothing, or the heuristic's choice (a one-hot over the
#: actions, computed from the same observation and mask by :func:`heuristic_advisor`)
ADVICE = ("none", "heuristic")


class PolicyFormatError(ValueError):
    """A policy file that is not a readable uno-env policy (missing arrays, bad metadata, wrong shapes)."""


@dataclass
class PolicyWeights:
    """The actor of an MLP policy as numpy arrays: input transform, hidden layers, logits layer."""

    weights: list[np.ndarray]  # (out, in) per layer, the last one gives the logits
    biases: list[np.ndarray]
    activation: str  # "tanh" | "relu"
    obs_transform: str  # "symlog" | "none"
    include_mask: bool
    advice: str = "none"  # "heuristic": the heuristic's choice, one-hot, follows the observation (and mask)
    advice_gain: float = 0.0  # added to the advised action's logit: the policy is the heuristic until it learns not to

    @property
    def obs_dim(self) -> int:
        """The observation length the network takes (the mask and the advice excluded)."""
        extra = (self.num_actions if self.include_mask else 0) + (self.num_actions if self.advice != "none" else 0)
        return self.weights[0].shape[1] - extra

    @property
    def num_actions(self) -> int:
        """The number of logits, A."""
        return self.weights[-1].shape[0]

    def logits(self, obs: np.ndarray, masks: np.ndarray, advice: np.ndarray | None = None) -> np.ndarray:
        """The action logits (B, A) of observations (B, D) with legal masks (B, A), in numpy; a policy with
        ``advice`` also takes the advised action of every row (B,)."""
        x = np.asarray(obs, dtype=np.float32)
        if self.obs_transform == "symlog":
            x = np.sign(x) * np.log1p(np.abs(x))
        if self.include_mask:
            x = np.concatenate([x, np.asarray(masks, dtype=np.float32)], axis=1)
        if self.advice != "none":
            if advice is None:
                raise ValueError(f"this policy takes the {self.advice}'s suggested actions as an input (advice)")
            hint = np.zeros((x.shape[0], self.num_actions), dtype=np.float32)
            hint[np.arange(x.shape[0]), np.asarray(advice, dtype=np.int64)] = 1.0
            x = np.concatenate([x, hint], axis=1)
        last = len(self.weights) - 1
        inp = x
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w.T + b
            if i < last:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0, out=x)
        if self.advice != "none" and self.advice_gain:
            x = x + np.float32(self.advice_gain) * inp[:, -self.num_actions:]
        return x


def _network_meta(pw: PolicyWeights, meta: Mapping[str, Any]) -> dict[str, Any]:
    """``meta`` plus what :func:`load_weights` needs to rebuild the network (the .npz and the .json say the same)."""
    return {**meta, "activation": pw.activation, "obs_transform": pw.obs_transform, "include_mask": pw.include_mask,
            "advice": pw.advice, "advice_gain": pw.advice_gain, "layers": len(pw.weights)}


def save_weights(pw: PolicyWeights, path: str, meta: Mapping[str, Any] | None = None,
                 dtype: Any = np.float32) -> None:
    """Write ``pw`` as an ``.npz`` (``W0, b0, ... W{n}, b{n}`` and a JSON ``meta`` string), atomically.

    ``dtype=np.float16`` halves the file (the shipped policies); loading always gives float32."""
    # Any: numpy's stub types np.savez's **kwds beside its bool allow_pickle keyword, so an ndarray dict clashes
    arrays: dict[str, Any] = {}
    for i, (w, b) in enumerate(zip(pw.weights, pw.biases)):
        arrays[f"W{i}"] = np.asarray(w, dtype=dtype)
        arrays[f"b{i}"] = np.asarray(b, dtype=dtype)
    info = _network_meta(pw, meta or {})
    tmp = path + ".tmp.npz"
    np.savez(tmp, meta=np.array(json.dumps(info)), **arrays)
    os.replace(tmp, path)


def save_policy_files(pw: PolicyWeights, path: str, meta: Mapping[str, Any], dtype: Any = np.float32) -> str:
    """``<stem>.npz`` (weights + metadata) and ``<stem>.json`` (the metadata) for ``path`` (``.npz`` or a stem)."""
    stem = path[:-4] if path.endswith(".npz") else path
    info = {"format": POLICY_FORMAT, **meta}
    save_weights(pw, stem + ".npz", info, dtype)
    tmp = stem + ".json.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(_network_meta(pw, info), f, indent=2)
        f.write("\n")
    os.replace(tmp, stem + ".json")
    return stem + ".npz"


#: the most bytes the arrays of a policy file may declare, together (the .npy headers are read before any array is):
#: the shipped policies hold a few hundred KB, so this leaves room for far larger networks while a crafted header or
#: a zip bomb cannot make the loader allocate gigabytes
MAX_POLICY_BYTES = 64 * 2**20
#: the most bytes the ``meta`` string may declare (numpy stores it as UTF-32: a quarter million characters; the
#: shipped policies' metadata is under 3,000)
MAX_META_BYTES = 2**20
#: the longest .npy header read (numpy's own reader stops at the same length; it writes 128 bytes)
_MAX_NPY_HEADER = 10_000
_NPY_MAGIC = b"\x93NUMPY"
_NPY_HEADER_KEYS = {"descr", "fortran_order", "shape"}
#: the dtype strings a policy's arrays may have: the weights are floats (float16 in the shipped files), the
#: metadata one unicode string
_DESCR = re.compile(r"(?P<order>[<>|=]?)(?P<kind>[fU])(?P<size>[0-9]{1,9})")
_FLOAT_SIZES = (2, 4, 8)
_MAX_LAYERS = 64
_MAX_TEXT = 255  # characters of a name or other text field of the metadata


def _member(zf: zipfile.ZipFile, key: str) -> zipfile.ZipInfo | None:
    """The zip member numpy's ``np.load(...)[key]`` would read (a member named ``key`` itself first)."""
    names = zf.namelist()
    for name in (key, key + ".npy"):
        if name in names:
            return zf.getinfo(name)
    return None


@dataclass(frozen=True)
class _Entry:
    """One array of a policy file, its .npy header read and checked; its data not read yet."""

    key: str
    member: zipfile.ZipInfo
    dtype: np.dtype
    shape: tuple[int, ...]
    fortran_order: bool
    data_offset: int

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


def _header_dict(raw: bytes, version: tuple[int, int], path: str, key: str) -> dict[str, Any]:
    """The .npy header of entry ``key`` as the dict it must be, read with ``ast.literal_eval`` here rather than by
    numpy (whose reader ends in a tokenizer traceback on some crafted headers)."""
    bad = f"policy {path!r}: entry {key!r} has a malformed .npy header (not a uno-env policy)"
    try:
        header = ast.literal_eval(raw.decode("utf-8" if version == (3, 0) else "latin1"))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, UnicodeDecodeError):
        raise PolicyFormatError(f"{bad}: it is not a Python dict literal") from None
    if not isinstance(header, dict) or set(header) != _NPY_HEADER_KEYS:
        raise PolicyFormatError(f"{bad}: expected a dict of exactly 'descr', 'fortran_order' and 'shape', got "
                                f"{short_repr(header)}")
    shape = header["shape"]
    if not isinstance(shape, tuple) or not all(type(d) is int and d >= 0 for d in shape) or \
            not isinstance(header["fortran_order"], bool):
        raise PolicyFormatError(f"{bad}: expected 'shape' a tuple of sizes >= 0 and 'fortran_order' true or "
                                f"false, got {short_repr(shape)} and {short_repr(header['fortran_order'])}")
    return header


def _entry_dtype(descr: Any, path: str, key: str, text: bool) -> np.dtype:
    """The dtype of entry ``key``: one unicode string (``text``: the metadata) or floats (the weights)."""
    found = _DESCR.fullmatch(descr) if isinstance(descr, str) else None
    if found is None or (found["kind"] == "U") != text or (not text and int(found["size"]) not in _FLOAT_SIZES):
        wanted = "a text string" if text else "real numbers (float16, float32 or float64)"
        raise PolicyFormatError(f"policy {path!r}: not a pickle-free uno-env policy .npz (entry {key!r} holds "
                                f"{short_repr(descr)}, not {wanted})")
    return np.dtype(descr)


def _read_entry_header(zf: zipfile.ZipFile, path: str, key: str, member: zipfile.ZipInfo, text: bool) -> _Entry:
    """Entry ``key``'s .npy header, checked: a 0-d unicode string (``text``) or a float vector or matrix with no
    zero dimension.  Nothing past the header is read."""
    with zf.open(member) as f:
        lead = f.read(len(_NPY_MAGIC) + 2)
        if len(lead) < len(_NPY_MAGIC) + 2 or not lead.startswith(_NPY_MAGIC):
            raise PolicyFormatError(f"policy {path!r}: entry {key!r} is not a .npy array")
        version = (lead[-2], lead[-1])
        if version not in ((1, 0), (2, 0), (3, 0)):
            raise PolicyFormatError(f"policy {path!r}: entry {key!r} has .npy format version {version}; expected "
                                    f"1.0, 2.0 or 3.0 (what numpy writes)")
        width = 2 if version == (1, 0) else 4
        size_field = f.read(width)
        length = int.from_bytes(size_field, "little")
        if len(size_field) < width or length > _MAX_NPY_HEADER:
            raise PolicyFormatError(f"policy {path!r}: entry {key!r} has a .npy header of {length} bytes; at "
                                    f"most {_MAX_NPY_HEADER} are read (not a uno-env policy)")
        raw = f.read(length)
    if len(raw) < length:
        raise PolicyFormatError(f"policy {path!r}: entry {key!r} ends inside its .npy header")
    header = _header_dict(raw, version, path, key)
    dtype = _entry_dtype(header["descr"], path, key, text)
    shape = header["shape"]
    if text and shape != ():
        raise PolicyFormatError(f"policy {path!r}: {key!r} must be one JSON string, got an array of shape {shape}")
    if not text and (len(shape) not in (1, 2) or 0 in shape):
        raise PolicyFormatError(f"policy {path!r}: entry {key!r} has the shape {shape}; a layer's weights are a "
                                f"matrix and its biases a vector, neither empty")
    return _Entry(key, member, dtype, shape, header["fortran_order"], len(lead) + width + length)


def _checked_entries(zf: zipfile.ZipFile, path: str, members: dict[str, zipfile.ZipInfo], text: bool,
                     budget: int) -> tuple[dict[str, _Entry], int]:
    """The members' headers, and the bytes left of ``budget`` once every member's declared size is taken; refuses
    the member that passes it before any array is read."""
    entries = {}
    for key, member in members.items():
        entry = _read_entry_header(zf, path, key, member, text)
        if entry.nbytes > budget:
            raise PolicyFormatError(
                f"policy {path!r}: entry {key!r} declares {entry.nbytes} bytes, more than is left of the "
                f"{MAX_POLICY_BYTES} bytes a policy file may hold; refused (not a uno-env policy)")
        budget -= entry.nbytes
        entries[key] = entry
    return entries, budget


def _entry_data(zf: zipfile.ZipFile, path: str, entry: _Entry) -> bytes:
    """The data of ``entry``: exactly the bytes its header declares."""
    with zf.open(entry.member) as f:
        f.read(entry.data_offset)
        data = f.read(entry.nbytes + 1)
    if len(data) != entry.nbytes:
        held = "more" if len(data) > entry.nbytes else len(data)
        raise PolicyFormatError(f"policy {path!r}: entry {entry.key!r} holds {held} bytes of data where its header "
                                f"declares {entry.nbytes}")
    return data


def _read_array(zf: zipfile.ZipFile, path: str, entry: _Entry) -> np.ndarray:
    flat = np.frombuffer(_entry_data(zf, path, entry), dtype=entry.dtype)
    return flat.reshape(entry.shape, order="F" if entry.fortran_order else "C").astype(np.float32)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a policy's metadata holds")


def _read_meta(zf: zipfile.ZipFile, path: str) -> tuple[dict[str, Any], int]:
    """The metadata of the policy (a JSON object, not yet checked field by field) and what is left of the bytes
    its arrays may declare."""
    member = _member(zf, "meta")
    if member is None:
        raise PolicyFormatError(f"policy {path!r}: no 'meta' entry; not a uno-env policy .npz")
    entries, budget = _checked_entries(zf, path, {"meta": member}, True, MAX_POLICY_BYTES)
    entry = entries["meta"]
    if entry.nbytes > MAX_META_BYTES:
        raise PolicyFormatError(f"policy {path!r}: 'meta' declares {entry.nbytes} bytes; at most {MAX_META_BYTES}")
    big_endian = entry.dtype.byteorder == ">" or (entry.dtype.byteorder == "=" and sys.byteorder == "big")
    try:
        text = _entry_data(zf, path, entry).decode("utf-32-be" if big_endian else "utf-32-le").rstrip("\0")
        info = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise PolicyFormatError(f"policy {path!r}: 'meta' nests too deeply to read; not a uno-env policy (its "
                                f"metadata is a flat JSON object)") from None
    except ValueError as e:  # not text, not JSON, NaN, or an integer of more digits than Python reads
        raise PolicyFormatError(f"policy {path!r}: 'meta' is not a JSON object ({short_repr(str(e))})") from None
    if not isinstance(info, dict):
        raise PolicyFormatError(f"policy {path!r}: 'meta' is not a JSON object")
    return info, budget


def _int_in(lo: int, hi: float) -> Callable[[Any], bool]:
    return lambda v: type(v) is int and lo <= v <= hi  # the exact type: JSON true is a bool, an int subclass


def _text(limit: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and 0 < len(v) <= limit and v.isprintable()


def _one_of(choices: tuple[Any, ...]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and v in choices


#: the metadata fields uno-env reads or shows, each with what it must be (other fields are kept as they are)
_META_FIELDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "format": (repr(POLICY_FORMAT), lambda v: v == POLICY_FORMAT and isinstance(v, str)),
    "name": (f"printable text of 1..{_MAX_TEXT} characters", _text(_MAX_TEXT)),
    "algorithm": (f"printable text of 1..{_MAX_TEXT} characters", _text(_MAX_TEXT)),
    "game": (f"one of {', '.join(GAMES)}", _one_of(GAMES)),
    "num_players": (f"an integer in 2..{MAX_PLAYERS}", _int_in(2, MAX_PLAYERS)),
    "rules": ("a mapping of rule options", lambda v: isinstance(v, dict)),
    "obs_dim": ("a positive integer", _int_in(1, math.inf)),
    "num_actions": ("a positive integer", _int_in(1, math.inf)),
    "steps": ("an integer >= 0", _int_in(0, math.inf)),
    "layers": (f"an integer in 1..{_MAX_LAYERS}", _int_in(1, _MAX_LAYERS)),
    "activation": (f"one of {_ACTIVATIONS}", _one_of(_ACTIVATIONS)),
    "obs_transform": (f"one of {_TRANSFORMS}", _one_of(_TRANSFORMS)),
    "include_mask": ("true or false", lambda v: type(v) is bool),
    "advice": (f"one of {ADVICE}", _one_of(ADVICE)),
    "advice_gain": ("a number in 0..100", lambda v: is_finite_number(v) and 0.0 <= v <= 100.0),
    "policy": ("a mapping (net_arch, activation, ...)", lambda v: isinstance(v, dict)),
}
#: what a file needs to rebuild its network (files written before the advice input have no 'advice')
_META_REQUIRED = ("layers", "activation", "obs_transform", "include_mask")


def _check_meta_field(info: dict[str, Any], path: str, key: str) -> None:
    what, ok = _META_FIELDS[key]
    if key not in info and key in _META_REQUIRED:
        raise PolicyFormatError(f"policy {path!r}: meta {key!r} is missing; it must be {what}")
    if key in info and not ok(info[key]):
        raise PolicyFormatError(f"policy {path!r}: meta {key!r} must be {what}, got {short_repr(info[key])}")


def _check_meta(info: dict[str, Any], path: str) -> None:
    """Every field :data:`_META_FIELDS` names is what it must be; the keys are short printable text."""
    for key in info:
        if not _text(100)(key):
            raise PolicyFormatError(f"policy {path!r}: meta key {short_repr(key)} is not printable text of 1..100 "
                                    f"characters")
    for key in _META_FIELDS:
        _check_meta_field(info, path, key)


def _layer_entries(zf: zipfile.ZipFile, path: str, info: dict[str, Any], budget: int) -> dict[str, _Entry]:
    """The headers of the weights and biases of the ``layers`` the metadata declares, checked."""
    _check_meta_field(info, path, "layers")
    layers = info["layers"]
    found = {k: _member(zf, k) for i in range(layers) for k in (f"W{i}", f"b{i}")}
    missing = [k for k, m in found.items() if m is None]
    if missing:
        raise PolicyFormatError(f"policy {path!r}: missing arrays {missing}")
    return _checked_entries(zf, path, {k: m for k, m in found.items() if m is not None}, False, budget)[0]


def _read_policy_file(path: str) -> tuple[dict[str, Any], list[np.ndarray], list[np.ndarray]]:
    """The checked metadata and the raw layers of the policy ``path``; PolicyFormatError for anything else."""
    try:
        with open_regular(path, "policy", MAX_POLICY_FILE_BYTES) as fh, zipfile.ZipFile(fh) as zf:
            info, budget = _read_meta(zf, path)
            entries = _layer_entries(zf, path, info, budget)  # what the arrays are, before the rest of the metadata
            _check_meta(info, path)
            layers = range(info["layers"])
            ws = [_read_array(zf, path, entries[f"W{i}"]) for i in layers]
            bs = [_read_array(zf, path, entries[f"b{i}"]) for i in layers]
    except PolicyFormatError:
        raise
    except InputFileError as e:  # not a regular file, too large, unreadable: the message names the file
        raise PolicyFormatError(str(e)) from None
    except RecursionError:
        raise PolicyFormatError(f"policy {path!r}: nests too deeply to read; not a uno-env policy .npz") from None
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError) as e:
        # RuntimeError: an encrypted member; NotImplementedError: an unknown compression method
        raise PolicyFormatError(f"policy {path!r}: cannot read it as an .npz: {short_repr(str(e))}") from None
    return info, ws, bs


def _check_architecture(pw: PolicyWeights, info: dict[str, Any], path: str) -> None:
    """The layers chain, hold finite numbers, and agree with the sizes the metadata declares."""
    prev = None
    for i, (w, b) in enumerate(zip(pw.weights, pw.biases)):
        if w.ndim != 2 or b.shape != (w.shape[0],) or (prev is not None and w.shape[1] != prev):
            raise PolicyFormatError(f"policy {path!r}: layer {i} has weights {w.shape} and biases {b.shape}, "
                                    f"which do not chain")
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise PolicyFormatError(f"policy {path!r}: layer {i} holds NaN or infinite values")
        prev = w.shape[0]
    if pw.obs_dim < 1:
        raise PolicyFormatError(f"policy {path!r}: the first layer is too narrow for its mask and advice inputs")
    # the training config's 'policy' section is kept as it was given (an algorithm may export another actor), so
    # the sizes checked are those of the game the arrays were written for
    for key, has in (("obs_dim", pw.obs_dim), ("num_actions", pw.num_actions)):
        said = info.get(key)
        if said is not None and said != has:
            raise PolicyFormatError(f"policy {path!r}: meta {key!r} is {short_repr(said)}, but the arrays give "
                                    f"{has}")


def load_weights(path: str | os.PathLike) -> tuple[PolicyWeights, dict[str, Any]]:
    """The network and metadata of a policy ``.npz``; never unpickles.  The file must be a regular file of at most
    :data:`~uno_env._files.MAX_POLICY_FILE_BYTES`, its arrays' headers must declare at most
    :data:`MAX_POLICY_BYTES` in all (checked before any is read), and its metadata must hold what the fields
    uno-env reads must be; anything else is one :class:`PolicyFormatError` naming the file."""
    path = os.fspath(path)
    info, ws, bs = _read_policy_file(path)
    advice = info.get("advice", "none")  # files written before the advice input have none
    pw = PolicyWeights(ws, bs, info["activation"], info["obs_transform"], info["include_mask"], advice,
                       float(info.get("advice_gain", 0.0)))
    _check_architecture(pw, info, path)
    return pw, info


def compiled_heuristic(game: Any, weights: Mapping[str, float] | None = None
                       ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``f(observations (B, D), masks (B, A)) -> (B,) int64``: the compiled heuristic, the code
    :class:`~uno_env.agents.heuristic.HeuristicAgent` plays, with the same ``weights`` (in UNO Dice its dice player
    with the default dice weights, as the agent plays), with its inputs checked
    (:class:`~uno_env.agents.compiled.CompiledPlayer`)."""
    from uno_env.players.baselines import KIND_HEURISTIC
    from uno_env.players.parameters import baseline_weight_array

    from .compiled import CompiledPlayer

    g = resolve_game(game)
    return CompiledPlayer(g, KIND_HEURISTIC, baseline_weight_array(g, dict(weights or {})), "heuristic advice")


def heuristic_advisor(game: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``f(observations (B, D), masks (B, A)) -> (B,) int64``: the heuristic's action for every row, the input of
    a policy trained with ``advice: heuristic``: the compiled heuristic (the ``heuristic`` agent's choices)."""
    return compiled_heuristic(resolve_game(game))


#: relative gap between the two best logits under which :meth:`NumpyPolicyAgent.act_batch` recomputes a row alone:
#: batch and single-row BLAS differ by about 1e-6 of the logits' size, far below it
_TIE_MARGIN = 1e-3


class NumpyPolicyAgent:
    """A policy network played with numpy: ``act``/``act_batch``/``reset`` like the other agents.

    ``deterministic`` takes the most likely legal action; otherwise it samples from the masked softmax (Gumbel
    trick, one seeded stream).  Build it from :class:`PolicyWeights` or load one with :meth:`load`.  A policy
    trained with ``advice: heuristic`` asks :func:`heuristic_advisor` (the compiled heuristic)
    for the heuristic's choice on every observation and feeds it to the network (``game``, or the rules in the
    file's metadata, says which game the heuristic plays).
    """

    def __init__(self, weights: PolicyWeights, name: str = "policy", deterministic: bool = False,
                 seed: int | None = None, meta: Mapping[str, Any] | None = None, game: Any = None):
        self.weights = weights
        self.name = name
        self.deterministic = deterministic
        self.num_actions = weights.num_actions
        self.meta = dict(meta or {})
        self._seed = seed
        self.rng = np.random.default_rng(seed)
        self._advisor: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
        if weights.advice != "none":
            self._advisor = self._make_advisor(game)

    def _make_advisor(self, game: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        """The heuristic whose choice a policy with ``advice`` takes as an input (deterministic)."""
        if game is None:
            from uno_env.config import RuleConfig

            rules = self.meta.get("rules")
            if not isinstance(rules, Mapping):
                raise ValueError(f"policy {self.name!r} takes the heuristic's advice: give the game it plays (its "
                                 f"metadata names no rules)")
            game = RuleConfig.from_dict(rules)
        g = resolve_game(game)
        if g.obs_dim != self.weights.obs_dim or g.num_actions != self.num_actions:
            raise ValueError(f"policy {self.name!r} expects observations of shape ({self.weights.obs_dim},) and "
                             f"{self.num_actions} actions, but game {g.name!r} with {g.num_players} players gives "
                             f"({g.obs_dim},) and {g.num_actions}")
        return heuristic_advisor(g)

    @classmethod
    def load(cls, path: str | os.PathLike, game: Any = None, name: str | None = None, deterministic: bool = False,
             seed: int | None = None) -> NumpyPolicyAgent:
        """The policy in ``path`` (an ``.npz``); with ``game``, checked against its observation and action sizes."""
        pw, info = load_weights(path)
        if game is not None:
            g = resolve_game(game)
            trained = info.get("game")
            if isinstance(trained, str) and trained != g.name:
                raise ValueError(f"policy {os.fspath(path)!r} was trained for {trained!r}, not {g.name!r}")
            if pw.obs_dim != g.obs_dim or pw.num_actions != g.num_actions:
                raise ValueError(
                    f"policy {os.fspath(path)!r} expects observations of shape ({pw.obs_dim},) and "
                    f"{pw.num_actions} actions, but game {g.name!r} with {g.num_players} players gives "
                    f"({g.obs_dim},) and {g.num_actions}")
        stem = os.path.splitext(os.path.basename(os.fspath(path)))[0]
        return cls(pw, name=name or info.get("name") or stem, deterministic=deterministic, seed=seed, meta=info,
                   game=game)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the agent's sampling stream (``None``: fresh entropy)."""
        self._seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """The policy's action for one seat's ``observation`` and legal ``action_mask``."""
        observation, action_mask = split_observation(observation, action_mask)
        obs = np.asarray(observation, dtype=np.float32)[None, :]
        mask = action_mask[None, :]
        if not mask.any():
            raise NoLegalActionError(f"{self.name}: no legal action (all-zero mask)")
        return int(self.act_batch(obs, mask)[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The policy's actions for a batch: sampled (Gumbel-max) or, if deterministic, the argmax of the legal logits.
        """
        masks = np.asarray(action_masks) != 0
        advice = None if self._advisor is None else self._advisor(observations, action_masks)
        logits = self.weights.logits(observations, masks, advice)
        noise = None
        if not self.deterministic:
            u = self.rng.random(logits.shape, dtype=np.float32)
            noise = np.log(-np.log(np.clip(u, 1e-12, 1.0 - 1e-7)))
            logits = logits - noise
        logits[~masks] = -np.inf
        out = np.argmax(logits, axis=1).astype(np.int64)
        if logits.shape[0] > 1:
            # BLAS sums a batch in another order than a single row, which moves the logits in their last bits: where
            # the best two are that close, the row is computed alone, so that a choice never depends on its batch
            # (the batched arena plays the games of the one-at-a-time arena)
            top = np.partition(logits, -2, axis=1)[:, -2:]
            close = ~(top[:, 1] - top[:, 0] > _TIE_MARGIN * np.maximum(1.0, np.abs(top[:, 1])))
            obs = np.asarray(observations)
            for r in np.flatnonzero(close):
                one = self.weights.logits(obs[r: r + 1], masks[r: r + 1], None if advice is None else advice[r: r + 1])
                if noise is not None:
                    one = one - noise[r: r + 1]
                one[~masks[r: r + 1]] = -np.inf
                out[r] = int(np.argmax(one, axis=1)[0])
        return out

    def __repr__(self) -> str:
        return f"NumpyPolicyAgent(name={self.name!r}, deterministic={self.deterministic})"
