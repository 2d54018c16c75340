"""Invitation and invite-link tokens are bearer credentials: a logged path (the access log, error reports)
keeps only their first characters, as a share token's (logs.loggable_path)."""
import pytest

from trazo.logs import loggable_path, loggable_url

TOKEN = "Zk3q9VtS1m0rXe4bN7cLh2WpYd8Ga5Uf6Jo0Ri3Kq1E"  # as secrets.token_urlsafe(32) makes them


@pytest.mark.parametrize(("path", "shown"), [
    (f"/api/v1/invitations/{TOKEN}", "/api/v1/invitations/Zk3q9V\u2026"),
    (f"/api/v1/invitations/{TOKEN}/accept", "/api/v1/invitations/Zk3q9V\u2026/accept"),
    (f"/api/v1/invite-links/{TOKEN}/join", "/api/v1/invite-links/Zk3q9V\u2026/join"),
    (f"/api/v1//invite-links//{TOKEN}/join", "/api/v1//invite-links//Zk3q9V\u2026/join"),
])
def test_a_logged_token_path_keeps_only_the_tokens_first_characters(path, shown):
    assert loggable_path(path) == shown
    assert loggable_url(f"http://api.example{path}?x=1") == f"http://api.example{shown}"
    assert TOKEN[:7] not in loggable_path(path)

