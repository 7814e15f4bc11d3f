"""Opening the files a user names: regular files only (directories where one is meant), size-checked first.

A path handed to uno-env may name something other than a file: opening a named pipe (FIFO) for reading waits for
a writer that may never come, a device such as ``/dev/zero`` reads without end, a socket cannot be read at all.
Every loader of user files (policies, game records, rules, dice sets, training configs, checkpoints) reads through
this module, which refuses those at once with an :class:`InputFileError` saying what was expected, and refuses a
file larger than the limit of its kind before reading a byte of it.

A game record may also be a pipe that a process is writing (``uno-env replay <(zcat game.json.gz)``): it is read
to its end, and refused at once when nothing writes into it.

The file is opened without blocking (``O_NONBLOCK``: a FIFO swapped in after the first look cannot stall the
open) and checked again on the open descriptor, so what is read is what was checked.
"""
from __future__ import annotations

import os
import select
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

__all__ = ["InputFileError", "quoted_path", "open_regular", "read_bytes", "read_text", "check_file", "check_dir",
           "MAX_YAML_BYTES", "MAX_POLICY_FILE_BYTES", "MAX_RECORD_BYTES", "MAX_RUN_STATE_BYTES",
           "MAX_CHECKPOINT_FILE_BYTES"]

#: rules files, dice sets and training configs (YAML or JSON): the largest shipped one is under 4 kB
MAX_YAML_BYTES = 1 << 20
#: a policy ``.npz`` on disk: its arrays may declare at most 64 MiB together (``uno_env.agents.policy.
#: MAX_POLICY_BYTES``, checked too since a compressed member can declare more than the file holds), plus the
#: metadata and the zip's own records; the shipped policies hold a few hundred kB
MAX_POLICY_FILE_BYTES = 65 << 20
#: a game record (JSON): a 10,000-step game takes about 60 kB
MAX_RECORD_BYTES = 16 << 20
#: a run's ``state.json`` / ``command.json``: the opponent pool, the evaluation history and the generator states,
#: tens of kB in a long run
MAX_RUN_STATE_BYTES = 64 << 20
#: any file of a training checkpoint (``model.zip`` with the optimizer's state, the saved games): a network far
#: larger than any config here allows stays under it
MAX_CHECKPOINT_FILE_BYTES = 4 << 30

#: how long a pipe being read (:func:`read_bytes` with ``pipe_ok``) may stay silent before it is given up
PIPE_IDLE_SECONDS = 10.0

# what the open descriptor is not allowed to do: wait on a FIFO, become the controlling terminal, leak into children
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_BINARY", 0))


class InputFileError(ValueError):
    """A file uno-env was given and will not read: missing, unreadable, not a regular file (a FIFO, a device, a
    socket, a directory), larger than its kind allows, not text or malformed.  The message names the file."""


def quoted_path(path: str | os.PathLike) -> str:
    """``repr(path)`` for a message, its middle cut when it is long: the file's name at the end stays readable."""
    text = repr(os.fspath(path))
    return text if len(text) <= 200 else f"{text[:60]}...{text[-137:]}"


def _where(what: str, path: str) -> str:
    return f"{what} {quoted_path(path)}"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _check_stat(st: os.stat_result, what: str, path: str, limit: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise InputFileError(f"{_where(what, path)} is {_kind(st.st_mode)}; expected a regular file")
    if st.st_size > limit:
        raise InputFileError(f"{_where(what, path)}: the file is {st.st_size} bytes; at most {limit} are read")


def _stat(path: str, what: str) -> os.stat_result:
    try:
        return os.stat(path)
    except (OSError, ValueError) as e:  # ValueError: a NUL in the path
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise InputFileError(f"{_where(what, path)}: cannot read it: {reason}") from None


def check_file(path: str | os.PathLike, what: str, limit: int) -> str:
    """``path`` as a string if it names a regular file of at most ``limit`` bytes (for a file a library opens
    itself); :class:`InputFileError` otherwise."""
    path = os.fspath(path)
    _check_stat(_stat(path, what), what, path, limit)
    return path


def check_dir(path: str | os.PathLike, what: str) -> str:
    """``path`` as a string if it names a directory; :class:`InputFileError` otherwise."""
    path = os.fspath(path)
    st = _stat(path, what)
    if not stat.S_ISDIR(st.st_mode):
        kind = "a regular file" if stat.S_ISREG(st.st_mode) else _kind(st.st_mode)
        raise InputFileError(f"{_where(what, path)} is {kind}; expected a directory")
    return path


@contextmanager
def open_regular(path: str | os.PathLike, what: str, limit: int) -> Iterator[BinaryIO]:
    """The regular file ``path`` opened for binary reading, once it is known to hold at most ``limit`` bytes;
    :class:`InputFileError` (naming ``what`` and the file) for anything else."""
    path = os.fspath(path)
    check_file(path, what, limit)  # the clear message for the common case, before anything is opened
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as e:
        raise InputFileError(f"{_where(what, path)}: cannot read it: {e.strerror or e}") from None
    try:
        _check_stat(os.fstat(fd), what, path, limit)  # the same file: it may have been replaced meanwhile
        os.set_blocking(fd, True)
        fh = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with fh:
        yield fh


def _read_pipe(path: str, what: str, limit: int) -> bytes:
    """What a pipe holds, read without ever blocking for good: refused at once when nothing writes into it (a named
    pipe nobody opened for writing reads as empty), and when its writer is silent for :data:`PIPE_IDLE_SECONDS`."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as e:
        raise InputFileError(f"{_where(what, path)}: cannot read it: {e.strerror or e}") from None
    chunks: list[bytes] = []
    size = 0
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            raise InputFileError(f"{_where(what, path)} changed while it was opened; give it again")
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:  # a writer is there, with nothing written yet
                if not select.select([fd], [], [], PIPE_IDLE_SECONDS)[0]:
                    raise InputFileError(f"{_where(what, path)} is a pipe whose writer sent nothing for "
                                         f"{PIPE_IDLE_SECONDS:g} s; gave up") from None
                continue
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise InputFileError(f"{_where(what, path)}: the pipe gives over {limit} bytes; at most {limit} are "
                                     f"read")
            chunks.append(chunk)
    finally:
        os.close(fd)
    if not chunks:
        raise InputFileError(f"{_where(what, path)} is a pipe (FIFO) with nothing to read (no process writes into "
                             f"it); expected a regular file, or a pipe being written")
    return b"".join(chunks)


def read_bytes(path: str | os.PathLike, what: str, limit: int, *, pipe_ok: bool = False) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``); :class:`InputFileError` otherwise.

    ``pipe_ok``: ``path`` may also be a pipe that a process is writing (``uno-env replay <(zcat game.json.gz)``),
    read to its end without waiting on one that nothing writes."""
    path = os.fspath(path)
    if pipe_ok and stat.S_ISFIFO(_stat(path, what).st_mode) and hasattr(os, "O_NONBLOCK"):
        return _read_pipe(path, what, limit)
    with open_regular(path, what, limit) as fh:
        try:
            data = fh.read(limit + 1)
        except OSError as e:
            raise InputFileError(f"{_where(what, path)}: cannot read it: {e.strerror or e}") from None
    if len(data) > limit:  # it grew while being read
        raise InputFileError(f"{_where(what, path)}: the file is over {limit} bytes; at most {limit} are read")
    return data


def read_text(path: str | os.PathLike, what: str, limit: int) -> str:
    """The UTF-8 text of the regular file ``path`` (at most ``limit`` bytes); :class:`InputFileError` otherwise."""
    data = read_bytes(path, what, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(f"{_where(what, os.fspath(path))}: cannot read it: not UTF-8 text (byte "
                             f"0x{data[e.start]:02x} at offset {e.start})") from None
