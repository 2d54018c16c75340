"""The Model Context Protocol server: AI clients reach the content through tools, with a personal access token."""
