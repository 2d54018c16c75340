"""Invitations by e-mail and invite links to team workspaces (docs/teams.md, "Invitations and invite links")."""
