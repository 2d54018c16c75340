"""The attacks on the authorization server, as tests (docs/oauth-server.md, "Security"): PKCE, code reuse,
redirect URIs, audiences, the REST API, refresh token reuse, revocation."""
import threading
from datetime import timedelta

from sqlalchemy import func, select, update

from trazo.extensions import db
from trazo.models.base import utcnow
from trazo.models.oauth_server import OAuth2Code, OAuth2Grant, OAuth2Token
from trazo.models.security import AuditEntry

from ...helpers import NEW_PASSWORD, PASSWORD
from .conftest import REDIRECT, mcp_call, query_of


def test_a_request_without_code_challenge_is_refused_at_the_authorization_endpoint(browser, registered):
    client_id = registered()
    web = browser()
    for overrides in ({"code_challenge": None, "code_challenge_method": None}, {"code_challenge_method": "plain"},
                      {"code_challenge_method": None}):
        answer = query_of(web.open(web.authorize_url(client_id, **overrides)))
        assert answer["error"] == "invalid_request", overrides
        assert answer["state"] == "st4te"


def test_a_wrong_or_missing_verifier_is_refused(browser, registered, user):
    client_id = registered()
    web = browser()
    code = web.code(client_id, user.email)
    wrong = web.exchange(client_id, code, verifier="x" * 64)
    assert wrong.status_code == 400 and wrong.json["error"] == "invalid_grant"
    code = web.code(client_id, user.email)
    missing = web.token(grant_type="authorization_code", code=code, client_id=client_id, redirect_uri=REDIRECT)
    assert missing.status_code == 400 and missing.json["error"] == "invalid_request"


def test_a_reused_code_is_refused_and_revokes_what_it_gave(app, browser, registered, user):
    client_id = registered()
    web = browser()
    code = web.code(client_id, user.email)
    first = web.exchange(client_id, code)
    assert first.status_code == 200
    assert mcp_call(app, first.json["access_token"]).status_code == 200
    again = web.exchange(client_id, code)
    assert again.status_code == 400 and again.json["error"] == "invalid_grant"
    assert mcp_call(app, first.json["access_token"]).status_code == 401
    assert web.refresh(client_id, first.json["refresh_token"]).json["error"] == "invalid_grant"


def test_a_code_is_bound_to_its_client_and_redirect_uri(browser, registered, user):
    client_id, other = registered(), registered()
    web = browser()
    code = web.code(client_id, user.email)
    stolen = web.exchange(other, code)
    assert stolen.status_code == 400 and stolen.json["error"] == "invalid_grant"
    moved = web.exchange(client_id, code, redirect_uri="http://127.0.0.1:5555/elsewhere")
    assert moved.status_code == 400 and moved.json["error"] == "invalid_grant"


def test_an_unregistered_redirect_uri_gets_an_error_page_never_a_redirect(browser, registered):
    client_id = registered()
    web = browser()
    for redirect_uri in ("https://attacker.example/cb", "http://127.0.0.1:5555/callback/../x",
                         "http://localhost:5555/callback", "http://127.0.0.1.attacker.example/callback"):
        page = web.open(web.authorize_url(client_id, redirect_uri=redirect_uri))
        assert page.status_code == 400, redirect_uri
        assert "Location" not in page.headers
        assert page.mimetype == "text/html"
    unknown = web.open(web.authorize_url("no-such-client"))
    assert unknown.status_code == 400 and "Location" not in unknown.headers


def test_a_token_for_another_resource_is_refused(app, browser, registered, user, tokens):
    client_id = registered()
    web = browser()
    answer = query_of(web.open(web.authorize_url(client_id, resource="https://other.example/mcp")))
    assert answer["error"] == "invalid_target"
    _web, _client_id, issued = tokens
    elsewhere = mcp_call(app, issued["access_token"], base_url="http://mcp.elsewhere.test")
    assert elsewhere.status_code == 401
    assert 'error="invalid_token"' in elsewhere.headers["WWW-Authenticate"]


def test_the_rest_api_refuses_the_oauth_token(app, tokens):
    _web, _client_id, issued = tokens
    response = app.test_client().get("/api/v1/users/me", headers={"Authorization": f"Bearer {issued['access_token']}"})
    assert response.status_code == 401
    assert "MCP endpoint only" in response.json["detail"]


def test_refresh_rotates_and_a_reused_refresh_token_revokes_the_family(app, tokens):
    web, client_id, issued = tokens
    rotated = web.refresh(client_id, issued["refresh_token"])
    assert rotated.status_code == 200, rotated.json
    assert rotated.json["refresh_token"] != issued["refresh_token"]
    assert mcp_call(app, rotated.json["access_token"]).status_code == 200
    reused = web.refresh(client_id, issued["refresh_token"])
    assert reused.status_code == 400 and reused.json["error"] == "invalid_grant"
    assert mcp_call(app, rotated.json["access_token"]).status_code == 401
    assert mcp_call(app, issued["access_token"]).status_code == 401
    assert web.refresh(client_id, rotated.json["refresh_token"]).status_code == 400


def test_refresh_may_narrow_but_never_widen_the_scope(browser, registered, user):
    client_id = registered()
    web = browser()
    issued = web.exchange(client_id, web.code(client_id, user.email, scope="read")).json
    wider = web.token(grant_type="refresh_token", refresh_token=issued["refresh_token"], client_id=client_id,
                      scope="read write")
    assert wider.status_code == 400 and wider.json["error"] == "invalid_scope"


def test_a_revoked_access_token_is_refused(app, tokens):
    web, client_id, issued = tokens
    response = web.open("/oauth2/revoke", "POST", data={"token": issued["access_token"], "client_id": client_id,
                                                        "token_type_hint": "access_token"})
    assert response.status_code == 200
    assert mcp_call(app, issued["access_token"]).status_code == 401
    # its refresh token goes with it (RFC 7009 §2.1 allows it): the pair is one row
    assert web.refresh(client_id, issued["refresh_token"]).status_code == 400


def test_revoking_the_refresh_token_ends_the_family(app, tokens):
    web, client_id, issued = tokens
    response = web.open("/oauth2/revoke", "POST", data={"token": issued["refresh_token"], "client_id": client_id})
    assert response.status_code == 200
    assert mcp_call(app, issued["access_token"]).status_code == 401
    assert web.refresh(client_id, issued["refresh_token"]).status_code == 400


def test_revocation_by_another_client_changes_nothing(app, registered, tokens):
    web, _client_id, issued = tokens
    response = web.open("/oauth2/revoke", "POST", data={"token": issued["access_token"], "client_id": registered()})
    assert response.status_code == 200
    assert mcp_call(app, issued["access_token"]).status_code == 200


def test_connected_apps_list_and_disconnect(app, user, tokens):
    _web, client_id, issued = tokens
    listed = user.get("/users/me/connected-apps")
    assert listed.status_code == 200
    [connected] = listed.json
    assert connected["client_id"] == client_id and connected["client_name"] == "Test MCP client"
    assert connected["scopes"] == ["read", "write"] and connected["redirect_hosts"] == ["127.0.0.1:5555"]
    assert user.delete(f"/users/me/connected-apps/{connected['id']}").status_code == 204
    assert mcp_call(app, issued["access_token"]).status_code == 401
    assert user.get("/users/me/connected-apps").json == []
    assert user.delete(f"/users/me/connected-apps/{connected['id']}").status_code == 404


def test_another_user_cannot_disconnect_my_app(other_user, tokens, app):
    _web, _client_id, issued = tokens
    with app.app_context():
        grant_id = db.session.query(OAuth2Grant.id).scalar()
    assert other_user.delete(f"/users/me/connected-apps/{grant_id}").status_code == 404
    assert mcp_call(app, issued["access_token"]).status_code == 200


def test_a_password_change_revokes_every_grant(app, user, tokens):
    _web, _client_id, issued = tokens
    response = user.put("/users/change-password", json={"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert response.status_code == 200, response.json
    assert mcp_call(app, issued["access_token"]).status_code == 401


def test_audit_log_records_consent_issue_and_revocation(app, tokens):
    web, client_id, issued = tokens
    web.open("/oauth2/revoke", "POST", data={"token": issued["refresh_token"], "client_id": client_id})
    with app.app_context():
        events = {entry.event for entry in db.session.query(AuditEntry)}
    assert {"oauth_consent_given", "oauth_token_issued", "oauth_grant_revoked"} <= events


def test_an_unknown_grant_type_and_a_garbage_code_answer_rfc6749_errors(browser, registered):
    client_id = registered()
    web = browser()
    assert web.token(grant_type="password", username="a", password="b", client_id=client_id).json["error"] == \
        "unsupported_grant_type"
    garbage = web.token(grant_type="authorization_code", code="nope", client_id=client_id, redirect_uri=REDIRECT,
                        code_verifier="v" * 50)
    assert garbage.status_code == 400 and garbage.json["error"] == "invalid_grant"


def test_prune_deletes_expired_codes_and_token_pairs(app, tokens):


    with app.app_context():
        db.session.execute(update(OAuth2Code).values(expires_at=utcnow() - timedelta(seconds=1)))
        db.session.execute(update(OAuth2Token).values(refresh_expires_at=utcnow() - timedelta(seconds=1)))
        db.session.commit()
    result = app.test_cli_runner().invoke(args=["prune"])
    assert "oauth2_codes: 1 rows past their expiry deleted" in result.output
    assert "oauth2_tokens: 1 rows past their expiry deleted" in result.output
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(OAuth2Token)) == 0


def test_two_exchanges_of_one_code_at_once_give_at_most_one_pair(app, browser, registered, user):
    """The code is marked used by a conditional update: of two requests racing, one gets tokens, or the reuse
    revokes the family, never two live pairs."""

    client_id = registered()
    web = browser()
    code = web.code(client_id, user.email)
    answers, start = [], threading.Barrier(2)

    def exchange():
        start.wait()
        answers.append(web.exchange(client_id, code))

    threads = [threading.Thread(target=exchange) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    live = [answer for answer in answers if answer.status_code == 200
            and mcp_call(app, answer.json["access_token"]).status_code == 200]
    assert len(live) <= 1
