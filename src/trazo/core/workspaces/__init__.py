"""Workspaces, their members and roles (docs/teams.md): the personal workspace of each account, team
workspaces, memberships, invitations and the workspace audit log."""
