"""What a chat turn gives the model besides the system prompt: the mode its request asks for (an answer
in words, `text`, or a changed diagram, `code`), the conversation (rolling summary, recent turns and the
new request), the summary that compacts a long conversation, and the size estimate that triggers it.
"""
import re
import unicodedata

from ...services.ai.prompts import chat as chat_texts

RECENT_TURNS = 4
SUMMARY_MAX_CHARS = 800
SUMMARY_MIN_LINES = 4

TEXT = "text"
CODE = "code"
CODE_PRESETS = ("improve_ui", "improve_process", "fix")

# Imperative edit verbs, written without accents (the message is compared accent-free).
EDIT_VERBS = frozenset("""
    add append change remove delete drop rename replace move create make update modify fix repair insert
    connect convert generate draw improve refactor reorganize reorganise restructure simplify split merge
    include put set use apply correct extend expand reorder swap colour color style highlight group link
    build design translate turn rewrite redo
    agrega agregar anade anadir cambia cambiar quita quitar elimina eliminar borra borrar renombra renombrar
    reemplaza reemplazar sustituye sustituir mueve mover crea crear haz hacer actualiza actualizar modifica
    modificar corrige corregir arregla arreglar repara reparar inserta insertar conecta conectar convierte
    convertir genera generar dibuja dibujar mejora mejorar reorganiza reorganizar reestructura simplifica
    simplificar divide dividir une unir fusiona fusionar incluye incluir pon poner usa usar aplica aplicar
    extiende extender amplia ampliar ordena ordenar reordena colorea colorear resalta resaltar agrupa agrupar
    enlaza enlazar construye construir disena disenar traduce traducir pinta pintar rehaz reescribe
""".split())
DIAGRAM_NOUNS = frozenset("diagrama diagram flujo flowchart esquema modelo".split())
# Spanish imperatives take pronouns at the end: "agregale", "hazlo", "ponselo".
ENCLITICS = ("selos", "selas", "selo", "sela", "noslo", "melo", "les", "los", "las", "nos", "le", "lo",
             "la", "me", "te")
QUESTION_WORDS = ("explain", "explica", "explicame", "describe", "describeme", "analiza", "analyze",
                  "analyse", "why", "por que", "how does", "how do", "how many", "how much", "what is",
                  "what does", "que es", "que hace", "cual", "cuales", "cuantos", "cuantas", "como funciona",
                  "tell me", "dime", "summarize", "resume", "resumeme")
_WORD = re.compile(r"[a-z]+")


def _plain(text):
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _is_edit_verb(word):
    if word in EDIT_VERBS:
        return True
    return any(word.endswith(suffix) and word[:-len(suffix)] in EDIT_VERBS for suffix in ENCLITICS)


def _has_question(plain):
    if "?" in plain or "¿" in plain:
        return True
    return any(re.search(rf"\b{re.escape(words)}\b", plain) for words in QUESTION_WORDS)


def guess_mode(content, preset_action=None):
    """As the product we replace guessed: presets first, then the first word, then question marks and keywords."""
    if preset_action == "explain":
        return TEXT
    if preset_action in CODE_PRESETS:
        return CODE
    plain = _plain(content)
    words = _WORD.findall(plain)
    if not words:
        return TEXT
    if _is_edit_verb(words[0]):
        return CODE
    if words[0] in DIAGRAM_NOUNS and "?" not in plain:
        return CODE
    if _has_question(plain):
        return TEXT
    if any(_is_edit_verb(word) for word in words):
        return CODE
    return TEXT


def conversation(summary, recent, content, language):
    """The turns sent to the model: the rolling summary, the last few exchanges and the new request."""
    turns = []
    if summary:
        turns.append({"role": "assistant", "content": chat_texts.summary_note(summary)})
    for message in recent[-RECENT_TURNS:]:
        turns.append({"role": message["role"], "content": message["content"]})
    turns.append({"role": "user", "content": chat_texts.new_request(content)})
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
        merged.insert(0, {"role": "user", "content": chat_texts.OPENING})
    return merged


def summary_request(summary, transcript, language):
    lines = [f"{message['role'].capitalize()}: {message['content']}" for message in transcript]
    return [{"role": "user", "content": chat_texts.summary_prompt(summary, "\n".join(lines), language)}]


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
