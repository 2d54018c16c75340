"""Stateless generation: write or change diagram code, write or refine its description.

Nothing is stored. The database connection is given back before the provider is called, so a
slow model never holds a pooled connection.
"""
import time

from flask import current_app
from flask_babel import get_locale

from ...extensions import db
from ...services.ai import prompts
from ...services.ai.client import complete
from ...services.ai.errors import empty_response_error, truncated_error
from ...services.ai.text import extract_code, strip_fence, strip_think
from ...services.ai.validator import code_language, syntax_problems
from .settings_service import auto_fix_enabled, resolve_provider


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
    first = complete(config, system, messages, max_tokens=prompts.CODE_BUDGET,
                     temperature=prompts.CODE_TEMPERATURE)
    code = _code_of(first)
    problems = syntax_problems(code, diagram_type)
    if not problems or not auto_fix:
        return code
    retry = [*messages, {"role": "assistant", "content": first.text},
             {"role": "user", "content": prompts.repair_prompt(problems)}]
    second = complete(config, system, retry, max_tokens=prompts.CODE_BUDGET,
                      temperature=prompts.CODE_TEMPERATURE)
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
    system = prompts.code_system_prompt(code_language(data["diagram_type"]), content_language(data))
    messages = [{"role": "user", "content": prompts.generate_prompt(data["description"])}]
    code = write_code(config, system, messages, data["diagram_type"], auto_fix)
    return _result(config, timer, diagram_code=code)


def improve_diagram(user, data):
    """Apply a requested change to a diagram and return the whole new code; an empty diagram is
    written from the request alone (the editor's way of generating from scratch)."""
    config, auto_fix = prepare_call(user, data)
    timer = Timer()
    language = code_language(data["diagram_type"])
    system = prompts.code_system_prompt(language, content_language(data))
    request = (prompts.improve_prompt(data["diagram_code"], data["improvement_request"], language)
               if data["diagram_code"].strip() else prompts.generate_prompt(data["improvement_request"]))
    messages = [{"role": "user", "content": request}]
    code = write_code(config, system, messages, data["diagram_type"], auto_fix)
    return _result(config, timer, diagram_code=code, original_code=data["diagram_code"],
                   improvement_applied=data["improvement_request"])


def _describe(config, prompt):
    completion = complete(config, prompts.DESCRIPTION_SYSTEM, [{"role": "user", "content": prompt}])
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
    prompt = prompts.description_prompt(data["diagram_code"], data["diagram_type"], content_language(data))
    description, tokens = _describe(config, prompt)
    return _result(config, timer, description=description, tokens_used=tokens)


def refine_description(user, data):
    """Rewrite a diagram's documentation following an instruction."""
    config, _auto_fix = prepare_call(user, data, short_text=True)
    timer = Timer()
    prompt = prompts.refine_prompt(data["diagram_code"], data["diagram_type"], data["current_description"],
                                   data["refinement_request"], content_language(data))
    description, tokens = _describe(config, prompt)
    return _result(config, timer, description=description, tokens_used=tokens)
