"""The 304 of a public image link's revalidation, answered below Flask (docs/image-links.md)."""
import re

from werkzeug.http import parse_etags

from ..api import images
from ..core.content import revalidations
from .headers import security_headers


def answer_image_revalidations(wsgi_app, app):
    """Answer 304 below Flask to a revalidation of a public image link whose ETag this process checked
    against the database less than REVALIDATION_SECONDS ago and that no worker has ended since
    (core/content/revalidations.py: one read of the limiter storage): READMEs and wikis revalidate an embedded image
    on every page view, and such an answer has nothing to compute. Anything else (no If-None-Match, another
    ETag, an unknown or stale entry, an ended link, an Origin header, another query) goes through Flask,
    which checks the link and the diagram again."""
    config = app.config
    path = re.compile(rf"^{re.escape(config['API_V1_PREFIX'])}/shared/([^/]{{1,64}})/image\.(svg|png)$")
    extra = security_headers(config)
    remembered = revalidations.recent_etags(app)

    def revalidation_or_app(environ, start_response):
        held = environ.get("HTTP_IF_NONE_MATCH")
        if held and environ.get("REQUEST_METHOD") in ("GET", "HEAD") and "HTTP_ORIGIN" not in environ:
            found = path.match(environ.get("PATH_INFO", ""))
            theme = {"": "light", "theme=light": "light", "theme=dark": "dark"}.get(environ.get("QUERY_STRING", ""))
            if found and theme:
                etag = remembered.current((found.group(1), found.group(2), theme))
                if (etag and parse_etags(held).contains_weak(etag.strip('"'))
                        and revalidations.still_answerable(app, found.group(1))):
                    own = images.image_headers(etag, public=True)
                    start_response("304 Not Modified",
                                   [*own.items(), *[(name, value) for name, value in extra if name not in own]])
                    return [b""]
        return wsgi_app(environ, start_response)

    return revalidation_or_app
