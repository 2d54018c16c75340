"""Public access to a shared diagram by token: info, the diagram, and the access-code check."""
import math
from collections import namedtuple
from dataclasses import dataclass

from flask_babel import gettext as _
from sqlalchemy import bindparam, select

from ...core.accounts.passwords import verify_password
from ...core.content.images import ImageRequest
from ...core.content.revalidations import may_remember
from ...errors import AppError, Forbidden, NotFound, TooManyRequests
from ...extensions import db
from ...models import User
from ...models.content import Diagram
from ...models.sharing import SharedLink
from ...ratelimit import Counter
from ..images import image_response
from . import access_log
from .share_secrets import SHARE_GRANT_SECONDS, issue_share_grant, share_grant_admits

MAX_CODE_FAILURES = 5
CODE_FAILURE_WINDOW_SECONDS = 15 * 60
MAX_TOKEN_CHARS = 64


class Gone(AppError):
    status = 410


@dataclass(frozen=True)
class LinkInfo:
    """What a visitor learns before opening a link (SharedLinkInfoSchema)."""

    link: SharedLink
    diagram: Diagram


@dataclass(frozen=True)
class SharedDiagram:
    """A diagram as its shared link shows it (SharedDiagramSchema); after a code check, with the access
    token that spares the next visits the code (VerifiedDiagramSchema). Taken from the visit's one read
    before the visit's log commits, so the answer reads nothing again."""

    title: str
    description: str | None
    content: str | None  # the source to copy, when the link allows copying
    diagram_type: str
    rendered_content: str  # the viewer draws from the source, so it always travels here
    config: dict
    allow_copy_code: bool
    owner_name: str | None  # a public page never shows any part of the e-mail
    access_token: str | None = None
    access_token_expires_in: int | None = None


LINKS, DIAGRAMS, USERS = SharedLink.__table__, Diagram.__table__, User.__table__
# A visit's one read, a Core statement: the active link of a token, what its answer shows of the diagram, and
# its maker's full name (None once their account is gone).
SHOWN_COLUMNS = ("title", "description", "content", "diagram_type", "config")
VISIT = (select(*LINKS.c, *(DIAGRAMS.c[name] for name in SHOWN_COLUMNS), USERS.c.full_name)
         .join(DIAGRAMS, DIAGRAMS.c.id == LINKS.c.diagram_id).outerjoin(USERS, USERS.c.id == LINKS.c.user_id)
         .where(LINKS.c.token == bindparam("token"), LINKS.c.is_active))
LINK_COLUMNS = len(LINKS.c)


class VisitedLink(namedtuple("VisitedLink", LINKS.c.keys())):
    """A link as a visit reads it: its columns (read-only) with the SharedLink's checks; no ORM object to
    make for a read."""

    __slots__ = ()
    is_protected = SharedLink.is_protected
    is_expired = SharedLink.is_expired


@dataclass(frozen=True)
class ShownDiagram:
    """What a visit reads of a link's diagram (SHOWN_COLUMNS)."""

    title: str
    description: str | None
    content: str | None
    diagram_type: str
    config: dict | None


def _active_link(token):
    if not token or len(token) > MAX_TOKEN_CHARS:
        return None
    return db.session.scalar(select(SharedLink).where(SharedLink.token == token, SharedLink.is_active))


def _visitable(token):
    """(the active, unexpired link of `token` (a VisitedLink), what its answer shows of
    the diagram (ShownDiagram), its maker's full name); every refusal is logged."""
    found = None
    if token and len(token) <= MAX_TOKEN_CHARS:
        found = db.session.connection().execute(VISIT, {"token": token}).first()
    if found is None:
        access_log.record(None, "not_found")
        raise NotFound(_("Shared link not found"))
    link = VisitedLink(*found[:LINK_COLUMNS])
    diagram, owner_name = ShownDiagram(*found[LINK_COLUMNS:-1]), found[-1]
    if link.is_expired:
        access_log.record(link, "expired")
        raise Gone(_("This link has expired"))
    return link, diagram, owner_name


def _shown(link, diagram, owner_name, **access):
    return SharedDiagram(title=diagram.title, description=diagram.description or None,
                         content=diagram.content if link.allow_copy_code else None,
                         diagram_type=diagram.diagram_type, rendered_content=diagram.content,
                         config=diagram.config or {}, allow_copy_code=link.allow_copy_code,
                         owner_name=owner_name or None, **access)


def link_info(token):
    """Whether the link needs a code, whether it expired, and the diagram's title."""
    link = _active_link(token)
    if link is None:
        raise NotFound(_("Shared link not found"))
    return LinkInfo(link, db.session.get(Diagram, link.diagram_id))


def shared_diagram(token, grant=None):
    """The diagram; a protected link also wants the share grant its verify call handed out."""
    link, diagram, owner_name = _visitable(token)
    if link.is_protected and not share_grant_admits(link, grant):
        raise Forbidden(_("This link requires an access code"))
    shown = _shown(link, diagram, owner_name)
    access_log.record(link, "success")
    return shown


def _failures(link):
    return Counter("shared-code-failures", f"{link.id}:{access_log.address_hash()}")


def verify_code(token, code):
    """Check the code (5 wrong ones per 15 minutes per address and link) and hand out the diagram
    with a one-hour access token for this link."""
    link, diagram, owner_name = _visitable(token)
    if link.is_protected:
        failures = _failures(link)
        # Counting before checking keeps the limit exact under concurrent guesses.
        attempt = failures.hit(CODE_FAILURE_WINDOW_SECONDS)
        if attempt > MAX_CODE_FAILURES:
            access_log.record(link, "blocked")
            seconds = failures.seconds_left()
            raise TooManyRequests(seconds, _("Too many incorrect codes. Try again in %(minutes)s minutes.",
                                             minutes=max(1, math.ceil(seconds / 60))))
        if not verify_password(link.access_code_hash, code):
            access_log.record(link, "invalid_code")
            raise Forbidden(_("Incorrect access code. Attempts remaining: %(remaining)s",
                              remaining=MAX_CODE_FAILURES - attempt))
        failures.clear()
    shown = _shown(link, diagram, owner_name, access_token=issue_share_grant(link),
                   access_token_expires_in=SHARE_GRANT_SECONDS)
    access_log.record(link, "success")
    return shown


def shared_image(token, fmt, theme, if_none_match):
    """The diagram of a public link as an image. A link with an access code never serves one: an image URL
    carries no credential. Nothing is logged (a README would log every view); a refusal writes nothing.
    Whether the ETag may answer revalidations below Flask is read before the link (core/content/revalidations.py)."""
    remember = may_remember(token)
    link = _active_link(token)
    if link is None:
        raise NotFound(_("Shared link not found"))
    if link.is_expired:
        raise Gone(_("This link has expired"))
    if link.is_protected:
        raise Forbidden(_("Links protected by an access code have no image link."))
    diagram = db.session.get(Diagram, link.diagram_id)
    return image_response(ImageRequest(diagram.diagram_type, diagram.content or "", fmt, theme), if_none_match,
                          public=True, revalidation_key=(token, fmt, theme) if remember else None)
