"""Guess whether a chat message asks for an answer in words (`text`) or a changed diagram (`code`)."""
import re
import unicodedata

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
