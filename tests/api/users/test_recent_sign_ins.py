"""Every way of signing in (OAuth, the MFA step) makes a recent sign-in; OAuth-only accounts, without a
password, have that alone for sensitive changes."""
from ...flows import enable_totp, mfa_token, oauth_sign_in, totp_code
from ...helpers import PASSWORD, error_detail

SIGN_IN_AGAIN = "Please sign in again to confirm this change."


def test_an_oauth_only_account_deletes_itself_after_a_recent_oauth_sign_in(client, admin, google, settings):
    signed_in = oauth_sign_in(client, "google")
    assert signed_in.status_code == 200, signed_in.json
    token = signed_in.json["access_token"]
    phrase = {"confirmation_phrase": "delete me"}
    assert error_detail(client.delete("/users/me", json=phrase | {"password": PASSWORD}, token=token), 403) == \
        "Password is incorrect"
    settings(RECENT_SIGN_IN_SECONDS=0)
    assert error_detail(client.delete("/users/me", json=phrase, token=token), 403) == SIGN_IN_AGAIN
    settings(RECENT_SIGN_IN_SECONDS=900)
    deleted = client.delete("/users/me", json=phrase, token=token)
    assert deleted.status_code == 200 and deleted.json == {"message": "Account deleted successfully"}


def test_the_token_of_an_mfa_sign_in_is_a_recent_sign_in(client, user, settings):
    secret, _codes = enable_totp(user)
    settings(RECENT_SIGN_IN_SECONDS=0)
    assert error_detail(user.post("/mfa/regenerate-recovery-codes"), 403) == SIGN_IN_AGAIN
    settings(RECENT_SIGN_IN_SECONDS=900)
    verified = client.post("/mfa/verify", json={"mfa_token": mfa_token(client, user.email),
                                                "code": totp_code(secret, 1)})
    assert verified.status_code == 200, verified.json
    regenerated = user.post("/mfa/regenerate-recovery-codes", token=verified.json["access_token"])
    assert regenerated.status_code == 200 and len(regenerated.json["codes"]) == 8


RECENT_SIGN_IN_ROUTES = [("post", "/mfa/setup-totp", {}), ("post", "/mfa/enable-totp", {"code": "000000"}),
                         ("post", "/mfa/enable-email", {}),
                         ("post", "/mfa/verify-email-activation", {"code": "000000"}),
                         ("post", "/users/me/tokens", {"name": "ci", "scopes": ["read"]})]


def test_every_route_declared_recent_sign_in_documents_and_answers_its_403(client, user, settings):
    paths = client.get("/openapi.json").json["paths"]
    settings(RECENT_SIGN_IN_SECONDS=0)
    for method, path, body in RECENT_SIGN_IN_ROUTES:
        documented = paths["/api/v1" + path][method]["responses"]["403"]["description"]
        assert documented == "Wrong password, or no password and no recent sign-in", path
        assert error_detail(user.request(method.upper(), path, json=body), 403) == SIGN_IN_AGAIN
        wrong = user.request(method.upper(), path, json=body | {"password": "wrong password"})
        assert error_detail(wrong, 403) == "Password is incorrect"


def test_a_body_that_fails_validation_is_a_422_before_the_recent_sign_in_check(user, settings):
    settings(RECENT_SIGN_IN_SECONDS=0)
    refused = user.post("/mfa/enable-totp", json={"password": "wrong password"})
    assert refused.status_code == 422 and "code" in str(refused.json)
