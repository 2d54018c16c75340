"""The diagram types a diagram may have; any other is refused (docs/api.md)."""

# Types the editor works with, each with its own source language.
SOURCE_TYPES = frozenset({"mermaid", "plantuml", "d2", "dbml"})
FREEHAND = "freehand"
# The default type of the product we replace, before its editor chose one; old diagrams still carry it.
LEGACY_TYPES = frozenset({"flowchart"})
# Text languages a Kroki-compatible renderer draws, kept to the ones without file or network access.
RENDERABLE_TYPES = frozenset({
    "actdiag", "blockdiag", "bpmn", "bytefield", "c4plantuml", "d2", "dbml", "ditaa", "erd", "graphviz",
    "nomnoml", "nwdiag", "packetdiag", "pikchr", "plantuml", "rackdiag", "seqdiag", "svgbob", "wavedrom",
})

DIAGRAM_TYPES = frozenset(SOURCE_TYPES | {FREEHAND} | LEGACY_TYPES | RENDERABLE_TYPES)

# File extension of each type's source in exports; other types are written as plain text.
SOURCE_EXTENSIONS = {"mermaid": ".mmd", "flowchart": ".mmd", "plantuml": ".puml", "c4plantuml": ".puml",
                     "d2": ".d2", "dbml": ".dbml", "graphviz": ".dot", FREEHAND: ".freehand.json"}
PLAIN_TEXT_EXTENSION = ".txt"
# Language tag of a Markdown code fence; the Kroki types use their own name.
FENCE_LANGUAGES = {"mermaid": "mermaid", "flowchart": "mermaid", "plantuml": "plantuml", "c4plantuml": "plantuml",
                   "d2": "d2", "dbml": "dbml"}
