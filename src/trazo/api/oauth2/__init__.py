"""Trazo as an OAuth 2.1 authorization server for its MCP endpoint (docs/oauth-server.md), on authlib's."""
