"""One version everywhere: the package, its metadata, `uno-env --version`, CITATION.cff and CHANGELOG.md."""
from __future__ import annotations

import datetime
import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import uno_env

ROOT = Path(__file__).resolve().parents[1]
tomllib = pytest.importorskip("tomllib")  # Python 3.11+

# the keys the Citation File Format 1.2.0 schema allows at the top level, and those it requires
CFF_KEYS = {"abstract", "authors", "cff-version", "commit", "contact", "date-released", "doi", "identifiers",
            "keywords", "license", "license-url", "message", "preferred-citation", "references", "repository",
            "repository-artifact", "repository-code", "title", "type", "url", "version"}
CFF_REQUIRED = {"authors", "cff-version", "message", "title"}
CHANGE_TYPES = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def _releases() -> list[tuple[str, str | None, str]]:
    """(version, date or None, body) per ``## [...]`` section of the changelog, newest first."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    heads = list(re.finditer(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?[ \t]*$", text, re.M))
    return [(m.group(1), m.group(2), text[m.end(): heads[i + 1].start() if i + 1 < len(heads) else len(text)])
            for i, m in enumerate(heads)]


def test_the_package_metadata_reads_the_version_from_the_package():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "uno_env.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", uno_env.__version__)
    assert importlib.metadata.version("uno-env") == uno_env.__version__


def test_cli_prints_the_version():
    out = subprocess.run([sys.executable, "-m", "uno_env.cli", "--version"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"uno-env {uno_env.__version__}"


def test_citation_cff_is_cff_1_2_0_for_this_version():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert isinstance(cff, dict)
    assert CFF_REQUIRED <= set(cff) <= CFF_KEYS, set(cff) ^ CFF_KEYS
    assert cff["cff-version"] == "1.2.0"
    assert cff["type"] in ("software", "dataset")
    assert isinstance(cff["message"], str) and cff["message"] and isinstance(cff["title"], str) and cff["title"]
    assert isinstance(cff["authors"], list) and cff["authors"]
    for author in cff["authors"]:  # a person has family-names or given-names, an entity a name
        assert isinstance(author, dict) and ({"name", "family-names", "given-names"} & set(author)), author
    assert str(cff["version"]) == uno_env.__version__
    released = datetime.date.fromisoformat(str(cff["date-released"]))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert cff["license"] == project["project"]["license"]
    dates = {version: date for version, date, _ in _releases()}
    assert dates.get(uno_env.__version__) == released.isoformat(), "CITATION.cff and CHANGELOG.md disagree"


def test_changelog_keeps_a_changelog():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    assert "keepachangelog.com" in text
    releases = _releases()
    assert releases and releases[0][0] == "Unreleased" and releases[0][1] is None
    dated = releases[1:]
    assert dated and dated[0][0] == uno_env.__version__, "the newest release in the changelog is not __version__"
    assert all(date is not None for _, date, _ in dated)
    assert [d for _, d, _ in dated] == sorted((d for _, d, _ in dated), reverse=True)
    for version, _, body in releases:
        kinds = re.findall(r"^### (.+?)\s*$", body, re.M)
        assert (kinds or version == "Unreleased") and set(kinds) <= CHANGE_TYPES, (version, kinds)
