"""<think> filtering, code extraction and the heuristic syntax validator."""
import pytest

from trazo.core.content.validation import syntax_problems
from trazo.services.ai.text import ThinkFilter, extract_code, strip_think


@pytest.fixture
def english(app):
    with app.test_request_context(headers={"Accept-Language": "en"}):
        yield


def test_think_filter_hides_tags_split_across_chunks():
    hidden = ThinkFilter()
    chunks = ["Hi <th", "ink>plan", "ning</th", "ink> there", " <", "b>bold</b> <thin"]
    visible = "".join(hidden.feed(chunk) for chunk in chunks) + hidden.finish()
    assert visible == "Hi  there <b>bold</b> <thin"
    assert hidden.thinking == "planning"


def test_think_filter_keeps_an_unclosed_block_hidden():
    hidden = ThinkFilter()
    assert hidden.feed("answer <think>still thinking") == "answer "
    assert hidden.finish() == ""
    assert hidden.thinking == "still thinking"


def test_strip_think_removes_closed_and_unclosed_blocks():
    assert strip_think("<think>a</think>B<think>c</think>D<think>never closed") == "BD"


@pytest.mark.parametrize(("reply", "code"), [
    ("Here it is:\n```mermaid\nflowchart TD\n  A-->B\n```\nEnjoy", "flowchart TD\n  A-->B"),
    ("<think>```mermaid\nwrong\n```</think>```\ngraph LR\n  X-->Y\n```", "graph LR\n  X-->Y"),
    ("<<<DIAGRAM>>>\nflowchart TD\n  A-->B\n<<<END_DIAGRAM>>>\nI added B.", "flowchart TD\n  A-->B"),
    ("<< DIAGRAMA >>\n@startuml\nA -> B\n@enduml\n<</DIAGRAMA>", "@startuml\nA -> B\n@enduml"),
    ("```d2\na -> b\n", "a -> b"),
    ("  erDiagram\n  A ||--o{ B : has  ", "erDiagram\n  A ||--o{ B : has"),
    ("<<<DIAGRAM>>>\nflowchart TD\n  A-->B\nEND_DIAGRAM>>>", "flowchart TD\n  A-->B"),
    ("<think>only thoughts</think>", ""),
])
def test_extract_code(reply, code):
    assert extract_code(reply) == code


@pytest.mark.parametrize(("code", "diagram_type"), [
    ("%% comment\nflowchart TD\n  subgraph one\n    A-->B\n  end\n", "mermaid"),
    ("sequenceDiagram\n  A->>B: hi", "flowchart"),
    ("sankey-beta\nA,B,10", "mermaid"),
    ("' note\n@startuml\npackage app {\n  class User {\n  }\n}\n@enduml", "plantuml"),
    ("@startuml\nA -> B\n@enduml", "uml"),
    ("a: \"curly { inside\" {\n  b -> c # a } comment\n}", "d2"),
    ("Table \"user table\" as U {\n  id int [pk, note: '{']\n}\nRef: posts.user_id > U.id // x {", "dbml"),
    ("Table public.posts [headercolor: #3498DB] {\n  user_id int [ref: > users.id]\n}", "dbml"),
    ("Enum status {\n  active\n}\nRef fk: a.(x, y) <> b.(x, y)", "dbml"),
])
def test_valid_code_has_no_problems(english, code, diagram_type):
    assert syntax_problems(code, diagram_type) == []


@pytest.mark.parametrize(("code", "diagram_type", "problem"), [
    ("", "mermaid", "The diagram code is empty."),
    ("A-->B", "mermaid", "Line 1: a Mermaid diagram must start with its type"),
    ("flowchart TD\n  A-->B\nend", "mermaid", "Line 3: 'end' without a matching 'subgraph'."),
    ("flowchart TD\nsubgraph x\n  A\n", "mermaid", "1 block(s) opened and never closed."),
    ("A -> B\n@enduml", "plantuml", "Line 1: a PlantUML diagram must start with @startuml."),
    ("@startuml\nA -> B", "plantuml", "must end with @enduml"),
    ("@enduml\n@startuml", "plantuml", "Line 1: @enduml comes before @startuml."),
    ("@startuml\nclass A {\n}\n}\n@enduml", "plantuml", "Line 4: '}' without a matching opening block."),
    ("a -> b\n}", "d2", "Line 2: '}' without a matching '{'."),
    ("a: {\n  b: {\n}", "d2", "1 block(s) opened and never closed."),
    ("users.id", "dbml", "needs at least one Table, Enum or Ref"),
    ("Table my table {\n}", "dbml", "Line 1: a table is declared as 'Table name {'"),
    ("Table a {\n}\nRef: a.id = b.id", "dbml", "Line 3: a reference is written"),
])
def test_broken_code_is_reported(english, code, diagram_type, problem):
    problems = syntax_problems(code, diagram_type)
    assert len(problems) == 1 and problem in problems[0], problems


def test_validator_messages_are_translated(app):
    with app.test_request_context(headers={"Accept-Language": "es"}):
        assert syntax_problems("flowchart TD\nend", "mermaid") == ["Línea 2: 'end' sin un 'subgraph' correspondiente."]
