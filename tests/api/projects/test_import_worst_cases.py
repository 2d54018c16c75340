"""Import previews of the worst texts a parser can meet answer at once, at the largest size a file may have."""
import time

import pytest

from .test_import import upload

LARGEST = 5 * 1024 * 1024  # MAX_REQUEST_BODY_BYTES: the largest file an import reads


def filled(unit, head="a", tail="a"):
    return head + unit * ((LARGEST - len(head) - len(tail)) // len(unit)) + tail


CASES = [  # name, head, repeated unit, tail, skip reason
    ("newlines.txt", "a", "\n", "a", "unsupported_type"),
    ("blank-lines.txt", "a", " \n", "a", "unsupported_type"),
    ("newlines-after-a-keyword.txt", "table", "\n", "a", "unsupported_type"),
    ("untagged-fence-of-newlines.md", "```\na", "\n", "a\n```", "no_diagram_block"),
    ("fence-line-of-spaces.md", "```", " ", "!", "no_diagram_block"),
]


@pytest.mark.parametrize(("name", "head", "unit", "tail", "reason"),
                         [pytest.param(*case, id=case[0]) for case in CASES])
def test_a_preview_of_a_pathological_file_of_the_largest_size_answers_within_a_second(
        user, project, name, head, unit, tail, reason):
    body = filled(unit, head, tail)
    started = time.thread_time()
    response = upload(user, project["id"], [(name, body)], dry_run=True)
    spent = time.thread_time() - started
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.json["diagrams"] == [] and response.json["skipped"] == [{"source": name, "reason": reason}]
    assert spent < 1, spent


def test_a_type_is_still_detected_after_a_long_run_of_blank_lines(user, project):
    body = "\n" * 1000 + "  Table users {\n  id int\n}\n"
    response = upload(user, project["id"], [("model.txt", body)], dry_run=True)
    assert response.status_code == 200
    assert [(d["source"], d["diagram_type"]) for d in response.json["diagrams"]] == [("model.txt", "dbml")]
