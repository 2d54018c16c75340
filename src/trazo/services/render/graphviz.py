"""Graphviz as a local engine: `dot -Tsvg` from the Debian package graphviz (docs/rendering.md, "Engines").

dot reads the source on stdin; the bare environment's SERVER_NAME puts it in its web-server mode, where it
reads images only from an empty directory, so a source cannot pull in local files (engines.bare_environment).
"""
import functools

from .engines import Engine, EngineMissing, executable, first_version, native_limits, probe, register


def _command(_config):
    dot = executable("dot")
    if not dot:
        raise EngineMissing("dot is not on PATH (Debian package graphviz)")
    return [dot, "-Tsvg"]


@functools.cache
def _version(dot):
    return first_version(probe([dot, "-V"]))


def _rejects_source(code, stderr):
    """dot reports problems with the input as "Error: ..." and exit status 1."""
    return code == 1 and "Error:" in stderr


GRAPHVIZ = register(Engine("graphviz", ("graphviz",), _command, lambda config: _version(_command(config)[0]),
                           native_limits, _rejects_source))
