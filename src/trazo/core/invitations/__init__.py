"""Ways into a team workspace (docs/teams.md, "Invitations and invite links"): invitations by e-mail and
join links; both end in core/workspaces/members.add_member."""
