"""The largest texts a diagram holds are indexed without failing a write (docs/search.md, "Limits"): the
index takes the first characters of each field (models/search_ddl.py), which keeps PostgreSQL's tsvector
under its 1 MB even when every character is a word of its own."""
import unicodedata

from trazo.models.search_ddl import COMMENTS_CHARS, CONTENT_CHARS, DESCRIPTION_CHARS

from ...helpers import create_diagram, save_diagram
from .conftest import titles

TITLE = "Crowded " + "xY" * 46
LETTERS = [chr(code) for code in range(0x3400, 0x2FFFF) if unicodedata.category(chr(code)) == "Lo"]


def _distinct_words(start, count):
    """`count` one-letter words, each a letter no other field uses: the most lexemes a text can make."""
    return " ".join(LETTERS[start:start + count])


def test_fields_full_of_distinct_words_are_indexed_and_found(user, project, configure):
    configure(MAX_DIAGRAM_CONTENT_BYTES=2 * 1024 * 1024)
    content_words, description_words, comment_words = CONTENT_CHARS // 2, DESCRIPTION_CHARS // 2, 5_000
    content = _distinct_words(0, content_words) + " " + "aZ" * 5_000 + " needle"
    description = _distinct_words(content_words, description_words)
    diagram = create_diagram(user, project["id"], title=TITLE, content=content,
                             description=description)
    start = content_words + description_words
    for number in range(COMMENTS_CHARS // (2 * comment_words)):
        body = _distinct_words(start + number * comment_words, comment_words - 1)
        response = user.post(f"/diagrams/{diagram['id']}/comments", json={"body": body})
        assert response.status_code == 201, response.json
    assert titles(user, LETTERS[10]) == [TITLE]
    assert titles(user, LETTERS[content_words + 10]) == [TITLE]
    assert titles(user, LETTERS[start + 10]) == [TITLE]
    assert titles(user, "needle") == []  # past the indexed characters of the content
    save_diagram(user, diagram["id"], content="graph TD\n  " + "w" * 50_000 + " needle")
    assert titles(user, "needle") == [TITLE]
