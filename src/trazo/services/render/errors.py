"""What can go wrong while rendering, independent of the backend; the API maps these to statuses."""


class RenderError(Exception):
    """A diagram could not be rendered."""


class DiagramSyntaxError(RenderError):
    """The renderer rejected the source; `line` is the 1-based line it named, when it named one."""

    def __init__(self, message, line=None):
        super().__init__(message)
        self.message = message
        self.line = line


class RendererFailed(RenderError):
    """The renderer (Kroki or a local tool) failed for a reason other than the source."""


class RendererTimeout(RenderError):
    """The renderer did not answer within RENDER_TIMEOUT."""


class RendererBusy(RenderError):
    """Every local rendering slot stayed taken for the whole timeout."""


class RendererLimitExceeded(RenderError):
    """The source asks for more than a render may use: too large a graph, or the tool ran out of its
    CPU time or memory."""
