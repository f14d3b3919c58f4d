"""Brazilian Portuguese is complete: every string the project marks is in the
.po, translated, not fuzzy, with the same placeholders, and compiled into the
committed .mo (scripts/messages does all of it; docs/decisions.md)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.utils import translation

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "locale" / "pt_BR" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")
PLACEHOLDER = re.compile(r"\{[a-z_]*\}|%\([a-z_]+\)s")


def entries() -> list[polib.POEntry]:
    return [e for e in polib.pofile(str(PO)) if not e.obsolete]


def test_nothing_is_untranslated_or_fuzzy():
    po = polib.pofile(str(PO))
    assert not po.metadata_is_fuzzy
    bad = [e.msgid for e in entries() if not e.translated() or "fuzzy" in e.flags]
    assert bad == [], f"untranslated or fuzzy in {PO.name} (run scripts/messages): {bad}"


def _translations(entry: polib.POEntry) -> list[str]:
    """The entry's Portuguese: its one msgstr, or each plural form."""
    return list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]


def test_translations_keep_their_placeholders():
    bad = [e.msgid for e in entries()
           if any(sorted(PLACEHOLDER.findall(e.msgid)) != sorted(PLACEHOLDER.findall(t)) for t in _translations(e))]
    assert bad == []


def test_the_committed_mo_is_the_po_compiled():
    compiled = {(e.msgctxt, e.msgid): e.msgstr for e in polib.mofile(str(MO)) if e.msgid}
    wanted = {(e.msgctxt, e.msgid): e.msgstr for e in entries()}
    assert compiled == wanted, "django.mo is stale: run scripts/messages and commit both files"


def test_the_server_speaks_portuguese_with_the_mo():
    with translation.override("pt-br"):
        assert translation.gettext("Pauses") == "Pausas"
        assert translation.gettext("you typed it") == "você digitou"


# Folders of the repository makemessages is told to ignore (below), left out of its copy too.
IGNORED = ("tests", "bench", "static", "node_modules", "build", "examples", ".git", "screenshots")


def _source_copy(into: Path) -> Path:
    def skip(folder: str, names: list[str]) -> list[str]:
        at_root = Path(folder) == ROOT
        return [n for n in names if n in ("node_modules", "__pycache__") or (at_root and (n in IGNORED or n.startswith(".")))]

    shutil.copytree(ROOT, into, ignore=skip)
    return into


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="needs GNU gettext (xgettext)")
def test_every_marked_string_is_in_the_po(tmp_path):
    """makemessages over a copy of the source finds no msgid the .po lacks. A
    copy: makemessages rewrites the .po it finds, and the repository's is read
    by the other tests of this file, perhaps at the same moment (xdist)."""
    tree = _source_copy(tmp_path / "tree")
    env = {**os.environ, "STALWART_DATA_DIR": str(tmp_path / "data")}
    result = subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "pt_BR", "--no-location", "--no-obsolete",
         "--ignore", ".venv*", "--ignore", "tests/*", "--ignore", "bench/*", "--ignore", "static/*",
         "--ignore", "catalogue/ts/*", "--ignore", "node_modules/*", "--ignore", "build/*",
         "--ignore", "examples/*"],
        cwd=tree, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    fresh = {e.msgid for e in polib.pofile(str(tree / PO.relative_to(ROOT))) if not e.obsolete}
    known = {e.msgid for e in entries() if e.translated()}
    assert sorted(fresh - known) == [], "strings not yet in the .po: run scripts/messages and translate them"
