"""Placeholder for diagram search: the search branch replaces this module with the real one.

`find(user, text, *, workspace_id=None, project_id=None, diagram_type=None, limit=20, cursor=None)` answers
{"items": [...], "next_cursor": ...} there; here it only keeps the MCP tool that calls it importable.
"""


def find(user, text, *, workspace_id=None, project_id=None, diagram_type=None, limit=20, cursor=None):
    raise NotImplementedError("diagram search comes with the search branch")
