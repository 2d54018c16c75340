"""Stateless AI work on diagram code: write or change it (generate, improve), write or refine its
description, repair its syntax (fix) and translate it into another diagram language (convert).

Nothing is stored: the client applies a result with PUT /diagrams/{id}. The database connection is
given back before the provider is called, so a slow model never holds a pooled connection.
"""
import difflib
import re
import time
from dataclasses import replace

from flask import current_app
from flask_babel import get_locale
from flask_babel import gettext as _

from ...core.ai.calls import complete
from ...core.ai.failures import empty_response_error, truncated_error
from ...core.ai.providers import NoActiveProvider, auto_fix_enabled, resolve_provider
from ...core.content import access
from ...core.content.validation import code_language, syntax_problems
from ...errors import N_, AppError, BadRequest
from ...extensions import db
from ...models.workspaces import EDITOR
from ...services.ai.prompts import convert, fix, generation
from ...services.ai.text import extract_code, strip_fence, strip_think


def content_language(data):
    """The language AI content is written in: the body's `language`, else Accept-Language."""
    if data.get("language"):
        return data["language"]
    locale = get_locale()
    return locale.language if locale else current_app.config["DEFAULT_LANGUAGE"]


def prepare_call(user, data, short_text=False):
    """The provider config (and the auto-fix flag) read, then the database connection released."""
    config = resolve_provider(user, data.get("provider_index"), data.get("provider"), short_text)
    auto_fix = auto_fix_enabled(user)
    db.session.close()
    return config, auto_fix


class Timer:
    def __init__(self):
        self.started = time.monotonic()

    def seconds(self):
        return round(time.monotonic() - self.started, 2)


def _code_of(completion):
    if completion.truncated:
        raise truncated_error()
    code = extract_code(completion.text)
    if not code:
        raise empty_response_error()
    return code


def write_code(config, system, messages, diagram_type, auto_fix):
    """Ask for diagram code; when it fails the syntax check (and auto-fix is on), ask once to fix it.

    The repaired code is kept only when it passes the check; otherwise the first answer stands.
    """
    first = complete(config, system, messages, max_tokens=generation.CODE_BUDGET,
                     temperature=generation.CODE_TEMPERATURE)
    code = _code_of(first)
    problems = syntax_problems(code, diagram_type)
    if not problems or not auto_fix:
        return code
    retry = [*messages, {"role": "assistant", "content": first.text},
             {"role": "user", "content": generation.repair_prompt(problems)}]
    second = complete(config, system, retry, max_tokens=generation.CODE_BUDGET,
                      temperature=generation.CODE_TEMPERATURE)
    if second.truncated:
        return code
    repaired = extract_code(second.text)
    return repaired if repaired and not syntax_problems(repaired, diagram_type) else code


def _result(config, timer, **fields):
    return {**fields, "provider_used": config.provider, "model_used": config.model,
            "generation_time": timer.seconds()}


def generate_diagram(user, data):
    """Write a new diagram from a description."""
    config, auto_fix = prepare_call(user, data)
    timer = Timer()
    system = generation.code_system_prompt(code_language(data["diagram_type"]), content_language(data))
    messages = [{"role": "user", "content": generation.generate_prompt(data["description"])}]
    code = write_code(config, system, messages, data["diagram_type"], auto_fix)
    return _result(config, timer, diagram_code=code)


def improve_diagram(user, data):
    """Apply a requested change to a diagram and return the whole new code; an empty diagram is
    written from the request alone (the editor's way of generating from scratch)."""
    config, auto_fix = prepare_call(user, data)
    timer = Timer()
    language = code_language(data["diagram_type"])
    system = generation.code_system_prompt(language, content_language(data))
    request = (generation.improve_prompt(data["diagram_code"], data["improvement_request"], language)
               if data["diagram_code"].strip() else generation.generate_prompt(data["improvement_request"]))
    messages = [{"role": "user", "content": request}]
    code = write_code(config, system, messages, data["diagram_type"], auto_fix)
    return _result(config, timer, diagram_code=code, original_code=data["diagram_code"],
                   improvement_applied=data["improvement_request"])


def _describe(config, prompt):
    completion = complete(config, generation.DESCRIPTION_SYSTEM, [{"role": "user", "content": prompt}])
    # Descriptions answer a text detail with an error_code; only code results keep the object detail.
    if completion.truncated:
        raise truncated_error(as_object=False)
    description = strip_fence(strip_think(completion.text))
    if not description:
        raise empty_response_error(as_object=False)
    return description, completion.tokens_used


def generate_description(user, data):
    """Write the Markdown documentation of a diagram."""
    config, _auto_fix = prepare_call(user, data)
    timer = Timer()
    prompt = generation.description_prompt(data["diagram_code"], data["diagram_type"], content_language(data))
    description, tokens = _describe(config, prompt)
    return _result(config, timer, description=description, tokens_used=tokens)


def refine_description(user, data):
    """Rewrite a diagram's documentation following an instruction."""
    config, _auto_fix = prepare_call(user, data, short_text=True)
    timer = Timer()
    prompt = generation.refine_prompt(data["diagram_code"], data["diagram_type"], data["current_description"],
                                      data["refinement_request"], content_language(data))
    description, tokens = _describe(config, prompt)
    return _result(config, timer, description=description, tokens_used=tokens)


# -- fix and convert ---------------------------------------------------------------------------

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
    diagram = access.diagram(user, diagram_id, EDITOR)
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
    completion = complete(config, fix.fix_system_prompt(language, content_language(data)),
                          [{"role": "user", "content": fix.fix_prompt(code, language, data.get("error_context"))}],
                          max_tokens=generation.CODE_BUDGET, temperature=fix.FIX_TEMPERATURE)
    if completion.truncated:
        raise truncated_error()
    corrected, explanation, changes = fix.read_fix_reply(completion.text)
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
    completion = complete(config, convert.convert_system_prompt(source, target, content_language(data)),
                          [{"role": "user", "content": convert.convert_prompt(code, source, target)}],
                          max_tokens=generation.CODE_BUDGET, temperature=generation.CODE_TEMPERATURE)
    if completion.truncated:
        raise truncated_error()
    converted = convert.read_convert_reply(completion.text)
    if not converted:
        raise empty_response_error()
    if converted == convert.INCOMPATIBLE or syntax_problems(converted, target):
        raise Unprocessable(_("%(provider)s (%(model)s) could not convert this diagram to %(target)s. "
                              "The original was not changed.",
                              provider=config.provider, model=config.model, target=target))
    warning = WARNINGS.get((source, target))
    return {"original_code": code, "converted_code": converted, "source_type": source, "target_type": target,
            "provider_used": config.provider, "model_used": config.model, "generation_time": timer.seconds(),
            "warning": _(warning) if warning else None}
