"""What the chat sends to the model: the system prompt, the conversation turns and the summaries.

Prompts are written in English for every language (the model is told which language to answer in).
"""
from ...services.ai.prompts import SYNTAX_GUIDES, language_name
from .replies import END_MARKER, START_MARKER

RECENT_TURNS = 4
SUMMARY_MAX_CHARS = 800
SUMMARY_MIN_LINES = 4

RENDER_NOTES = {
    "plantuml": "The diagram is rendered on the server by PlantUML, which cannot !include remote files.",
    "d2": "The diagram is rendered on the server by the D2 compiler, which rejects unknown shapes.",
    "dbml": "The diagram is rendered on the server from DBML, which rejects references between whole tables.",
}
PRESETS = {
    "explain": "The user wants an explanation of the current diagram: what it shows, its parts and its "
               "flow. Answer in text only. Do not write any code and do not use the diagram markers.",
    "improve_ui": "Improve the visual clarity of the diagram: layout direction, grouping, consistent and "
                  "short labels, styles where the syntax allows. Keep its meaning.",
    "improve_process": "Improve the process the diagram describes: missing steps, decisions, validations, "
                       "error paths and ends. Keep what is already right.",
    "fix": "Repair the syntax errors of the diagram so it renders, keeping the author's intent and content.",
}


def system_prompt(diagram_code, diagram_type, language, preset_action=None):
    """The one system prompt of both chat paths (streamed and not)."""
    parts = [
        f"You are an expert in {diagram_type} diagrams, helping a user edit a diagram in a diagram editor.",
        f"Current diagram ({diagram_type}):\n```{diagram_type}\n{diagram_code}\n```",
    ]
    if diagram_type in RENDER_NOTES:
        parts.append(RENDER_NOTES[diagram_type])
    if diagram_type in SYNTAX_GUIDES:
        parts.append(SYNTAX_GUIDES[diagram_type])
    parts.append("Common errors to avoid: unbalanced brackets or quotes, labels with unquoted special "
                 "characters, ids reused for different things, mixing syntaxes of other diagram languages.")
    if preset_action in PRESETS:
        parts.append(f"Requested action: {PRESETS[preset_action]}")
    if preset_action != "explain":
        parts.append(
            f"When you change the diagram, always send the COMPLETE diagram, never a fragment or a diff: "
            f"put it on its own lines between {START_MARKER} and {END_MARKER}, without Markdown fences, "
            f"then explain the change in two or three lines.")
    parts.append(f"Write every explanation and every label you add in {language_name(language)}; "
                 "identifiers stay ASCII.")
    parts.append("Behaviour: if the user asks a question, answer in text only. If the user asks for a change, "
                 "reply with the full diagram between the markers and a short explanation. If the request "
                 "is unclear, ask before changing anything.")
    return "\n\n".join(parts)


def conversation(summary, recent, content, language):
    """The turns sent to the model: the rolling summary, the last few exchanges and the new request."""
    turns = []
    if summary:
        turns.append({"role": "assistant", "content": (
            f"[Conversation context]\n{summary}\n\nThe current diagram already includes every change made "
            f"so far. Any change still has to come as the complete diagram between {START_MARKER} and "
            f"{END_MARKER}.")})
    for message in recent[-RECENT_TURNS:]:
        turns.append({"role": message["role"], "content": message["content"]})
    turns.append({"role": "user", "content": f"New request from the user: {content}"})
    return _alternating(turns)


def _alternating(turns):
    """Merge consecutive turns of one role: some providers reject two user (or assistant) turns in a row."""
    merged = []
    for turn in turns:
        if merged and merged[-1]["role"] == turn["role"]:
            merged[-1] = {"role": turn["role"], "content": f"{merged[-1]['content']}\n\n{turn['content']}"}
        else:
            merged.append(dict(turn))
    if merged and merged[0]["role"] != "user":
        merged.insert(0, {"role": "user", "content": "Let's continue our conversation about this diagram."})
    return merged


SUMMARY_SYSTEM = ("You summarize conversations about a diagram so they can continue in a new session. "
                  "Keep the decisions, the requested changes and open questions; leave out the code.")


def summary_request(summary, transcript, language):
    lines = [f"{message['role'].capitalize()}: {message['content']}" for message in transcript]
    previous = f"Earlier summary:\n{summary}\n\n" if summary else ""
    return [{"role": "user", "content": (
        f"{previous}Conversation:\n" + "\n".join(lines)
        + f"\n\nWrite a compact summary (at most 15 lines) in {language_name(language)}.")}]


def rolling_summary(summary, request, answer, code_generated):
    """Append one exchange to the summary; drop the oldest lines beyond the size bound."""
    line = f"User asked: {_clip(request, 100)} / AI answered: {_clip(answer, 120)}"
    if code_generated:
        line += " [+ code generated]"
    lines = [*(summary or "").splitlines(), line]
    while len(lines) > SUMMARY_MIN_LINES and len("\n".join(lines)) > SUMMARY_MAX_CHARS:
        lines.pop(0)
    return "\n".join(lines)


def _clip(text, limit):
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def estimated_tokens(*texts):
    """As the product we replace estimated: four characters a token, plus room for the instructions."""
    return (sum(len(text) for text in texts) + 500) // 4
