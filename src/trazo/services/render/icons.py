"""D2 icons given as http(s) URLs, fetched by the server and embedded in the drawing (docs/rendering.md,
"Icons"; docs/security.md, "Outbound calls").

D2 runs with `--bundle=false`, so an icon URL stays a URL in its SVG (`<image href="https://...">`) and
D2 itself fetches nothing (it never reads a file either: services/render/d2.py refuses icons that are not
http(s) URLs before it runs). `embed` then takes each distinct URL of the SVG, at most MAX_ICONS per
drawing in the order they appear, and fetches it through the outbound guard (services/outbound.py):
public addresses only, unless RENDER_ICON_ALLOWED_PRIVATE_HOSTS names the host; redirects not followed;
every icon of the drawing under one deadline, the end of the render's RENDER_TIMEOUT; at most
MAX_ICON_BYTES each, and the drawing no larger than RENDER_MAX_SVG_BYTES with its icons. The bytes must be
a picture, recognised by their content, whatever the Content-Type says: PNG, JPEG, GIF, WebP, or SVG,
which is cleaned by the sanitizer first. The picture goes into the SVG as a `data:` URL, as
`d2 --bundle` would put it. An icon that cannot be had is removed from the drawing (the shape stays,
without it) and noted (services/render/notices.py) with the reason: unreachable, timeout, http_error
(with the status), too_large, not_an_image or too_many_icons.

Icons are cached by URL: in the render cache's Redis when REDIS_URL is set, shared by the workers, and
in a bounded cache in this process (MEMORY_BYTES); a picture for PICTURE_SECONDS, a failure for
FAILURE_SECONDS. The caches are read before the fetches start and written after they end, never during
one; the fetches of a drawing run on up to FETCHERS threads of their own.
"""
import base64
import hashlib
import html
import logging
import time
from concurrent.futures import ThreadPoolExecutor, wait

import redis
import requests

from .. import outbound
from ..redis_clients import redis_client
from .cache import LruCache
from .errors import RendererFailed
from .notices import add as add_notice
from .sanitize import clean_svg

log = logging.getLogger(__name__)

MAX_ICONS = 20
MAX_ICON_BYTES = 512 * 1024
FETCHERS = 4
PICTURE_SECONDS = 24 * 3600
FAILURE_SECONDS = 60
MEMORY_BYTES = 16 * 1024 * 1024
REDIS_PREFIX = "trazo-icon:v1:"
# How long after the deadline a fetch that is still stuck where no socket can be shut (a slow name
# lookup) is waited for before the drawing goes on without it.
GRACE_SECONDS = 0.5

_IMAGE = '<image href="'
_REMOTE = ("http://", "https://")
_PICTURE, _FAILED = "picture:", "failed:"
_session = outbound.session()
_memory = LruCache(MEMORY_BYTES)


def embed(svg, config, ends, max_bytes):
    """D2's `svg` with its http(s) icons embedded as `data:` URLs, by `ends` (a time.monotonic() value);
    the icons it cannot have are removed and noted."""
    pictures = _pictures(svg)
    if not pictures:
        return svg
    urls = list(dict.fromkeys(url for *_positions, url in pictures))
    wanted = urls[:MAX_ICONS]
    redis_url = config.get("REDIS_URL")
    entries = {url: _remembered(url, redis_url) for url in wanted}
    missing = [url for url in wanted if entries[url] is None]
    if missing:
        fetched = _fetch_all(missing, ends, tuple(config.get("RENDER_ICON_ALLOWED_PRIVATE_HOSTS") or ()))
        for url in missing:
            entry = fetched.get(url)
            entries[url] = entry or _FAILED + "timeout"
            if entry is not None:
                _remember(url, entry, redis_url)
    entries.update({url: _FAILED + "too_many_icons" for url in urls[MAX_ICONS:]})
    return _rebuilt(svg, pictures, entries, max_bytes - len(svg))


def forget(redis_url=None):
    """Forget every cached icon (tests, and operators after an icon changed upstream)."""
    _memory.clear()
    client = redis_client(redis_url)
    if client is not None:
        for key in client.scan_iter(match=REDIS_PREFIX + "*", count=500):
            client.delete(key)


def _pictures(svg):
    """(element start, element end, href start, href end, URL) of each `<image>` of D2's SVG whose href
    is an http(s) URL (D2 writes `<image href="..." x=... />`)."""
    found, at = [], 0
    while (start := svg.find(_IMAGE, at)) >= 0:
        value_start = start + len(_IMAGE)
        value_end = svg.find('"', value_start)
        end = svg.find(">", value_end) if value_end >= 0 else -1
        if end < 0:
            break
        url = html.unescape(svg[value_start:value_end])
        if url.lower().startswith(_REMOTE):
            found.append((start, end + 1, value_start, value_end, url))
        at = end + 1
    return found


def _rebuilt(svg, pictures, entries, budget):
    """The SVG with each picture's href replaced by its data: URL, or the element removed; each URL left
    out is noted once."""
    out, at, noted = [], 0, set()
    for start, end, value_start, value_end, url in pictures:
        entry = entries[url]
        if entry.startswith(_PICTURE) and len(entry) - len(_PICTURE) <= budget:
            data_url = entry[len(_PICTURE):]
            budget -= len(data_url)
            out.append(svg[at:value_start] + data_url + svg[value_end:end])
        else:
            out.append(svg[at:start])
            if url not in noted:
                noted.add(url)
                add_notice(_notice(url, entry if entry.startswith(_FAILED) else _FAILED + "too_large"))
        at = end
    out.append(svg[at:])
    return "".join(out)


def _notice(url, entry):
    reason, _, status = entry[len(_FAILED):].partition(":")
    notice = {"icon": url, "reason": reason}
    if status:
        notice["status"] = int(status)
    return notice


# -- fetching ------------------------------------------------------------------------------------

def _fetch_all(urls, ends, allowed):
    """{url: cache entry} of the fetches that ended by `ends` (plus a short grace); the others are left
    behind (their sockets are shut at the deadline; see GRACE_SECONDS)."""
    pool = ThreadPoolExecutor(max_workers=min(FETCHERS, len(urls)), thread_name_prefix="trazo-icon")
    try:
        futures = {pool.submit(_fetch, url, ends, allowed): url for url in urls}
        done, _late = wait(futures, timeout=max(0.0, ends - time.monotonic()) + GRACE_SECONDS)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    results = {}
    for future in done:
        try:
            entry = future.result()
        except Exception:  # noqa: BLE001 - a fetch that broke is an icon left out, never a failed drawing
            log.exception("icon fetch broke")
            entry = _FAILED + "unreachable"
        if entry is not None:
            results[futures[future]] = entry
    return results


def _fetch(url, ends, allowed):
    """The cache entry of one icon: "picture:<data URL>" or "failed:<reason>"; None when its time was up
    before it started (nothing worth remembering)."""
    seconds = ends - time.monotonic()
    if seconds <= 0:
        return None
    try:
        answer = outbound.request(_session, "GET", url, integration="render", seconds=seconds,
                                  max_bytes=MAX_ICON_BYTES, public_only=True, allowed_private=allowed,
                                  headers={"Accept": "image/*"})
    except outbound.ResponseTooLarge:
        return _FAILED + "too_large"
    except requests.Timeout:  # outbound.DeadlineExceeded included
        return _FAILED + "timeout"
    except Exception as exc:  # noqa: BLE001 - a refused address, a closed port, TLS, a bad URL: all alike
        log.info("icon fetch failed: %s", type(exc).__name__)
        return _FAILED + "unreachable"
    if answer.status_code != 200:
        return f"{_FAILED}http_error:{answer.status_code}"
    picture = data_url(answer.content)
    return _PICTURE + picture if picture else _FAILED + "not_an_image"


def data_url(data):
    """`data` as a data: URL when its bytes are a PNG, JPEG, GIF, WebP or SVG picture (the SVG cleaned by
    the sanitizer), else None."""
    kind = _raster_type(data)
    if kind is None:
        if b"<svg" not in data:
            return None
        try:
            data = clean_svg(data.decode("utf-8-sig")).encode("utf-8")
        except (UnicodeDecodeError, RendererFailed):
            return None
        kind = "image/svg+xml"
    return f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}"


def _raster_type(data):
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


# -- cache ---------------------------------------------------------------------------------------

def _key(url):
    return REDIS_PREFIX + hashlib.sha256(url.encode("utf-8", "surrogatepass")).hexdigest()


def _remembered(url, redis_url):
    """The cached entry of `url`, or None."""
    key = _key(url)
    stored = _memory.get(key)
    if stored is not None:
        expires, _, entry = stored.partition(" ")
        if float(expires) > time.time():
            return entry
    client = redis_client(redis_url)
    if client is None:
        return None
    try:
        stored = client.get(key)
    except redis.RedisError:
        log.warning("icon cache: Redis unavailable for reads", exc_info=True)
        return None
    if stored is None:
        return None
    entry = stored.decode("utf-8")
    _memory.put(key, f"{time.time() + _seconds(entry)} {entry}")
    return entry


def _remember(url, entry, redis_url):
    key, seconds = _key(url), _seconds(entry)
    _memory.put(key, f"{time.time() + seconds} {entry}")
    client = redis_client(redis_url)
    if client is not None:
        try:
            client.set(key, entry.encode("utf-8"), ex=seconds)
        except redis.RedisError:
            log.warning("icon cache: Redis unavailable for writes", exc_info=True)


def _seconds(entry):
    return PICTURE_SECONDS if entry.startswith(_PICTURE) else FAILURE_SECONDS
