"""The product speaks for itself: what it ships (the README, the docs, the changelog, the text the CLI and the
training reports print or write, the stored reports and ladder results) never speaks of the people or the process
that made it, and names rule sources as rule sheets, never by file number.

Prose files are searched whole; Python sources only in their string literals (help texts, messages, report
templates, docstrings), where a word of the process would reach a user; comments and names are not searched.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: what a word of the process looks like -> why it may not ship
PATTERNS = {
    r"\bsessions?\b": "a work session",
    r"\bengineers?\b": "the people who made it",
    r"\bhelpers?\b(?!\s+threads?)": "the people who made it",
    r"\bwork items?\b": "a work item",
    r"\bthe lead\b": "the people who made it",
    r"\bgoals?\b": "a goal being met (state the result and its comparison)",
    r"\bissues? #?\d+": "an issue number",
    r"\bowners?\b": "the people who made it",
    r"\b(?:this|another|other) branch(?:es)?\b": "how the work was organised",
    r"\bseeds? 00\d\b": "a rule source by file number (name the rule sheet)",
}
#: in code, "helper" names the simulator's worker threads, never a person
CODE_PATTERNS = {p: why for p, why in PATTERNS.items() if "helper" not in p}
#: phrases the game itself uses, and names in code marks or quotes (a parameter ``session``, a JSON key 'sessions')
ALLOWED = re.compile(r"\bchange[sd]? owner\b|``\w+``|`\w+`|'\w+'", re.I)

PROSE = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md")),
         *sorted((ROOT / "benchmarks" / "results" / "ladder").glob("*.json")),
         *sorted((ROOT / "benchmarks" / "results" / "training").glob("*.md")),
         *sorted((ROOT / "agents" / "policies").glob("*.json"))]
CODE = [p for folder in ("uno_env", "agents", "training") for p in sorted((ROOT / folder).rglob("*.py"))]
#: pages being rewritten by another change, which still hold such words; each must still have a hit (so an entry
#: leaves this set once its page is clean: the test below says when)
PENDING: set[str] = set()


def hits(text: str, patterns: dict[str, str] = PATTERNS) -> list[str]:
    """Every process word in ``text``, with what it is."""
    text = ALLOWED.sub("", text)
    out = []
    for pattern, why in patterns.items():
        out += [f"{m.group(0)!r} ({why})" for m in re.finditer(pattern, text, re.I)]
    return out


def string_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal of a Python source, f-strings' literal parts included; a literal that is
    a bare identifier (a dict key, a field name) is left out."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", node.value):
                out.append((node.lineno, node.value))
    return out


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_shipped_prose_speaks_of_the_product_only():
    found = [f"{_rel(p)}: {h}" for p in PROSE if _rel(p) not in PENDING for h in hits(p.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


def test_strings_in_the_code_speak_of_the_product_only():
    found = [f"{_rel(p)}:{line}: {h}" for p in CODE
             for line, text in string_literals(p.read_text(encoding="utf-8")) for h in hits(text, CODE_PATTERNS)]
    assert not found, "\n".join(found)


def test_a_pending_page_still_has_a_hit():
    for name in PENDING:
        assert hits((ROOT / name).read_text(encoding="utf-8")), f"{name} is clean now: remove it from PENDING"


def test_a_planted_process_word_is_found(tmp_path):
    assert hits("- Against heuristic: 51.2% over 10,000 games, interval [50.2%, 52.2%]: beats it.") == []
    assert hits("- Project goal (beat the heuristic): **met**.")
    assert hits("measured while three other engineers used the machine")
    assert hits("the rules of seed 004")
    assert hits("the helper threads spin") == [] and hits("another helper's run")
    assert hits("a hand that changed owner") == []
    page = tmp_path / "report.md"
    page.write_text("Training took 7 minutes in this session.\n")
    assert hits(page.read_text()) == ["'session' (a work session)"]


def test_a_planted_word_in_a_code_string_is_found_and_a_name_is_not():
    source = 'out.append(f"- Project goal: {x}")\nstate["sessions"] = 1  # sessions of the run\n'
    literals = string_literals(source)
    assert [h for _, text in literals for h in hits(text, CODE_PATTERNS)] == ["'goal' (a goal being met (state the "
                                                                            "result and its comparison))"]
