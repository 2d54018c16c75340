"""AI repair of a diagram (fix) and conversion between diagram languages (convert). Nothing is saved:
the client applies the result with PUT /diagrams/{id}."""
import difflib
import re
from dataclasses import replace

from flask_babel import gettext as _

from ...core.ownership import owned_diagram
from ...errors import N_, AppError, BadRequest
from ...services.ai import prompts, repair_prompts
from ...services.ai.client import complete
from ...services.ai.errors import empty_response_error, truncated_error
from ...services.ai.validator import code_language, syntax_problems
from .generation_service import Timer, content_language, prepare_call
from .settings_service import NoActiveProvider

CONVERTIBLE = ("mermaid", "plantuml", "d2", "dbml")
WARNINGS = {
    ("mermaid", "dbml"): N_("Only entity-relationship diagrams have a DBML equivalent."),
    ("dbml", "mermaid"): N_("The data model becomes a Mermaid ER diagram; indexes and complex enums "
                            "may be simplified."),
    ("dbml", "plantuml"): N_("The data model becomes a PlantUML class/entity diagram; DBML column "
                             "settings are simplified."),
    ("dbml", "d2"): N_("Tables become D2 objects; the drawing will look different."),
    ("d2", "mermaid"): N_("Nested containers and advanced styles may not map to Mermaid."),
    ("mermaid", "d2"): N_("Sequence diagrams and Gantt charts may lose details in D2."),
    ("plantuml", "mermaid"): N_("skinparam settings and colors are simplified in Mermaid."),
    ("mermaid", "plantuml"): N_("The structure is kept; classDef styles are adapted to skinparam."),
}


class Unprocessable(AppError):
    """The AI answered, but its result cannot be used (the diagram is left as it was)."""

    status = 422


def _diff(original, corrected):
    return "\n".join(difflib.unified_diff(original.splitlines(), corrected.splitlines(),
                                          fromfile="original", tofile="corrected", lineterm=""))


def fix_diagram(user, diagram_id, data):
    """Repair the syntax of a diagram (the stored code, or the code sent in the body)."""
    diagram = owned_diagram(user, diagram_id)
    code = data["diagram_code"] if data.get("diagram_code") is not None else diagram.content or ""
    diagram_type = diagram.diagram_type
    language = code_language(diagram_type)
    if language is None:
        raise BadRequest(_("AI repair works on Mermaid, PlantUML, D2 and DBML diagrams."))
    if not code.strip():
        raise BadRequest(_("The diagram is empty: there is nothing to repair."))
    try:
        config, _auto_fix = prepare_call(user, data)
    except NoActiveProvider as missing:
        if missing.provider is not None:
            raise
        raise BadRequest(missing.detail) from None  # repair without any provider at all is a 400
    timer = Timer()
    completion = complete(config, repair_prompts.fix_system_prompt(language, content_language(data)),
                          [{"role": "user", "content": repair_prompts.fix_prompt(code, language,
                                                                                 data.get("error_context"))}],
                          max_tokens=prompts.CODE_BUDGET, temperature=repair_prompts.FIX_TEMPERATURE)
    if completion.truncated:
        raise truncated_error()
    corrected, explanation, changes = repair_prompts.read_fix_reply(completion.text)
    if not corrected:
        raise empty_response_error()
    problems = syntax_problems(corrected, diagram_type)
    # DBML's check is the roughest: its result is returned, flagged, instead of refused.
    if problems and language != "dbml":
        raise Unprocessable(_("The code corrected by %(provider)s (%(model)s) did not pass validation: "
                              "%(problem)s The diagram was not changed.",
                              provider=config.provider, model=config.model, problem=problems[0]))
    return {"original_code": code, "corrected_code": corrected, "explanation": explanation,
            "changes_summary": changes, "diff": _diff(code, corrected), "provider_used": config.provider,
            "model_used": config.model, "generation_time": timer.seconds(), "validation_passed": not problems}


def _is_data_model(code, source):
    """Whether the source describes a data model, the only kind of diagram DBML can express."""
    if source == "mermaid":
        return re.search(r"^[^\S\n]*erDiagram\b", code, re.MULTILINE) is not None
    if source == "plantuml":
        return bool(re.search(r"^[^\S\n]*entity\s", code, re.MULTILINE)
                    or (re.search(r"^[^\S\n]*class\s", code, re.MULTILINE) and re.search(r"<<\s*[PF]K\s*>>", code)))
    return re.search(r"shape\s*:\s*sql_table", code) is not None


def _check_conversion(code, source, target):
    for kind in (source, target):
        if kind not in CONVERTIBLE:
            raise BadRequest(_("Diagrams of type %(type)s cannot be converted. Convertible types: %(types)s.",
                               type=kind, types=", ".join(CONVERTIBLE)))
    if source == target:
        raise BadRequest(_("The source and target types are the same."))
    if target == "dbml" and not _is_data_model(code, source):
        raise Unprocessable(_("Only data models (entity-relationship diagrams, entities or SQL tables) "
                              "can be converted to DBML."))


def convert_diagram(user, data):
    """Translate diagram code into another language (a preview: nothing is saved)."""
    source, target = data["source_type"].strip().lower(), data["target_type"].strip().lower()
    code = data["diagram_code"]
    _check_conversion(code, source, target)
    config, _auto_fix = prepare_call(user, data)
    if data.get("model"):
        config = replace(config, model=data["model"])
    timer = Timer()
    completion = complete(config, repair_prompts.convert_system_prompt(source, target, content_language(data)),
                          [{"role": "user", "content": repair_prompts.convert_prompt(code, source, target)}],
                          max_tokens=prompts.CODE_BUDGET, temperature=prompts.CODE_TEMPERATURE)
    if completion.truncated:
        raise truncated_error()
    converted = repair_prompts.read_convert_reply(completion.text)
    if not converted:
        raise empty_response_error()
    if converted == repair_prompts.INCOMPATIBLE or syntax_problems(converted, target):
        raise Unprocessable(_("%(provider)s (%(model)s) could not convert this diagram to %(target)s. "
                              "The original was not changed.",
                              provider=config.provider, model=config.model, target=target))
    warning = WARNINGS.get((source, target))
    return {"original_code": code, "converted_code": converted, "source_type": source, "target_type": target,
            "provider_used": config.provider, "model_used": config.model, "generation_time": timer.seconds(),
            "warning": _(warning) if warning else None}
