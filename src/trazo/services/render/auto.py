"""RENDER_BACKEND=auto, the default: each type drawn by this host's engine when it has one, else by Kroki
when KROKI_URL is set (nothing leaves the host unless the operator says so), else refused with 503.

A local engine that fails on a source is not retried through Kroki: the answer says what that engine said."""
from .base import NEEDS_KROKI
from .kroki import KROKI_TYPES


class AutoRenderer:
    name = "auto"

    def __init__(self, local, kroki=None):
        self.local = local
        self.kroki = kroki
        self._local_types = local.supported_types()

    def _backend(self, diagram_type):
        return self.local if diagram_type in self._local_types else self.kroki

    def backend_for(self, diagram_type):
        """The name of the backend that draws `diagram_type`: "local", "kroki", or None (nobody here)."""
        backend = self._backend(diagram_type)
        return backend.name if backend else None

    def supported_types(self):
        if self.kroki is None:
            return self._local_types
        return self._local_types | self.kroki.supported_types()

    def refused_types(self):
        """Without Kroki, every type Kroki would draw that no engine here draws (the ones the local backend
        refuses by name included) needs a Kroki server; with Kroki, none is refused."""
        if self.kroki is not None:
            return {}
        known = KROKI_TYPES | set(self.local.refused_types())
        return {kind: NEEDS_KROKI for kind in known - self._local_types}

    def render_svg(self, diagram_type, source):
        return self._backend(diagram_type).render_svg(diagram_type, source)

    def drawer(self, diagram_type):
        backend = self._backend(diagram_type)
        return backend.drawer(diagram_type) if backend else self.name

    def engine_version(self, diagram_type):
        backend = self._backend(diagram_type)
        return backend.engine_version(diagram_type) if backend else None

    def engines(self):
        rows = {row["type"]: row for row in self.local.engines()}
        if self.kroki is not None:
            for row in self.kroki.engines():
                rows.setdefault(row["type"], row)
        return [rows[kind] for kind in sorted(rows)]
