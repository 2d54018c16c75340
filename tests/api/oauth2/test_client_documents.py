"""Client ID Metadata Documents (docs/oauth-server.md, "Clients"): fetched through the outbound guard from a fake
server on 127.0.0.1, which the guard refuses unless OAUTH2_CLIENT_DOCUMENT_PRIVATE_HOSTS lists it."""
import time

import pytest

from ...fakes.base import FakeService, Reply
from .conftest import REDIRECT


@pytest.fixture(scope="module")
def documents():
    service = FakeService().start()
    yield service
    service.stop()


@pytest.fixture
def document(documents):
    """document(body=None, path="/client.json") -> the client_id URL serving `body` (else a valid document)."""
    documents.routes.clear()
    documents.requests.clear()

    def serve(body=None, path="/client.json", delay=0):
        url = documents.origin + path
        payload = body if body is not None else {"client_id": url, "client_name": "Documented Client",
                                                 "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}

        def answer(_request):
            time.sleep(delay)
            return Reply(200, payload)

        documents.route("GET", path, answer)
        return url

    return serve


@pytest.fixture
def allowed(configure, documents):
    configure(OAUTH2_CLIENT_DOCUMENT_PRIVATE_HOSTS=[f"127.0.0.1:{documents.httpd.server_port}"])


def test_a_document_on_a_private_address_is_refused(browser, document, documents):
    url = document()
    web = browser()
    for client_id in (url, url.replace("http://", "https://")):
        page = web.open(web.authorize_url(client_id))
        assert page.status_code == 400 and "Location" not in page.headers, client_id
    assert documents.requests == []  # the guard refused the address before anything was sent


def test_a_documented_client_completes_the_flow_and_its_document_is_cached(allowed, browser, document, documents,
                                                                          user):
    client_id = document()
    web = browser()
    code = web.code(client_id, user.email)
    issued = web.exchange(client_id, code)
    assert issued.status_code == 200, issued.json
    web.open(web.authorize_url(client_id))
    assert len(documents.received("GET", "/client.json")) == 1
    listed = user.get("/users/me/connected-apps").json
    assert listed[0]["client_id"] == client_id and listed[0]["client_name"] == "Documented Client"


def test_a_stale_copy_is_fetched_again(allowed, configure, browser, document, documents):
    configure(OAUTH2_CLIENT_DOCUMENT_CACHE_SECONDS=0)
    client_id = document()
    web = browser()
    assert web.open(web.authorize_url(client_id)).status_code == 200
    assert web.open(web.authorize_url(client_id)).status_code == 200
    assert len(documents.received("GET", "/client.json")) == 2


@pytest.mark.parametrize("make", [
    lambda url: {"client_id": "https://someone.else/client.json", "redirect_uris": [REDIRECT]},
    lambda url: ["not", "an", "object"],
    lambda url: {"client_id": url, "redirect_uris": ["https://app.example/cb#fragment"]},
    lambda url: {"client_id": url, "redirect_uris": ["http://app.example/cb"]},
    lambda url: {"client_id": url, "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "client_secret_basic"},
    lambda url: {"client_id": url, "redirect_uris": [REDIRECT], "padding": "x" * 10_000},
], ids=["another-client-id", "not-an-object", "fragment", "plain-http", "secret", "too-large"])
def test_a_document_that_does_not_describe_its_client_is_refused(allowed, browser, document, documents, make):
    url = documents.origin + "/bad.json"
    client_id = document(body=make(url), path="/bad.json")
    web = browser()
    page = web.open(web.authorize_url(client_id))
    assert page.status_code == 400 and "Location" not in page.headers


def test_a_redirect_uri_the_document_does_not_list_is_refused(allowed, browser, document):
    client_id = document()
    web = browser()
    page = web.open(web.authorize_url(client_id, redirect_uri="https://attacker.example/cb"))
    assert page.status_code == 400 and "Location" not in page.headers


def test_a_slow_document_server_meets_the_deadline(allowed, configure, browser, document):
    configure(OAUTH2_CLIENT_DOCUMENT_TIMEOUT=1)
    client_id = document(delay=3)
    web = browser()
    started = time.monotonic()
    page = web.open(web.authorize_url(client_id))
    assert page.status_code == 400
    assert time.monotonic() - started < 2.5
