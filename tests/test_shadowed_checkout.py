"""A source checkout that hides an installed uno-env says so at import, instead of failing later at an agent.

With a (non-editable) install, Python started in the checkout's root imports the checkout's ``uno_env/``, which
lacks the subpackages that only an install maps into it (``agents/``, ``training/``, ``configs/``).  The subprocess
reproduces that layout: a checkout folder whose ``uno_env`` is this one, an installed copy later on ``sys.path``,
and no editable-install finder.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent("""
    import sys
    # a wheel install has no editable finder mapping uno_env.agents to the checkout's agents/
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in getattr(f, "__module__", "")]
    sys.path.extend(sys.argv[1:])
    import uno_env
    import gymnasium
    print("imported", uno_env.__file__)
""")


def _run(cwd: Path, *extra_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SCRIPT, *map(str, extra_path)], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def _checkout(tmp_path: Path) -> Path:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "uno_env").symlink_to(ROOT / "uno_env", target_is_directory=True)
    return checkout


def test_a_checkout_shadowing_an_installed_copy_names_both_and_the_fix(tmp_path):
    checkout = _checkout(tmp_path)
    site = tmp_path / "site-packages"
    for package in ("uno_env", "uno_env/agents", "uno_env/training", "uno_env/configs"):
        (site / package).mkdir(parents=True)
        (site / package / "__init__.py").write_text("")
    r = _run(checkout, site)
    assert r.returncode != 0 and "imported" not in r.stdout
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: uno_env was imported from the source checkout"), r.stderr
    for words in (str(checkout / "uno_env"), str(site / "uno_env"), "uno_env.agents, uno_env.training, "
                  "uno_env.configs", "Start Python from another directory", "pip install -e ."):
        assert words in last, (words, last)


def test_a_checkout_with_nothing_installed_still_imports(tmp_path):
    # nothing is shadowed: the rules core needs none of the mapped subpackages
    r = _run(_checkout(tmp_path))
    assert r.returncode == 0 and r.stdout.startswith("imported"), r.stderr


def test_an_editable_install_run_from_the_checkout_maps_the_subpackages():
    r = subprocess.run([sys.executable, "-c", "import uno_env.agents, uno_env.training, uno_env.configs"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
