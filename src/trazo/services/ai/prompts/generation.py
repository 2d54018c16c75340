"""Prompts for writing diagram code (generate, improve, and the repair turn after a failed syntax check)
and for writing or refining the description of a diagram."""
from .guides import LANGUAGE_LABELS, SYNTAX_GUIDES, language_name

CODE_BUDGET = 8192
CODE_TEMPERATURE = 0.2


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
