"""The prompts of repairing a diagram's syntax (fix), and the reading of their delimited answer."""
import json
import re

from ..text import MAX_REPLY_CHARS, extract_code, strip_fence, strip_think
from .guides import LANGUAGE_LABELS, SYNTAX_GUIDES, language_name

FIX_TEMPERATURE = 0.3
SECTION = re.compile(r"<<<(EXPLANATION|CHANGES|CODE)>>>", re.IGNORECASE)


def fix_system_prompt(code_language, language):
    label = LANGUAGE_LABELS[code_language]
    return f"""You repair {label} diagrams-as-code that fail to render.

{SYNTAX_GUIDES[code_language]}

Fix every syntax error while keeping the meaning, the structure and the labels of the diagram.
Change only what is needed. Write the explanation in {language_name(language)}.

Answer in exactly this format, with nothing before or after it:
<<<EXPLANATION>>>
what was wrong and how you fixed it, in two or three sentences
<<<CHANGES>>>
one line summarising the changes
<<<CODE>>>
the complete corrected diagram, without a Markdown fence"""


def fix_prompt(code, code_language, error_context):
    context = f"\n\nThe renderer reported:\n{error_context}" if error_context else ""
    return f"Repair this diagram:\n\n```{code_language}\n{code}\n```{context}"


def read_fix_reply(reply):
    """(corrected_code, explanation, changes_summary) from the delimited answer.

    Models sometimes answer JSON or a bare code block instead; both are understood too.
    """
    text = strip_think((reply or "")[:MAX_REPLY_CHARS]).strip()
    parts = SECTION.split(text)
    if len(parts) > 1:
        sections = {name.upper(): body.strip() for name, body in zip(parts[1::2], parts[2::2], strict=False)}
        return (strip_fence(sections.get("CODE", "")), sections.get("EXPLANATION", ""),
                " ".join(sections.get("CHANGES", "").split()))
    candidate = strip_fence(text)
    if candidate.startswith("{"):
        try:
            data = json.loads(candidate)
            return (strip_fence(str(data.get("corrected_code") or "")), str(data.get("explanation") or ""),
                    " ".join(str(data.get("changes_summary") or "").split()))
        except (ValueError, AttributeError):
            pass
    return extract_code(text), "", ""
