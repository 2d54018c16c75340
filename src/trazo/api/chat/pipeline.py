"""Sending a message: the reply from the provider, read, repaired when its code is broken, and saved.

The same steps serve both routes: `send_message` runs them in the request and answers the saved
message; `stream_message` runs them in a worker thread and forwards their events as SSE.
"""
import logging
import time
from dataclasses import dataclass

from flask import current_app
from flask_babel import force_locale
from flask_babel import gettext as _

from ...core.ai.calls import AIProviderError, complete, stream
from ...core.ai.failures import empty_response_error
from ...core.content.validation import syntax_problems
from ...errors import NotFound
from ...extensions import db
from ...services.ai.prompts import chat as chat_texts
from ...services.ai.prompts.generation import repair_prompt
from ...services.ai.replies import carries_diagram, has_start_marker, normalize_markers, split_reply, thinking_excerpt
from ...services.ai.text import ThinkFilter
from ..sse import sse_response
from . import context, service, turns
from .context import CODE, TEXT
from .sse import Channel, event_stream, start_thread

log = logging.getLogger(__name__)

CODE_BUDGET = 8192
SUMMARY_BUDGET = 1024
SUMMARY_TEMPERATURE = 0.5
MAX_FIX_ATTEMPTS = 2
AUTO_FIX_TYPES = ("mermaid", "d2")
COMPACT_AT = 0.8
# The context window assumed for every model; the provider catalog has no per-model windows.
CONTEXT_TOKENS = 64_000
MARKER_WINDOW = 40


def phase_labels():
    return {"thinking": _("Thinking…"), "analyzing": _("Analyzing your diagram…"),
            "generating": _("Generating code…"), "validating": _("Validating syntax…")}


def truncation_notice():
    return _("The diagram was too large and the reply was cut off, so it was not applied. "
             "Ask for a smaller change or split the diagram into parts.")


class Quiet:
    """The event sink of the non-streamed route: nobody listens, nothing is cancelled."""

    cancelled = False

    def emit(self, payload):
        pass

    def watch(self, upstream):
        pass


@dataclass
class Reply:
    text: str
    thinking: str
    truncated: bool


class Cancelled(Exception):
    """The client went away; the reply is abandoned and nothing more is saved."""


def _phase(channel, key):
    channel.emit({"type": "phase", "phase": phase_labels()[key]})


def _visible(text):
    hidden = ThinkFilter()
    visible = hidden.feed(text or "") + hidden.finish()
    return visible, hidden.thinking


def _ask(turn, system, messages):
    completion = complete(turn.config, system, messages, max_tokens=CODE_BUDGET)
    text, thinking = _visible(completion.text)
    return Reply(text, thinking, completion.truncated)


def _ask_streamed(turn, system, messages, channel):
    """Forward the visible text as `token` events; think text is kept apart, never sent as tokens."""
    hidden = ThinkFilter()
    parts = []
    window = ""  # the newest visible text, enough to see a start marker split across deltas
    started = announced = False
    with stream(turn.config, system, messages, max_tokens=CODE_BUDGET) as upstream:
        channel.watch(upstream)
        for delta in upstream:
            if channel.cancelled:
                raise Cancelled()
            if not started:
                started = True
                _phase(channel, "analyzing")
            visible = hidden.feed(delta)
            if not visible:
                continue
            if not announced:
                recent = window + visible
                if has_start_marker(recent) or (turn.mode == CODE and "```" in recent):
                    announced = True
                    _phase(channel, "generating")
                window = recent[-MARKER_WINDOW:]
            parts.append(visible)
            channel.emit({"type": "token", "content": visible})
        truncated = upstream.truncated
    if channel.cancelled:
        raise Cancelled()
    tail = hidden.finish()
    if tail:
        parts.append(tail)
        channel.emit({"type": "token", "content": tail})
    return Reply("".join(parts), hidden.thinking, truncated)


def _conversation(turn):
    """The turns to send, after moving a conversation that no longer fits into a new session.

    Compaction only happens when the earlier messages are what pushes the request over the
    limit; a diagram that is too large on its own would otherwise start a new session every time.
    """
    messages = context.conversation(turn.summary, turn.transcript, turn.content, turn.language)
    limit = CONTEXT_TOKENS * COMPACT_AT
    needed = context.estimated_tokens(turn.diagram_code, *(message["content"] for message in messages))
    alone = context.estimated_tokens(turn.diagram_code, turn.content)
    if needed < limit or alone >= limit or not (turn.summary or turn.transcript):
        return messages
    completion = complete(turn.config, chat_texts.SUMMARY_SYSTEM,
                          context.summary_request(turn.summary, turn.transcript, turn.language),
                          max_tokens=SUMMARY_BUDGET, temperature=SUMMARY_TEMPERATURE)
    summary = _visible(completion.text)[0].strip()
    turn.session_id = turns.move_to_new_session(turn, summary)
    turn.summary, turn.transcript = summary, []
    return context.conversation(summary, [], turn.content, turn.language)


def _read(turn, reply, channel):
    """(code, text) of a reply; announces the switch to code when a text answer carried a diagram."""
    if reply.truncated:
        return None, truncation_notice()
    text = normalize_markers(reply.text)
    mode = turn.mode
    if turn.preset_action != "explain" and mode == TEXT and carries_diagram(text, turn.diagram_type):
        mode = CODE
        channel.emit({"type": "mode", "mode": CODE})
    code, words = split_reply(text, turn.diagram_type) if mode == CODE else (None, text.strip())
    if code and not words:
        words = thinking_excerpt(reply.thinking)
    if not code and not words:
        raise empty_response_error()
    return code, words


def _repair(turn, system, messages, reply_text, code, channel):
    """Re-ask (at most MAX_FIX_ATTEMPTS times) while the proposed code has syntax problems."""
    if not turn.auto_fix or turn.diagram_type not in AUTO_FIX_TYPES:
        return code, False
    transcript = [*messages, {"role": "assistant", "content": reply_text}]
    for _attempt in range(MAX_FIX_ATTEMPTS):
        problems = syntax_problems(code, turn.diagram_type)
        if not problems:
            break
        _phase(channel, "validating")
        transcript.append({"role": "user", "content": repair_prompt(problems)})
        retry = _ask(turn, system, transcript)
        if channel.cancelled:
            raise Cancelled()
        if retry.truncated:
            return None, True
        transcript.append({"role": "assistant", "content": retry.text})
        fixed, _words = split_reply(retry.text, turn.diagram_type)
        code = fixed or code
    return code, False


def run_turn(turn, channel, streamed):
    """Produce, check and save the reply; answers the saved message (assistant or error role)."""
    started = time.monotonic()
    channel.emit({"type": "mode", "mode": turn.mode})
    _phase(channel, "thinking")
    if turn.config is None:
        channel.emit({"type": "error", "message": turn.missing_provider, "error_code": "no_provider"})
        return None
    try:
        messages = _conversation(turn)
        system = chat_texts.system_prompt(turn.diagram_code, turn.diagram_type, turn.language, turn.preset_action)
        reply = _ask_streamed(turn, system, messages, channel) if streamed else _ask(turn, system, messages)
        code, text = _read(turn, reply, channel)
        truncated = reply.truncated
        if code:
            code, cut = _repair(turn, system, messages, reply.text, code, channel)
            if cut:
                truncated, text = True, truncation_notice()
    except AIProviderError as exc:
        if channel.cancelled:
            raise Cancelled() from exc
        message = turns.save_failure(turn, exc.message)
        channel.emit({"type": "error", "message": exc.message, "error_code": exc.code})
        return message
    message = turns.save_reply(turn, text, code, time.monotonic() - started)
    done = {"type": "done", "message_id": message.id, "provider_used": message.provider_used,
            "model_used": message.model_used, "generation_time": message.generation_time,
            "session_id": message.session_id, "truncated": truncated}
    if code:
        done["improved_code"] = code
    if reply.thinking:
        done["thinking_content"] = reply.thinking
    channel.emit(done)
    return message


def send_message(user, session_id, data):
    """The non-streamed route: the saved reply, or an error-role message when the provider failed;
    404 when no provider can answer (the user's message stays in the history)."""
    turn = turns.start_turn(user, session_id, data)
    db.session.close()  # hold no pooled connection while the provider answers
    if turn.config is None:
        raise NotFound(turn.missing_provider)
    return run_turn(turn, Quiet(), streamed=False)


def access_ended():
    return {"type": "error", "message": _("You no longer have access to this chat session."),
            "error_code": "access_ended"}


def _access_check(app, user_id, turn):
    """A stream's access check (sse.event_stream): None while the caller's session exists and they may read
    its diagram, else the error event ending the stream; each check is one statement on a connection taken
    for it and given back at once."""

    def refusal():
        with app.app_context(), force_locale(turn.locale):
            try:
                allowed = service.may_follow(user_id, turn.session_id)
            finally:
                db.session.remove()
            return None if allowed else access_ended()

    return refusal


def stream_message(user, session_id, data):
    """The streamed route: checks and the user message first, then SSE fed by a worker thread
    (without a provider: mode, phase and an error event)."""
    turn = turns.start_turn(user, session_id, data)
    app = current_app._get_current_object()
    keepalive = app.config.get("SSE_KEEPALIVE_SECONDS", 15)
    check_seconds = app.config.get("SSE_ACCESS_CHECK_SECONDS", 10)
    refusal = _access_check(app, user.id, turn)
    db.session.close()  # the stream may last minutes: hold no connection meanwhile
    channel = Channel()

    def work():
        with app.app_context(), force_locale(turn.locale):
            try:
                run_turn(turn, channel, streamed=True)
            except Cancelled:
                log.info("chat stream of session %s cancelled by the client", turn.session_id)
            except NotFound as exc:  # the session was deleted while the reply was being written
                channel.emit({"type": "error", "message": exc.detail, "error_code": "not_found"})
            except Exception:  # the status is already 200: report it in the stream, never silently
                log.exception("chat stream of session %s failed", turn.session_id)
                channel.emit({"type": "error", "message": _("The reply could not be completed. Try again."),
                              "error_code": "internal_error"})
            finally:
                channel.finish()

    return sse_response(event_stream(channel, lambda: start_thread(work), keepalive, refusal, check_seconds))

