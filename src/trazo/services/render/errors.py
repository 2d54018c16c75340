"""What can go wrong while rendering, independent of the backend; the API maps these to statuses."""


class RenderError(Exception):
    """A diagram could not be rendered."""


class DiagramSyntaxError(RenderError):
    """The renderer rejected the source; `line` is the 1-based line it named, when it named one."""

    def __init__(self, message, line=None):
        super().__init__(message)
        self.message = message
        self.line = line


class UnreadableInclude(DiagramSyntaxError):
    """The source includes a URL or a file the engine may not read while drawing (PlantUML's `!include`,
    `!import`, `!theme ... from` of anything but its bundled libraries: services/render/plantuml.py);
    `target` is what the directive names, `line` its 1-based line when known."""

    def __init__(self, target, line=None):
        super().__init__(f"cannot include {target}", line)
        self.target = target


class ReadsFiles(DiagramSyntaxError):
    """The source asks the engine to read a file from the host's disk (a D2 import, a D2 icon given as a
    path: services/render/d2.py); `kind` is IMPORT or ICON, `target` what the source names, `line` its
    1-based line."""

    IMPORT = "import"
    ICON = "icon"

    def __init__(self, kind, target, line):
        super().__init__(f"reads the file {target} ({kind})", line)
        self.kind = kind
        self.target = target


class RendererFailed(RenderError):
    """The renderer (Kroki or a local tool) failed for a reason other than the source."""


class RendererTimeout(RenderError):
    """The renderer did not answer within RENDER_TIMEOUT."""


class RendererBusy(RenderError):
    """Every slot of a pool stayed taken for the whole timeout, or (`own_share`) the client already holds
    or waits for its share of them (services/render/fair.py); `retry_after`: seconds to wait."""

    def __init__(self, retry_after=5, own_share=False):
        super().__init__(retry_after, own_share)
        self.retry_after = retry_after
        self.own_share = own_share


class RendererLimitExceeded(RenderError):
    """The source asks for more than a render may use: too large a graph, or the tool ran out of its
    CPU time or memory."""


class ImageTooLarge(RenderError):
    """The SVG needs more pixels than a PNG may have (RENDER_MAX_PNG_PIXELS; services/render/canvas.py)."""

    def __init__(self, pixels, limit):
        super().__init__(pixels, limit)
        self.pixels = pixels
        self.limit = limit
