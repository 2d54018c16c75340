"""What every prompt says about a diagram language, and the name of the language the output is written in."""
LANGUAGE_NAMES = {"en": "English", "es": "Spanish"}
LANGUAGE_LABELS = {"mermaid": "Mermaid", "plantuml": "PlantUML", "d2": "D2", "dbml": "DBML"}

SYNTAX_GUIDES = {
    "mermaid": """MERMAID RULES
- Pick the diagram kind that fits the request: flowchart, sequenceDiagram, classDiagram,
  stateDiagram-v2, erDiagram, gantt, pie, journey, mindmap, timeline, gitGraph...
- The first line is the diagram kind (for a flowchart also its direction: flowchart TD or LR).
- Node ids are short ASCII words without spaces or accents (A, checkout, userDb); the visible
  text goes in the label: A["Check the order"].
- Quote every label that holds spaces, punctuation or non-ASCII letters.
- No HTML in labels except <br/> for a line break.
- classDef and class lines only in flowcharts and state diagrams.
- Every subgraph is closed by its own `end` line.
- In sequence diagrams every activate has its deactivate (or use +/- on the arrows).
- erDiagram relations use the crow's-foot notation: CUSTOMER ||--o{ ORDER : places""",
    "plantuml": """PLANTUML RULES
- Exactly one diagram between @startuml and @enduml.
- Activity diagrams use the new syntax only: start, :action;, if (...) then (yes) ... endif, stop.
- Every activate has its deactivate.
- Colors are written #RRGGBB or with a color name (#LightBlue).
- Aliases are ASCII words: participant "Payment service" as payments.
- Every package, class or namespace block opened with { is closed with }.""",
    "d2": """D2 RULES
- Shapes come from this list only: rectangle, square, page, parallelogram, document, cylinder,
  queue, package, step, callout, stored_data, person, diamond, oval, circle, hexagon, cloud,
  text, code, class, sql_table, image, sequence_diagram.
- Connections: a -> b: label ; containers: group: { a; b }.
- Never connect a container to one of its own children.
- Every { has its }. Quote labels that hold special characters.""",
    "dbml": """DBML RULES
- Table and column names are ASCII identifiers (snake_case); quote them only when unavoidable.
- Declare tables as: Table users { id integer [pk] ... }.
- Relations link columns, never whole tables: Ref: posts.user_id > users.id
  (or inline: user_id integer [ref: > users.id]).
- Strings use single quotes, notes use note: '...'; every { has its }.""",
}


def language_name(language):
    return LANGUAGE_NAMES.get(language, "English")

