"""The prompts of translating a diagram into another diagram language (convert), and the reading of the answer."""
from ..text import extract_code
from .guides import LANGUAGE_LABELS, SYNTAX_GUIDES, language_name

INCOMPATIBLE = "<<<INCOMPATIBLE>>>"


def convert_system_prompt(source, target, language):
    source_label, target_label = LANGUAGE_LABELS[source], LANGUAGE_LABELS[target]
    return f"""You translate diagrams-as-code from {source_label} to {target_label}.

{SYNTAX_GUIDES[target]}

Keep every element, relation and label of the original; adapt only what {target_label} cannot
express, in the closest way it can. Labels stay in their original wording; anything you have to
add is written in {language_name(language)}.

Answer with the complete {target_label} code only: no explanation and no Markdown fence.
If the diagram cannot be expressed in {target_label} at all, answer exactly {INCOMPATIBLE}"""


def convert_prompt(code, source, target):
    return f"Convert this {source} diagram to {target}:\n\n```{source}\n{code}\n```"


def read_convert_reply(reply):
    """The converted code, or INCOMPATIBLE when the model said the conversion is impossible."""
    text = extract_code(reply)
    return INCOMPATIBLE if text == INCOMPATIBLE else text
