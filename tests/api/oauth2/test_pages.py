"""The sign-in and consent pages (docs/oauth-server.md, "Pages"): their cookie, CSRF, framing, the lockout and
throttle of the API's login, the second factor, the language."""
from ...flows import enable_totp, totp_code
from ...helpers import PASSWORD
from .conftest import csrf_of, query_of


def test_the_pages_cookie_is_its_own_and_the_pages_cannot_be_framed(browser, registered):
    web = browser()
    page = web.open(web.authorize_url(registered()))
    assert page.status_code == 200 and page.mimetype == "text/html"
    cookie = page.headers["Set-Cookie"]
    assert cookie.startswith("trazo_oauth2=")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/oauth2" in cookie and "Max-Age=600" in cookie
    assert "Secure" not in cookie  # plain http here; over https the cookie is Secure
    assert page.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert page.headers["Cache-Control"] == "no-store"


def test_the_cookie_is_secure_over_https(browser, registered):
    web = browser()
    page = web.open(web.authorize_url(registered(), resource="https://localhost/mcp"), base_url="https://localhost")
    assert "Secure" in page.headers["Set-Cookie"]


def test_the_api_stays_cookie_less(user):
    assert "Set-Cookie" not in user.get("/users/me").headers


def test_a_post_without_the_pages_token_is_refused(app, browser, registered, user):
    client_id = registered()
    web = browser()
    url = web.authorize_url(client_id)
    web.open(url)
    forged = web.open(url, "POST", data={"csrf_token": "forged", "action": "sign_in", "email": user.email,
                                         "password": PASSWORD})
    assert forged.status_code == 400
    # another browser (no cookie) posting a token it read elsewhere
    token = csrf_of(web.open(url))
    other = browser()
    response = other.open(url, "POST", data={"csrf_token": token, "action": "sign_in", "email": user.email,
                                             "password": PASSWORD})
    assert response.status_code == 400
    assert "Location" not in response.headers


def test_consent_needs_the_signed_in_token(browser, registered, user):
    client_id = registered()
    web = browser()
    url = web.authorize_url(client_id)
    signed_out_token = csrf_of(web.open(url))
    assert web.sign_in(url, user.email).status_code == 303
    stale = web.open(url, "POST", data={"csrf_token": signed_out_token, "action": "allow"})
    assert stale.status_code == 400 and "Location" not in stale.headers


def test_consent_names_the_client_its_redirect_host_and_scopes(browser, registered, user):
    client_id = registered(client_name="Desk Helper")
    web = browser()
    url = web.authorize_url(client_id, scope="read")
    web.sign_in(url, user.email)
    text = web.open(url).get_data(as_text=True)
    assert "Desk Helper" in text and "127.0.0.1:5555" in text and user.email in text
    assert "Read your workspaces" in text and "Create and change" not in text


def test_pages_speak_spanish(browser, registered):
    web = browser()
    page = web.open(web.authorize_url(registered()), headers={"Accept-Language": "es"})
    text = page.get_data(as_text=True)
    assert 'lang="es"' in text and "Iniciar sesión" in text


def test_wrong_passwords_lock_the_email_as_the_api_login_does(browser, registered, user, client):
    client_id = registered()
    web = browser()
    url = web.authorize_url(client_id)
    for _attempt in range(5):
        assert web.sign_in(url, user.email, password="wrong-Passw0rd!").status_code in (401, 429)
    locked = web.sign_in(url, user.email)
    assert locked.status_code == 429
    # the same lock holds on the API's login
    assert client.post("/users/login", json={"email": user.email, "password": PASSWORD}).status_code == 429


def test_sign_ins_are_throttled_per_address(configure, browser, registered, user):
    configure(RATE_LIMIT_LOGIN="2/minute")
    web = browser()
    url = web.authorize_url(registered())
    assert web.sign_in(url, user.email, password="bad-Passw0rd!1").status_code == 401
    assert web.sign_in(url, user.email, password="bad-Passw0rd!2").status_code == 401
    assert web.sign_in(url, user.email).status_code == 429


def test_an_account_with_totp_signs_in_with_its_code(app, browser, registered, user):
    secret, _codes = enable_totp(user)
    client_id = registered()
    web = browser()
    url = web.authorize_url(client_id)
    assert web.sign_in(url, user.email).status_code == 303
    step = web.open(url)
    assert 'value="second_factor"' in step.get_data(as_text=True)
    wrong = web.open(url, "POST", data={"csrf_token": csrf_of(step), "action": "second_factor", "code": "000000"})
    assert wrong.status_code == 401
    # not signed in yet: consent is refused
    refused = web.open(url, "POST", data={"csrf_token": csrf_of(wrong), "action": "allow"})
    assert refused.status_code == 400 and "Location" not in refused.headers
    right = web.open(url, "POST", data={"csrf_token": csrf_of(refused), "action": "second_factor",
                                        "code": totp_code(secret, 1)})
    assert right.status_code == 303
    answer = query_of(web.consent(url))
    assert web.exchange(client_id, answer["code"]).status_code == 200
