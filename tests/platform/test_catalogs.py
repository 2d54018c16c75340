"""Every message the code shows has a Spanish translation (API.md §3)."""
import importlib.util
from pathlib import Path


def test_every_message_is_translated_to_spanish():
    path = Path(__file__).resolve().parents[2] / "tools" / "catalog.py"
    spec = importlib.util.spec_from_file_location("catalog", path)
    catalog = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(catalog)
    untranslated, empty = catalog.missing()
    assert not untranslated, f"messages without a Spanish translation: {untranslated}"
    assert not empty, f"empty translations: {empty}"
