"""The Markdown export, in an `ai` variant (context for a language model) and a `standard` one; its texts
are localized through the `gettext` function the caller passes."""
import json
import re

from ..core.content.diagram_types import FENCE_LANGUAGES, FREEHAND, RENDERABLE_TYPES
from .layout import type_label


def _fence(code, language):
    """A code fence longer than any backtick run inside the code, so the block cannot end early."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{code.rstrip(chr(10))}\n{ticks}"


def sketch_texts(content):
    """The texts written on a freehand sketch (labels and text elements)."""
    try:
        elements = json.loads(content).get("elements")
    except (ValueError, AttributeError, RecursionError):
        return []
    if not isinstance(elements, list):
        return []
    return [element["text"].strip() for element in elements
            if isinstance(element, dict) and isinstance(element.get("text"), str) and element["text"].strip()]


def _diagram_section(diagram, content, description, snapshot, ai, gettext):
    lines = [f"### {diagram.title}", ""]
    if ai:
        lines += [gettext("Type: %(type)s · Path: `%(path)s` · Updated: %(date)s",
                          type=type_label(diagram.diagram_type, gettext), path=diagram.path,
                          date=f"{diagram.updated_at:%Y-%m-%d}"), ""]
    if snapshot.with_descriptions and description.strip():
        lines += ["**" + gettext("Description") + "**", "", description.strip(), ""]
    if diagram.diagram_type == FREEHAND:
        texts = sketch_texts(content)
        lines += [f"- {text}" for text in (texts or [gettext("(no text)")])]
    else:
        language = FENCE_LANGUAGES.get(diagram.diagram_type)
        if language is None:
            language = diagram.diagram_type if diagram.diagram_type in RENDERABLE_TYPES else "text"
        lines.append(_fence(content, language))
    return lines + [""]


def _preamble(snapshot, gettext):
    lines = ["> " + gettext("Exported on %(date)s UTC.", date=f"{snapshot.exported_at:%Y-%m-%d %H:%M}")]
    if snapshot.scope_folder:
        lines.append("> " + gettext("Folder of the project %(project)s.", project=snapshot.project["name"]))
    lines += [
        "> " + gettext("%(folders)s folder(s), %(diagrams)s diagram(s).", folders=len(snapshot.folders),
                       diagrams=len(snapshot.diagrams)),
        ">",
        "> " + gettext("This document holds the diagrams of a project as source code. Each third-level heading is "
                       "one diagram and each second-level heading a folder. The tag of every code block names the "
                       "diagram language (mermaid, plantuml, d2, dbml); freehand sketches have no source, only the "
                       "texts written on them as a list."),
        "",
    ]
    return lines


def _lines(snapshot, ai, gettext):
    """The document's lines, the diagrams' texts read a batch at a time as their sections come."""
    heading = (gettext("Folder: %(name)s", name=snapshot.scope_folder.name) if snapshot.scope_folder
               else gettext("Project: %(name)s", name=snapshot.project["name"]))
    yield from [f"# {heading}", ""]
    if ai:
        yield from _preamble(snapshot, gettext)
        if snapshot.project.get("description") and not snapshot.scope_folder:
            yield from [gettext("Project description: %(text)s", text=snapshot.project["description"]), ""]
        yield from ["## " + gettext("Index"), ""]
        yield from [f"- {d.title} ({type_label(d.diagram_type, gettext)}) `{d.path}`"
                    for d in snapshot.diagrams] or ["-"]
        yield ""
    by_folder = {}
    for diagram in snapshot.diagrams:
        by_folder.setdefault(diagram.folder_id, []).append(diagram)
    root = by_folder.get(None, [])
    texts = snapshot.read_texts(root + [d for folder in snapshot.folders for d in by_folder.get(folder.id, [])])
    if root:
        if snapshot.folders:
            yield from ["## " + gettext("Root"), ""]
        for _diagram in root:
            yield from _diagram_section(*next(texts), snapshot, ai, gettext)
    for folder in snapshot.folders:
        yield from ["## " + gettext("Folder: %(name)s", name=folder.name), ""]
        diagrams = by_folder.get(folder.id, [])
        if not diagrams:
            yield from ["_" + gettext("This folder is empty.") + "_", ""]
        for _diagram in diagrams:
            yield from _diagram_section(*next(texts), snapshot, ai, gettext)


def _joined(lines):
    """'\\n'.join(lines).rstrip('\\n') + '\\n', piece by piece: trailing newlines wait for more text."""
    pending, first = "", True
    for line in lines:
        piece = line if first else "\n" + line
        first = False
        text = piece.rstrip("\n")
        if text:
            yield pending + text
            pending = piece[len(text):]
        else:
            pending += piece
    yield "\n"


def markdown_chunks(snapshot, variant, gettext):
    """The Markdown export as a stream of strings; the `ai` variant ends with its size and token count."""
    ai = variant == "ai"
    size = characters = 0
    for chunk in _joined(_lines(snapshot, ai, gettext)):
        size += len(chunk.encode())
        characters += len(chunk)
        yield chunk
    if ai:
        yield "\n---\n\n" + gettext("%(bytes)s bytes, about %(tokens)s tokens.", bytes=size,
                                      tokens=estimated_tokens(characters)) + "\n"


def markdown_measure(snapshot, variant, gettext):
    """(bytes, characters) of the Markdown export, counted as it streams past, never held whole."""
    size = characters = 0
    for chunk in markdown_chunks(snapshot, variant, gettext):
        size += len(chunk.encode())
        characters += len(chunk)
    return size, characters


def estimated_tokens(characters):
    return max(1, characters // 4)
