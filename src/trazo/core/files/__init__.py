"""The files API's rules (docs/files-api.md): a project's diagrams addressed by path as a repository holds them.
paths.py parses and checks paths, index.py reads a project's diagrams as files, writes.py creates or updates one
by path. The HTTP side (ETags, raw bodies, the sync) is api/files'; the MCP tools (api/mcp) use the same rules."""
