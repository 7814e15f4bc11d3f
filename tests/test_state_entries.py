"""Every way a state enters a shell goes through the one state check: ``pickle``, ``copy.deepcopy`` and OpenSpiel's
deserialization of corrupted environments and states are refused (``ValueError``/``TypeError``), or hold a state the
check accepts and behave exactly as it; none crashes the process.

The corrupted copies are made and loaded by ``state_entries.py`` in a child process, so that a segmentation fault
(what an unpickled AEC env with ``disc_n=30000`` did, and 3 of the corrupted OpenSpiel states) fails a test instead
of ending the test run.  The default run tries every third case of each corpus; the slow run tries them all.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
OUTCOMES_ALLOWED = ("refused", "same", "fresh")


def _run(corpus: str, every: int) -> list[list[str]]:
    proc = subprocess.run([sys.executable, str(HERE / "state_entries.py"), corpus, "0", str(every)],
                          capture_output=True, text=True, timeout=1800, cwd=HERE)
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    last = rows[-1][:2] if rows else "?"
    assert proc.returncode == 0, f"the process ended with code {proc.returncode} at case {last}:\n{proc.stderr[-3000:]}"
    return rows


def _check(corpus: str, every: int) -> None:
    if corpus == "openspiel":
        pytest.importorskip("pyspiel")
    rows = _run(corpus, every)
    bad = [" ".join(row) for row in rows if len(row) != 3 or row[2] not in OUTCOMES_ALLOWED]
    assert not bad, f"{len(bad)} of {len(rows)} corrupted copies were taken in or crashed:\n" + "\n".join(bad[:40])
    refused = sum(row[2] == "refused" for row in rows)
    assert refused > len(rows) // 2, "the corpus hardly corrupts anything: the test would pass on anything"


@pytest.mark.parametrize("corpus", ["aec", "gym", "vector", "openspiel"])
def test_corrupted_copies_are_refused_or_hold_a_checked_state(corpus):
    _check(corpus, 3)


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["aec", "gym", "vector", "openspiel"])
def test_every_corrupted_copy_is_refused_or_holds_a_checked_state(corpus):
    _check(corpus, 1)
