"""Diffs of diagram versions (core/history/diffs.py): line counts, unified diffs that apply, sketch element changes,
and the largest inputs accepted (they only run here; their timings are measured apart from the suite)."""
import json
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from trazo.core.history import diffs
from trazo.core.history.diffs import MAX_DIFF_LINES, MAX_LISTED_IDS, line_changes, sketch_changes, unified_diff

MIB = 1024 * 1024
HUNK_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
# The autouse database fixture is function-scoped; these properties do not use it.
PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def lines_of(text):
    """`text` cut after each "\\n" (the last line may have none)."""
    return [line for line in re.split(r"(?<=\n)", text) if line]


def apply_patch(old, diff):
    """`diff` applied to `old`, strictly: every hunk where its header says, with the line counts it says,
    its context and removed lines found as they are."""
    if not diff:
        return old
    diff_lines = diff.split("\n")
    assert diff_lines.pop() == "", "the diff ends with a newline"
    assert diff_lines[0].startswith("--- ") and diff_lines[1].startswith("+++ ")
    source, result, position = lines_of(old), [], 0
    for header, body in _hunks(diff_lines[2:]):
        old_start, old_count, new_start, new_count = header
        start = old_start - 1 if old_count else old_start
        assert start >= position, "hunks are in order and do not overlap"
        result.extend(source[position:start])
        position = start
        assert (new_start - 1 if new_count else new_start) == len(result), "the new range starts where it says"
        for mark, line in body:
            if mark in " -":
                assert source[position] == line, f"line {position + 1} is {source[position]!r}, not {line!r}"
                position += 1
            if mark in " +":
                result.append(line)
        assert sum(mark in " -" for mark, _ in body) == old_count
        assert sum(mark in " +" for mark, _ in body) == new_count
    return "".join(result + source[position:])


def _hunks(diff_lines):
    """(old start, old count, new start, new count), [(mark, line with its newline)] of each hunk."""
    hunks = []
    for line in diff_lines:
        header = HUNK_HEADER.fullmatch(line)
        if header:
            counts = [int(value) if value is not None else 1 for value in header.groups()]
            hunks.append((counts, []))
        elif line.startswith("\\"):
            assert line == "\\ No newline at end of file"
            mark, previous = hunks[-1][1][-1]
            hunks[-1][1][-1] = (mark, previous[:-1])
        else:
            assert line[:1] in (" ", "-", "+"), f"unexpected diff line {line!r}"
            hunks[-1][1].append((line[0], line[1:] + "\n"))
    return hunks


def marked_lines(diff, mark):
    """How many lines of `diff` after its two headers start with `mark`."""
    return sum(line.startswith(mark) for line in diff.split("\n")[2:])


def check(old, new, context=3):
    """The diff of `old` to `new`: it applies, and its counts are its lines and `line_changes`."""
    result = unified_diff(old, new, "a", "b", context)
    assert apply_patch(old, result["diff"]) == new
    assert (result["lines_added"], result["lines_removed"]) == line_changes(old, new)
    assert result["lines_added"] == marked_lines(result["diff"], "+")
    assert result["lines_removed"] == marked_lines(result["diff"], "-")
    assert (result["diff"] == "") == (old == new)
    return result


def numbered(count, start=1):
    return "".join(f"line {number}\n" for number in range(start, start + count))


def test_identical_texts_give_an_empty_diff_and_no_changes():
    text = numbered(10)
    assert unified_diff(text, text, "a", "b") == {"diff": "", "lines_added": 0, "lines_removed": 0}
    assert line_changes(text, text) == (0, 0)
    assert line_changes("", "") == (0, 0)


def test_an_appended_line_counts_one_added_and_none_removed():
    result = check("a\nb\n", "a\nb\nc\n")
    assert (result["lines_added"], result["lines_removed"]) == (1, 0)
    assert result["diff"] == "--- a\n+++ b\n@@ -1,2 +1,3 @@\n a\n b\n+c\n"


def test_an_edited_line_counts_one_added_and_one_removed_with_three_lines_of_context():
    result = check(numbered(10), numbered(10).replace("line 5\n", "line five\n"))
    assert (result["lines_added"], result["lines_removed"]) == (1, 1)
    assert result["diff"] == ("--- a\n+++ b\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+line five\n"
                              " line 6\n line 7\n line 8\n")


def test_a_line_inserted_in_the_middle_counts_one_added():
    old = numbered(10)
    new = old.replace("line 6\n", "inserted\nline 6\n")
    result = check(old, new)
    assert (result["lines_added"], result["lines_removed"]) == (1, 0)
    assert "@@ -3,6 +3,7 @@\n line 3\n line 4\n line 5\n+inserted\n line 6\n" in result["diff"]


def test_deleted_lines_count_as_removed():
    old = numbered(10)
    result = check(old, old.replace("line 4\nline 5\n", ""))
    assert (result["lines_added"], result["lines_removed"]) == (0, 2)
    assert result["diff"].startswith("--- a\n+++ b\n@@ -1,8 +1,6 @@\n line 1\n")


def test_a_replaced_block_counts_its_lines_both_ways():
    old = numbered(20)
    new = numbered(5) + "new a\nnew b\n" + numbered(12, start=9)
    assert check(old, new)["lines_added"] == 2
    assert line_changes(old, new) == (2, 3)


def test_text_from_empty_is_all_added_and_back_all_removed():
    text = numbered(3)
    created = check("", text)
    assert created["diff"] == "--- a\n+++ b\n@@ -0,0 +1,3 @@\n+line 1\n+line 2\n+line 3\n"
    emptied = check(text, "")
    assert emptied["diff"] == "--- a\n+++ b\n@@ -1,3 +0,0 @@\n-line 1\n-line 2\n-line 3\n"
    assert line_changes("", text) == (3, 0) and line_changes(text, "") == (0, 3)


def test_a_last_line_without_newline_is_marked_like_gnu_diff():
    result = check("a\nb", "a\nc")
    assert result["diff"] == ("--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
                              "+c\n\\ No newline at end of file\n")


def test_adding_the_final_newline_changes_the_last_line():
    result = check("a\nb", "a\nb\n")
    assert (result["lines_added"], result["lines_removed"]) == (1, 1)
    assert result["diff"].endswith("-b\n\\ No newline at end of file\n+b\n")
    assert line_changes("a\nb\n", "a\nb") == (1, 1)


def test_a_shared_last_line_without_newline_is_context_with_its_marker():
    result = check("a\nb\nend", "a\nB\nend")
    assert result["diff"].endswith("-b\n+B\n end\n\\ No newline at end of file\n")


def test_a_single_line_text_without_newline_can_be_edited():
    assert check("x", "y")["diff"] == ("--- a\n+++ b\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n"
                                       "+y\n\\ No newline at end of file\n")


def test_distant_changes_get_separate_hunks_and_close_ones_share_one():
    old = numbered(30)
    distant = check(old, old.replace("line 3\n", "x\n").replace("line 25\n", "y\n"))
    assert distant["diff"].count("@@ -") == 2
    close = check(old, old.replace("line 3\n", "x\n").replace("line 9\n", "y\n"))  # 5 lines apart: 2 * 3 context
    assert close["diff"].count("@@ -") == 1


def test_context_zero_shows_only_the_changed_lines():
    old = numbered(10)
    result = check(old, old.replace("line 5\n", "five\n"), context=0)
    assert result["diff"] == "--- a\n+++ b\n@@ -5 +5 @@\n-line 5\n+five\n"
    assert check(old, old.replace("line 5\n", "line 5\nnew\n"), context=0)["diff"].endswith("@@ -5,0 +6 @@\n+new\n")


def test_a_large_context_shows_the_whole_text():
    old = numbered(50)
    result = check(old, old.replace("line 25\n", "x\n"), context=10**9)
    assert "@@ -1,50 +1,50 @@" in result["diff"]


def test_a_negative_context_is_refused():
    with pytest.raises(ValueError):
        unified_diff("a\n", "b\n", "a", "b", context=-1)


def test_labels_with_line_breaks_stay_on_their_header_line():
    result = unified_diff("a\n", "b\n", "revision\n1", "current\r\n")
    assert result["diff"].startswith("--- revision 1\n+++ current  \n@@ -1 +1 @@\n")


def test_carriage_returns_and_other_breaks_belong_to_their_line():
    old = "a\r\nb\r\nc\r\n"
    result = check(old, "a\r\nB\r\nc\r\n")
    assert (result["lines_added"], result["lines_removed"]) == (1, 1)
    assert check("one\u2028two\n", "one\u2028three\n")["lines_added"] == 1  # one line, "\n" ends it


def test_repeated_lines_are_matched_to_the_smallest_change():
    old = "}\n" * 10
    assert line_changes(old, "}\n" * 12) == (2, 0)
    assert line_changes("a\n}\n}\nb\n}\n", "a\n}\nb\n}\n}\n") == (1, 1)


def line_texts():
    lines = st.lists(st.sampled_from(["a", "b", "c", "", "}", "x\r", "é", " a"]), max_size=25)
    return st.builds(lambda parts, end: "\n".join(parts) + end if parts else "", lines, st.sampled_from(["", "\n"]))


@st.composite
def text_pairs(draw):
    """Two versions: unrelated, or the second one the first with a few line-level edits."""
    old = draw(line_texts())
    if draw(st.booleans()):
        return old, draw(line_texts())
    lines = lines_of(old)
    for _ in range(draw(st.integers(0, 4))):
        position = draw(st.integers(0, len(lines)))
        edit = draw(st.sampled_from(["insert", "delete", "replace"]))
        if edit != "insert" and position < len(lines):
            del lines[position]
        if edit != "delete":
            lines.insert(position, draw(st.sampled_from(["a\n", "new\n", "}\n", "z"])))
    new = "".join(line if line.endswith("\n") or index == len(lines) - 1 else line + "\n"
                  for index, line in enumerate(lines))
    return old, new


@PROPERTY
@given(text_pairs(), st.sampled_from([0, 1, 3, 5]))
def test_every_diff_applies_and_its_counts_are_its_lines(pair, context):
    check(*pair, context=context)


@PROPERTY
@given(text_pairs(), st.integers(0, 3))
def test_a_replaced_middle_still_applies_with_correct_hunk_headers(pair, cap):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(diffs, "MAX_DIFF_LINES", cap)
        check(*pair)


@PROPERTY
@given(text_pairs())
@example(("a\na\nb\na\na\nb\nb\na\na", "a\nb\na\na\na\na\na\nb\na\n"))  # equal middles: once 5/5 one way, 3/3 back
def test_counts_are_the_same_both_ways_round(pair):
    old, new = pair
    added, removed = line_changes(old, new)
    assert line_changes(new, old) == (removed, added)


def one_line_matches(count, recurrence):
    """Two texts of `count` lines, each line recurring `recurrence` times, arranged so that every common
    run is one line long: a slow kind of input for the matcher."""
    values = -(-(count - 2) // recurrence)
    old = "".join(f"{(2 * index) % values}\n" for index in range(count - 2))
    new = "".join(f"{index % values}\n" for index in range(count - 2))
    return "first\n" + old + "last\n", "FIRST\n" + new + "LAST\n"


def test_a_middle_at_the_cap_is_matched_line_by_line():
    old, new = one_line_matches(MAX_DIFF_LINES, MAX_DIFF_LINES // 100 + 1)
    result = check(old, new)
    assert result["lines_added"] < MAX_DIFF_LINES and result["lines_removed"] < MAX_DIFF_LINES


def test_a_middle_over_the_cap_is_replaced_as_a_whole():
    shared = numbered(5)
    inside = numbered(MAX_DIFF_LINES - 1, start=100)
    old, new = shared + "first\n" + inside + "last\n" + shared, shared + "FIRST\n" + inside + "LAST\n" + shared
    result = check(old, new)
    assert line_changes(old, new) == (MAX_DIFF_LINES + 1, MAX_DIFF_LINES + 1)  # where 2 lines changed each way
    assert result["diff"].count("@@ -") == 1
    assert f"@@ -3,{MAX_DIFF_LINES + 7} +3,{MAX_DIFF_LINES + 7} @@\n" in result["diff"]


def test_one_side_over_the_cap_is_replaced_as_a_whole_too():
    old, new = numbered(3), numbered(MAX_DIFF_LINES + 1)
    assert line_changes(old, new) == (MAX_DIFF_LINES - 2, 0)  # a pure insertion needs no matching
    old, new = "x\n" + numbered(3), numbered(MAX_DIFF_LINES + 1)
    assert check(old, new)["lines_removed"] == 4


def padded(pair, size=MIB):
    """`pair` between shared lines, the longer text `size` bytes or just under."""
    padding = "p\n" * ((size - max(len(text.encode()) for text in pair)) // 4)
    return tuple(padding + text + padding for text in pair)


def worst_texts():
    """Inputs at the 1 MiB limit: the slowest middle that is still matched, middles too large to match, a
    small change in a large text, a text of empty lines, one long line, four-byte characters."""
    matched = one_line_matches(MAX_DIFF_LINES, MAX_DIFF_LINES // 100 + 1)
    yield pytest.param(*padded(matched), id="matched middle at the cap")
    width = MIB // MAX_DIFF_LINES - 8
    yield pytest.param(*(text.replace("\n", "-" * width + "\n") for text in matched), id="matched long lines")
    yield pytest.param(*padded(one_line_matches(MAX_DIFF_LINES + 2, 2)), id="middle over the cap")
    yield pytest.param("\n" * MIB, "x\n" * (MIB // 2), id="empty lines to short ones")
    yield pytest.param("a\n" * (MIB // 2), "a\n" * (MIB // 4) + "b\n" + "a\n" * (MIB // 4 - 1), id="one change")
    yield pytest.param("a" * MIB, "a" * (MIB // 2) + "b" + "a" * (MIB // 2 - 1), id="one long line")
    emoji = "\U0001f600" * 30 + "\n"
    yield pytest.param("0\n" + emoji * (MIB // 122), emoji * (MIB // 122) + "1", id="four-byte characters")


@pytest.mark.parametrize("old, new", worst_texts())
def test_the_largest_texts_are_diffed(old, new):
    assert len(old.encode()) <= MIB and len(new.encode()) <= MIB
    check(old, new)
    check(old, new, context=10**9)


def sketch(*elements, **extra):
    return json.dumps({"type": "excalidraw", "version": 2, "elements": list(elements), **extra})


def element(element_id, **fields):
    return {"id": element_id, "type": "rectangle", "x": 0, "y": 0, "version": 1, "versionNonce": 7, "seed": 3,
            "updated": 1700000000000, **fields}


def test_sketch_elements_added_removed_and_changed_are_listed_sorted():
    old = sketch(element("b"), element("a"), element("keep"), element("moved"))
    new = sketch(element("keep"), element("moved", x=10), element("d"), element("c"))
    assert sketch_changes(old, new) == {
        "elements_added": ["c", "d"], "elements_removed": ["a", "b"], "elements_changed": ["moved"],
        "added_count": 2, "removed_count": 2, "changed_count": 1, "truncated": False}


def test_an_identical_sketch_has_no_changes():
    text = sketch(element("a"), element("b"), appState={"viewBackgroundColor": "#fff"})
    result = sketch_changes(text, text)
    assert result["added_count"] == result["removed_count"] == result["changed_count"] == 0
    assert result["elements_added"] == result["elements_removed"] == result["elements_changed"] == []


def test_a_deleted_element_counts_as_removed_and_a_restored_one_as_added():
    old = sketch(element("gone"), element("back", isDeleted=True))
    new = sketch(element("gone", isDeleted=True), element("back", isDeleted=False))
    result = sketch_changes(old, new)
    assert result["elements_removed"] == ["gone"] and result["elements_added"] == ["back"]
    assert result["changed_count"] == 0


def test_bookkeeping_keys_alone_do_not_change_an_element():
    old = sketch(element("a"), element("b"))
    new = sketch(element("a", version=5, versionNonce=99, updated=1800000000000), element("b", seed=4))
    result = sketch_changes(old, new)
    assert result["elements_changed"] == ["b"]  # the seed shapes the strokes: it counts


def test_elements_without_a_string_id_are_ignored():
    old = sketch({"type": "rectangle"}, {"id": 5}, "text", element("a"))
    new = sketch({"id": None}, [1], element("a"))
    assert sketch_changes(old, new)["added_count"] == sketch_changes(old, new)["removed_count"] == 0


def test_of_repeated_ids_the_last_present_element_counts():
    old = sketch(element("a", x=1), element("a", x=2), element("a", x=3, isDeleted=True))
    assert sketch_changes(old, sketch(element("a", x=2)))["changed_count"] == 0
    assert sketch_changes(old, sketch(element("a", x=1)))["elements_changed"] == ["a"]


def test_an_empty_text_is_a_sketch_without_elements():
    text = sketch(element("a"), element("b"))
    assert sketch_changes("", text)["elements_added"] == ["a", "b"]
    assert sketch_changes(text, "")["elements_removed"] == ["a", "b"]
    assert sketch_changes("", "")["truncated"] is False


@pytest.mark.parametrize("not_a_sketch", ["graph TD; A-->B", "{", "[]", '{"elements": {}}', '{"type": "x"}', "42",
                                          '"elements"', "[" * 100 + "]" * 100,
                                          '{"elements": [' + '{"a":' * 80 + "1" + "}" * 80 + "]}"])
def test_text_that_is_not_sketch_json_gives_none(not_a_sketch):
    assert sketch_changes(not_a_sketch, sketch(element("a"))) is None
    assert sketch_changes(sketch(element("a")), not_a_sketch) is None


def test_nan_and_infinity_compare_equal_to_themselves():
    text = '{"elements": [{"id": "a", "x": NaN, "y": Infinity}]}'
    assert sketch_changes(text, text)["changed_count"] == 0
    assert sketch_changes(text, text.replace("NaN", "1"))["elements_changed"] == ["a"]


def test_long_id_lists_are_cut_and_marked_truncated_with_exact_counts():
    old = sketch(*(element(f"old-{index:04d}") for index in range(MAX_LISTED_IDS + 1)), element("kept"))
    new = sketch(element("kept"), *(element(f"new-{index:04d}") for index in range(3)))
    result = sketch_changes(old, new)
    assert result["truncated"] is True
    assert result["removed_count"] == MAX_LISTED_IDS + 1 and len(result["elements_removed"]) == MAX_LISTED_IDS
    assert result["elements_removed"] == [f"old-{index:04d}" for index in range(MAX_LISTED_IDS)]
    assert result["elements_added"] == ["new-0000", "new-0001", "new-0002"]
    exactly = sketch(*(element(f"e{index}") for index in range(MAX_LISTED_IDS)))
    assert sketch_changes("", exactly)["truncated"] is False


def compact_sketch(elements):
    return json.dumps({"elements": elements}, separators=(",", ":"))


def worst_sketches():
    """Sketches at the 5 MiB limit: as many elements as fit, every one differing; nested lists as dense as
    JSON allows (what the parser and the garbage collector spend the most on)."""
    count = 5 * MIB // 16
    yield pytest.param(compact_sketch([{"id": f"{index:05x}"} for index in range(count)]),
                       compact_sketch([{"id": f"{index:05x}", "x": 1} for index in range(count // 2)]),
                       id="many small elements")
    dense = '{"elements":[{"id":"a","points":[' + ",".join(["[]"] * (5 * MIB // 3 - 20)) + "]}]}"
    yield pytest.param(dense, dense.replace('"a"', '"b"', 1), id="dense nested lists")


@pytest.mark.parametrize("old, new", worst_sketches())
def test_the_largest_sketches_are_compared(old, new):
    assert len(old.encode()) <= 5 * MIB and len(new.encode()) <= 5 * MIB
    result = sketch_changes(old, new)
    assert result is not None
    assert sum(len(result[key]) for key in ("elements_added", "elements_removed", "elements_changed")) \
        <= 3 * MAX_LISTED_IDS
    line_changes(old, new)
