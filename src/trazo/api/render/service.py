"""The render route's service: the rendering itself is core/rendering.py, shared with the image links."""
from ...core.rendering import render

__all__ = ["render"]
