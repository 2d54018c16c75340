"""What every MCP tool shares: who calls (the personal access token and its user), what a tool answers, and the
audit entry of a write (docs/mcp.md, "Writes")."""
from dataclasses import dataclass, field

from flask_babel import gettext as _

from ...core.accounts import audit
from ...errors import Forbidden
from ...ratelimit import spend

WRITE_EVENT = "mcp_write"


@dataclass(frozen=True)
class Caller:
    """The user a request's personal access token belongs to, with what the token allows, read once when the
    request is authenticated (plain values: a drawing gives the database session back, core/content/rendering)."""

    user: object
    user_id: str
    token_id: str
    token_prefix: str
    can_write: bool
    oauth: bool = False  # an OAuth access token (token_id: its grant, the connected app; docs/oauth-server.md)

    def ensure_can_write(self):
        """A tool that changes something needs a token with the write scope."""
        if self.oauth and not self.can_write:
            raise Forbidden(_("This application was allowed to read only: this tool needs the write scope."))
        if not self.can_write:
            raise Forbidden(_("This personal access token can only read: this tool needs the write scope."))

    def spend(self, limit):
        """Spend one of the per-user limit RATE_LIMIT_<limit> (429 once spent), as the route the tool stands for."""
        spend(limit, f"user:{self.user_id}")

    def audited(self, tool, **details):
        """The security audit log's entry of a write: the tool, the token (id and prefix, never the secret) and
        what changed. Call it after the write's commit."""
        audit.record(WRITE_EVENT, user=self.user, details={"tool": tool, "token_id": self.token_id,
                                                           "token_prefix": self.token_prefix, **details})


@dataclass
class Outcome:
    """A tool's answer: `structured` (its structuredContent) and, when the text of that JSON is not the best
    content for a model (an image, the SVG itself), the content blocks to send instead."""

    structured: dict
    content: list = field(default_factory=list)


def iso(moment):
    """A timestamp as ISO 8601 text (None stays None)."""
    return moment.isoformat() if moment is not None else None
