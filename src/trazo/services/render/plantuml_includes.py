"""PlantUML includes of a URL of a library the PlantUML jar bundles, drawn from the bundled copy
(docs/rendering.md, "Includes mapped").

Real C4-PlantUML, AWS or Azure diagrams include their library by URL
(`!include https://raw.githubusercontent.com/plantuml-stdlib/C4-PlantUML/master/C4_Container.puml`), and
the jar runs in its SANDBOX security profile, which reads no URL and no file: such a line becomes the
`!include <C4/C4_Container>` of the copy inside the jar before PlantUML reads the source, line for line
(the line numbers PlantUML reports stay the user's). Only the text is rewritten, nothing is ever fetched:
an include of any other URL or of a file still reaches the sandbox, which refuses it, and the engine's
error is answered with the line and what it names (services/render/plantuml.py).

What is recognized: the directives `!include`, `!includeurl`, `!include_many`, `!include_once`,
`!includesub` (a `!PART` suffix kept) and `!theme NAME from FOLDER`, with a URL written out or built
from `!define NAME value` / `!$name = "value"` (a literal) as PlantUML substitutes them; URLs on
raw.githubusercontent.com or github.com (`/raw/` or `/blob/`) of the repositories in LIBRARIES, at any
branch, tag or commit (the bundled release is used whatever the URL names). Anything built at run time
(`%get_variable_value(...)`, concatenations) is left to the sandbox.
"""
import re
from collections.abc import Callable
from dataclasses import dataclass

from .diagnostics import shortened

# The libraries of the pinned jar's stdlib (`java -jar plantuml.jar -stdlib`; PlantUML 1.2026.8).
BUNDLED = frozenset({
    "adaml", "archimate", "aws", "awslib", "awslib10", "awslib14", "awslib20", "azure", "bootstrap", "c4",
    "classy", "classy-c4", "cloudinsight", "cloudogu", "domainstory", "edgy", "eip", "elastic", "gcp", "ibm",
    "k8s", "kubernetes", "logos", "material", "material2", "material7", "office", "osa", "osa2", "tupadr3",
})
# A URL longer than this, or a define growing past it as names are substituted, is left to the sandbox:
# the rewriting stays linear in the source whatever it holds.
MAX_URL_CHARS = 2048

_GITHUB = re.compile(
    r"^https?://(?:raw\.githubusercontent\.com/(?P<raw>[\w.-]+/[\w.-]+)/"
    r"|(?:www\.)?github\.com/(?P<page>[\w.-]+/[\w.-]+)/(?:raw|blob)/)"
    r"(?:refs/(?:heads|tags)/)?(?P<rest>[^?#]+)(?:[?#].*)?$", re.IGNORECASE)
_INCLUDE = re.compile(r"^(?P<head>[ \t]*!)(?P<kind>include(?:url|_many|_once|sub)?|import)[ \t]+(?P<arg>.*)$")
_THEME = re.compile(r"^(?P<head>[ \t]*!theme[ \t]+\S+[ \t]+from[ \t]+)(?P<arg>.*)$")
_DEFINE = re.compile(r"^[ \t]*!define[ \t]+(?P<name>[A-Za-z_]\w*)[ \t]+(?P<value>.*)$")
_ASSIGN = re.compile(r"^[ \t]*!(?:global[ \t]+|local[ \t]+)?(?P<name>\$?[A-Za-z_]\w*)[ \t]*\??=[ \t]*"
                     r"(?P<quote>[\"'])(?P<value>[^\"']*)(?P=quote)[ \t\r]*$")
_UNDEF = re.compile(r"^[ \t]*!undef[ \t]+(?P<name>\$?[A-Za-z_]\w*)")
_NAME = re.compile(r"(?<![\w$])\$?[A-Za-z_]\w*")
_SUBPART = re.compile(r"^(?P<url>.+?\.puml)(?P<part>!\w*)?$", re.IGNORECASE)
_REF_VERSION = re.compile(r"^v?(\d+)(?:[.\-]\d+)*/", re.IGNORECASE)
_ICON_SETS = r"devicons2?|font-awesome(?:-[56])?|govicons|material|weather"


@dataclass(frozen=True)
class Library:
    """Files of repository `repos` (owner/name, lowercase) matching `files` (searched in the path after
    the repository, its branch or tag first) are `<{library}/{path}>`; `folders`, when set, matches a
    folder a `!theme ... from` names."""

    repos: tuple
    library: str | Callable  # a stdlib folder, or (match) -> one
    files: str
    folders: str | None = None
    note: str = ""

    def library_of(self, match):
        return self.library if isinstance(self.library, str) else self.library(match)


def _awslib(match):
    """The bundled AWS release closest to the tag the URL names (v19.0 -> awslib20); awslib20 for a branch."""
    version = _REF_VERSION.match(match.string)
    major = int(version.group(1)) if version else None
    if major is None or major > 14:
        return "awslib20"
    return "awslib14" if major > 10 else "awslib10"


LIBRARIES = (
    Library(("plantuml-stdlib/c4-plantuml", "ricardoniepel/c4-plantuml"), "C4",
            r"/(?P<path>C4(?:_[A-Za-z]+)?|themes/puml-theme-[\w.-]+)\.puml$", r"/(?P<path>themes)/?$",
            "C4-PlantUML 2.13.0 and its themes"),
    Library(("tupadr3/plantuml-icon-font-sprites",), "tupadr3",
            rf"/(?:icons/)?(?P<path>(?:{_ICON_SETS})/[\w.-]+|common)\.puml$", note="icon-font sprites 3.0.0"),
    Library(("awslabs/aws-icons-for-plantuml",), _awslib, r"/dist/(?P<path>.+)\.puml$",
            note="AWS icons 20.0 (tags v15 and later, and branches), 14.0 (v11 to v14), 10.0 (v10 and before)"),
    Library(("plantuml-stdlib/azure-plantuml", "ricardoniepel/azure-plantuml"), "azure",
            r"/dist/(?P<path>.+)\.puml$", note="Azure icons 2.2.0"),
    Library(("dcasati/kubernetes-plantuml",), "k8s",
            r"/dist/(?:kubernetes_)?(?P<path>Common|Simplified|OSS/[\w.-]+)\.puml$",
            note="Kubernetes icons 1.0.0 (kubernetes_Context and kubernetes_Container are not bundled)"),
    Library(("crashedmind/plantuml-icons-gcp",), "gcp", r"/dist/(?P<path>.+)\.puml$", note="GCP icons 6.0.0"),
    Library(("roemer/plantuml-office",), "office", r"/office2014/(?P<path>.+)\.puml$", note="Office icons"),
    Library(("crashedmind/plantuml-opensecurityarchitecture2-icons",), "osa2", r"^[^/]+/(?P<path>.+)\.puml$",
            note="Open Security Architecture icons 2"),
    Library(("crashedmind/plantuml-opensecurityarchitecture-icons",), "osa",
            r"^[^/]+/(?:dist/)?(?P<path>.+)\.puml$", note="Open Security Architecture icons"),
    Library(("crashedmind/plantuml-elastic-icons",), "elastic", r"^[^/]+/(?:dist/)?(?P<path>.+)\.puml$",
            note="Elastic icons (the bundled names use `_`: elastic/elasticsearch)"),
    Library(("plantuml-stdlib/archimate-plantuml", "ebbypeter/archimate-plantuml"), "archimate",
            r"/(?P<path>Archimate\w*|themes/puml-theme-[\w.-]+)\.puml$", r"/(?P<path>themes)/?$",
            "ArchiMate 3.2.2 and its themes"),
    Library(("plantuml-stdlib/eip-plantuml",), "eip", r"/(?P<path>EIP-PlantUML)\.puml$", note="EIP 1.0.0"),
    Library(("plantuml-stdlib/gilbarbara-plantuml-sprites",), "logos", r"/(?P<path>[\w.-]+)\.puml$",
            note="gilbarbara logos"),
    Library(("plantuml-stdlib/cicon-plantuml-sprites",), "cloudinsight", r"/(?P<path>[\w.-]+)\.puml$",
            note="cloudinsight icons"),
    Library(("cloudogu/plantuml-cloudogu-sprites",), "cloudogu",
            r"/(?P<path>common|(?:dogus|tools)/[\w.-]+)\.puml$", note="cloudogu icons"),
    Library(("johthor/domainstory-plantuml",), "domainStory", r"/(?P<path>domainStory)\.puml$",
            note="DomainStory 0.4.0"),
)
# plantuml/plantuml-stdlib holds every library under its stdlib folder name.
_STDLIB_REPO = "plantuml/plantuml-stdlib"
_STDLIB_FILE = re.compile(r"^[^/]+/(?:stdlib/)?(?P<library>[\w.-]+)/(?P<path>.+)\.puml$")
_STDLIB_FOLDER = re.compile(r"^[^/]+/(?:stdlib/)?(?P<library>[\w.-]+)/(?P<path>themes)/?$")


def bundled(url, folder=False):
    """The stdlib name (`C4/C4_Container`, or the folder `C4/themes` when `folder`) of a URL of a library
    the jar bundles, or None."""
    url = url.strip()
    found = _GITHUB.match(url) if len(url) <= MAX_URL_CHARS else None
    if not found:
        return None
    repo, rest = (found.group("raw") or found.group("page")).lower(), found.group("rest")
    if repo == _STDLIB_REPO:
        matched = (_STDLIB_FOLDER if folder else _STDLIB_FILE).match(rest)
        if matched and matched.group("library").lower() in BUNDLED:
            return f"{matched.group('library')}/{matched.group('path')}"
        return None
    for library in LIBRARIES:
        pattern = library.folders if folder else library.files
        if repo in library.repos and pattern and (matched := re.search(pattern, rest)):
            return f"{library.library_of(matched)}/{matched.group('path')}"
    return None


@dataclass(frozen=True)
class Directive:
    """An include (or `!theme ... from`, `!import`) of the source: its 1-based line, kind, the argument
    as written and as PlantUML would read it (defines and literal variables substituted)."""

    line: int
    kind: str
    written: str
    resolved: str


def _substitute(text, names):
    """`text` with the names PlantUML would replace (defines, variables) replaced, a few rounds deep;
    None when it grows past MAX_URL_CHARS (defines that double each other)."""
    for _round in range(3):
        if len(text) > MAX_URL_CHARS:
            return None
        replaced = _NAME.sub(lambda found: names.get(found.group(0), found.group(0)), text)
        if replaced == text:
            break
        text = replaced
    return text if len(text) <= MAX_URL_CHARS else None


def _directives(lines):
    """(index, match, Directive) of each include, theme and import line, in order, tracking simple
    defines and literal variables as the preprocessor meets them."""
    names = {}
    for index, text in enumerate(lines):
        if "!" not in text:
            continue
        if named := _DEFINE.match(text) or _ASSIGN.match(text):
            value = _substitute(named.group("value").strip(), names)
            if value is None:
                names.pop(named.group("name"), None)
            else:
                names[named.group("name")] = value
            continue
        if undefined := _UNDEF.match(text):
            names.pop(undefined.group("name"), None)
            continue
        found, kind = _INCLUDE.match(text), None
        if found:
            kind = found.group("kind")
        elif found := _THEME.match(text):
            kind = "theme"
        if kind:
            written = found.group("arg").strip()
            resolved = _substitute(written, names)
            yield index, found, Directive(index + 1, kind, written, written if resolved is None else resolved)


def _mapped(directive):
    """The line PlantUML reads for a directive naming a bundled library's URL, or None."""
    if directive.kind == "theme":
        target = bundled(directive.resolved, folder=True)
        return f"<{target}>" if target else None
    if directive.kind == "import":
        return None
    parts = _SUBPART.match(directive.resolved) if len(directive.resolved) <= MAX_URL_CHARS else None
    target = bundled(parts.group("url")) if parts else None
    return f"<{target}>{parts.group('part') or ''}" if target else None


def map_includes(source):
    """`source` with every include of a bundled library's URL naming the bundled copy instead, line for
    line; the source itself when there is none."""
    if "http" not in source:
        return source
    lines = source.split("\n")
    changed = False
    for index, found, directive in _directives(lines):
        if directive.resolved.startswith("<"):
            continue
        if (target := _mapped(directive)) is None:
            continue
        if directive.kind == "theme":
            lines[index] = found.group("head") + target
        else:  # !includeurl takes a URL only: the bundled copy is an !include
            kind = "include" if directive.kind == "includeurl" else directive.kind
            lines[index] = f"{found.group('head')}{kind} {target}"
        changed = True
    return "\n".join(lines) if changed else source


def named_on(source, line):
    """What the include, theme or import directive on `line` (1-based) names, as PlantUML reads it, or None."""
    for _index, _found, directive in _directives(source.split("\n")[:line]):
        if directive.line == line:
            return shortened(directive.resolved)
    return None


def first_unreadable(source, kinds):
    """(line, target) of the first directive of one of `kinds` that names neither the stdlib nor a bundled
    library's URL, or None."""
    for _index, _found, directive in _directives(source.split("\n")):
        if directive.kind in kinds and not directive.resolved.startswith("<") and _mapped(directive) is None:
            return directive.line, shortened(directive.resolved)
    return None


