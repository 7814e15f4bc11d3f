"""The built docs site: cross-references are links, and nothing is loaded from another host.

The site is built once (``mkdocs build --strict``, as ``make test`` does) into a temporary folder; the Sphinx
roles of the docstrings are rewritten by ``docs/griffe_roles.py`` (checked on its own on a small package).
"""
from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
RAW_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const):(?:<code>|`)")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("mkdocs")
    out = tmp_path_factory.mktemp("site")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return out


def _pages(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): p.read_text(encoding="utf-8") for p in site.rglob("*.html")}


def test_api_pages_show_no_raw_sphinx_role_and_link_the_objects(site):
    pages = _pages(site)
    raw = {name: RAW_ROLE.findall(text)[:3] for name, text in pages.items() if RAW_ROLE.search(text)}
    assert not raw, raw
    api = {name: text for name, text in pages.items() if name.startswith("api/")}
    assert len(api) == len(list((ROOT / "docs" / "api").glob("*.md")))  # every API page was built
    links = sum(text.count('class="autorefs autorefs-internal"') for text in api.values())
    assert links > 250, links  # the docstrings hold over 300 roles, most of them to rendered objects
    # a short name resolved from the class whose docstring holds it, a ~full.path, a checkout-layout path
    assert re.search(r'href="#uno_env\.vector\.UnoVectorEnv"><code>UnoVectorEnv</code>', api["api/vector/index.html"])
    assert re.search(r'href="\.\./core/#uno_env\.core\.game\.Game"><code>Game</code>', api["api/agents/index.html"])
    assert re.search(r'href="#uno_env\.training\.pool\.OpponentPool"><code>training\.pool\.OpponentPool</code>',
                     api["api/training/index.html"])


class _Resources(HTMLParser):
    """Every URL the page makes the browser fetch: stylesheets, icons, preconnects, scripts, images, frames."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self._style = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "link" and a.get("href"):
            self.urls.append(a["href"])
        for key in ("src", "srcset", "poster", "data"):
            if a.get(key) and tag in ("script", "img", "iframe", "source", "video", "audio", "embed", "object"):
                self.urls.append(a[key])
        if a.get("style"):
            self.urls += _css_urls(a["style"])
        self._style = tag == "style"

    def handle_data(self, data):
        if self._style:
            self.urls += _css_urls(data)


def _css_urls(css: str) -> list[str]:
    return re.findall(r"""url\(\s*['"]?([^'")\s]+)""", css) + re.findall(r"""@import\s+(?:url\()?['"]?([^'");\s]+)""",
                                                                        css)


def _outside(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.netloc) or parts.scheme in ("http", "https")


def test_the_site_requests_nothing_from_another_host(site):
    outside = []
    for name, text in _pages(site).items():
        parser = _Resources()
        parser.feed(text)
        outside += [(name, url) for url in parser.urls if _outside(url)]
    for sheet in site.rglob("*.css"):
        outside += [(sheet.name, url) for url in _css_urls(sheet.read_text(encoding="utf-8")) if _outside(url)]
    assert not outside, outside[:10]
    assert _outside("https://fonts.googleapis.com/css?family=Roboto") and _outside("//fonts.gstatic.com/x")
    assert not _outside("../assets/stylesheets/main.css") and not _outside("data:image/svg+xml;x")


# ---------------------------------------------------------------------------------------------- the extension
MODULE = '''
"""See :class:`Box`, :func:`~pkg.helper`, :meth:`Box.open`, :class:`the box <Box>`, :class:`ValueError`,
:func:`_private` and :class:`!Box`."""


def helper():
    """Helps :class:`Box`."""


def _private():
    """Hidden."""


class Box:
    """A box; :meth:`open` opens it."""

    def open(self):
        """Open; see :meth:`close` and :attr:`size`."""

    def close(self):
        """Close."""
'''


def test_roles_become_links_to_rendered_objects_and_code_otherwise():
    griffe = pytest.importorskip("griffe")
    roles = load_script("docs/griffe_roles.py")
    ext = roles.SphinxRoles(modules={"pkg"})
    with griffe.temporary_visited_package("pkg", {"__init__.py": MODULE}, extensions=griffe.load_extensions(ext),
                                          docstring_parser="sphinx") as pkg:
        assert pkg.docstring.value.split() == (
            "See [`Box`][pkg.Box], [`helper`][pkg.helper], [`Box.open`][pkg.Box.open], [`the box`][pkg.Box], "
            "`ValueError`, `_private` and `Box`.").split()
        assert pkg["helper"].docstring.value == "Helps [`Box`][pkg.Box]."
        assert pkg["Box"].docstring.value == "A box; [`open`][pkg.Box.open] opens it."
        # a sibling method resolves through the class; an attribute that does not exist stays code
        assert pkg["Box.open"].docstring.value == "Open; see [`close`][pkg.Box.close] and `size`."
    assert ("pkg", ":class:`ValueError`") in ext.unlinked and ("pkg.Box.open", ":attr:`size`") in ext.unlinked
