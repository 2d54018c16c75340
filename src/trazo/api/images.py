"""The HTTP answer of an image link (docs/image-links.md): its caching and security headers, a 304 when
the caller holds the current ETag, else the image core/content/images.py draws."""
from flask import Response
from werkzeug.http import parse_etags

from ..core.content.images import draw, image_etag
from ..core.content.revalidations import recent_etags

FORMATS = {"svg": "image/svg+xml", "png": "image/png"}
# The SVG is sanitized already; should anything slip through, a browser opening it still runs and
# fetches nothing (the render route's answer too).
SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:"
MAX_AGE_SECONDS = 60


def image_headers(etag, public):
    return {"ETag": etag, "Cache-Control": f"{'public' if public else 'private'}, max-age={MAX_AGE_SECONDS}",
            "Cross-Origin-Resource-Policy": "cross-origin", "Content-Security-Policy": SVG_POLICY}


def image_response(image, if_none_match, public, revalidation_key=None):
    """304 when the caller holds the current image, else the image; `public` says whether shared caches
    (a CDN, GitHub's image proxy) may keep it. With `revalidation_key` (a public link's), the ETag checked
    here answers that link's revalidations for a few seconds without reaching Flask or the database."""
    etag = image_etag(image)
    headers = image_headers(etag, public)
    if revalidation_key is not None:
        recent_etags().remember(revalidation_key, etag)
    held = parse_etags(if_none_match) if if_none_match else None
    if held is not None and (held.star_tag or held.contains_weak(etag.strip('"'))):
        return Response(status=304, headers=headers)
    body, complete = draw(image, etag)
    if not complete:  # drawn without a D2 icon it could not fetch: never kept nor revalidated as the image
        headers = {**headers, "Cache-Control": "no-store"}
        del headers["ETag"]
    return Response(body, mimetype=FORMATS[image.fmt], headers=headers)
