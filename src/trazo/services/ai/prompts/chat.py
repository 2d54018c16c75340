"""The chat's texts: the system prompt of a turn, the notes around the conversation and the request
that compacts a long conversation into a summary."""
from ..replies import END_MARKER, START_MARKER
from .guides import SYNTAX_GUIDES, language_name

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
OPENING = "Let's continue our conversation about this diagram."
SUMMARY_SYSTEM = ("You summarize conversations about a diagram so they can continue in a new session. "
                  "Keep the decisions, the requested changes and open questions; leave out the code.")


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


def summary_note(summary):
    """The turn that carries the rolling summary of the earlier conversation."""
    return (f"[Conversation context]\n{summary}\n\nThe current diagram already includes every change made "
            f"so far. Any change still has to come as the complete diagram between {START_MARKER} and "
            f"{END_MARKER}.")


def new_request(content):
    return f"New request from the user: {content}"


def summary_prompt(summary, conversation, language):
    """The request to compact `conversation` (one `Role: text` line per message) into a summary."""
    previous = f"Earlier summary:\n{summary}\n\n" if summary else ""
    return (f"{previous}Conversation:\n" + conversation
            + f"\n\nWrite a compact summary (at most 15 lines) in {language_name(language)}.")
