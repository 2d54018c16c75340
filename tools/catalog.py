"""Catalog maintenance: list the messages of src/ that no Spanish catalog translates.

    .venv/bin/python tools/catalog.py          # prints missing msgids (exit 1 when any)

Messages are English in the code (gettext msgids); each area keeps its Spanish translations in
src/trazo/translations/es/LC_MESSAGES/<domain>.po, and Flask-Babel merges the domains.
"""
import sys
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "trazo"
CATALOGS = SOURCE / "translations" / "es" / "LC_MESSAGES"
KEYWORDS = {"_": None, "gettext": None, "lazy_gettext": None, "N_": None}
METHODS = [("**.py", "python"), ("**/templates/**.txt", "jinja2"), ("**/templates/**.html", "jinja2")]


def source_messages():
    found = {}
    for filename, lineno, message, _comments, _context in extract_from_dir(
            str(SOURCE), METHODS, keywords=KEYWORDS):
        if isinstance(message, tuple):
            message = message[0]
        found.setdefault(message, f"{filename}:{lineno}")
    return found


def translated_messages():
    translated, empty = set(), []
    for path in sorted(CATALOGS.glob("*.po")):
        with path.open("rb") as handle:
            for message in read_po(handle):
                if not message.id:
                    continue
                if message.string:
                    translated.add(message.id)
                else:
                    empty.append(f"{path.name}: {message.id}")
    return translated, empty


def missing():
    translated, empty = translated_messages()
    return {msgid: where for msgid, where in source_messages().items() if msgid not in translated}, empty


if __name__ == "__main__":
    untranslated, empty = missing()
    for msgid, where in sorted(untranslated.items(), key=lambda item: item[1]):
        print(f"{where}: {msgid!r}")
    for line in empty:
        print(f"empty translation in {line}")
    sys.exit(1 if untranslated or empty else 0)
