"""Prompts for writing diagram code and descriptions.

Instructions are in English whatever the user's language (models follow them best and the
system prompt stays cacheable); only the language the output is written in changes.
"""
LANGUAGE_NAMES = {"en": "English", "es": "Spanish"}
CODE_BUDGET = 8192
CODE_TEMPERATURE = 0.2
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


def code_system_prompt(code_language, language):
    """System prompt for writing or changing a diagram (generate, improve)."""
    label = LANGUAGE_LABELS[code_language]
    return f"""You are an expert in {label} diagrams-as-code.

{SYNTAX_GUIDES[code_language]}

PRIORITIES
1. The code must be valid {label} that renders without errors.
2. It must represent what the user asked for, faithfully and completely.
3. It must be readable: clear labels, sensible layout, no clutter.
4. Style comes last.

LANGUAGE
Write every label, title and note in {language_name(language)}; identifiers stay ASCII.

OUTPUT
Answer with exactly one Markdown code block tagged `{code_language}` holding the complete diagram,
and nothing else: no explanation before or after it."""


def generate_prompt(description):
    return f"Create this diagram:\n\n{description}"


def improve_prompt(code, request, code_language):
    return (f"This is the current diagram:\n\n```{code_language}\n{code}\n```\n\n"
            f"Apply this change: {request}\n\n"
            "Keep everything else as it is and return the complete diagram.")


def repair_prompt(problems):
    """Follow-up turn after a reply whose code failed the syntax check."""
    listed = "\n".join(f"- {problem}" for problem in problems)
    return ("Your code has syntax errors:\n"
            f"{listed}\n\n"
            "Fix them and send the complete corrected diagram, in the same output format.")


DESCRIPTION_SYSTEM = """You are an expert in documenting technical diagrams for engineering teams.
You write clear, accurate Markdown documentation of what a diagram shows."""


def _description_rules(language):
    return f"""Write the documentation in {language_name(language)}, in Markdown:
- use these sections as `##` headings: Overview, Components, Flow or Relationships, Notes;
- put the key terms in **bold** and use bullet lists where they help;
- between 150 and 600 words;
- describe only what the diagram shows; do not invent parts that are not in it;
- no code blocks and no copy of the diagram code; answer with the documentation only."""


def description_prompt(code, diagram_type, language):
    return (f"Document this {diagram_type} diagram.\n\n```{diagram_type}\n{code}\n```\n\n"
            f"{_description_rules(language)}")


def refine_prompt(code, diagram_type, current_description, request, language):
    return (f"This {diagram_type} diagram:\n\n```{diagram_type}\n{code}\n```\n\n"
            f"has this documentation:\n\n<documentation>\n{current_description}\n</documentation>\n\n"
            f"Rewrite the documentation following this instruction: {request}\n\n"
            f"Keep what the instruction does not ask to change.\n{_description_rules(language)}")
