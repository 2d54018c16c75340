"""Real HTTP servers on 127.0.0.1 speaking the providers' protocols: an OpenID Connect provider
(Google's shape), GitHub's OAuth app and REST endpoints, Resend's e-mail API and Stripe's balance."""
import base64
import hashlib
import json
import secrets
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qsl, urlencode, urlsplit

from joserfc import jwt
from joserfc.jwk import RSAKey

from ...servers import LocalHttpServer


@dataclass
class Request:
    method: str
    path: str
    query: dict
    headers: dict
    body: bytes

    def json(self):
        return json.loads(self.body or b"null")

    def form(self):
        return dict(parse_qsl(self.body.decode()))

    def bearer(self):
        value = self.headers.get("authorization", "")
        return value[7:] if value.lower().startswith("bearer ") else None

    def basic(self):
        value = self.headers.get("authorization", "")
        if not value.lower().startswith("basic "):
            return None
        return tuple(base64.b64decode(value[6:]).decode().split(":", 1))


@dataclass
class Reply:
    status: int = 200
    body: object = None
    headers: dict = field(default_factory=dict)


class FakeService(LocalHttpServer):
    """Dispatches (method, path) to handlers and records every request."""

    def __init__(self):
        self.routes = {}
        self.requests = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self):
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                request = Request(self.command, parts.path, dict(parse_qsl(parts.query)),
                                  {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length))
                service.requests.append(request)
                handler = service.routes.get((self.command, parts.path))
                reply = handler(request) if handler else Reply(404, {"message": "Not Found"})
                payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.headers.pop("Content-Type", "application/json"))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_DELETE = _serve

            def log_message(self, *_args):
                pass

        super().__init__(Handler)

    @property
    def url(self):
        return self.origin

    def route(self, method, path, handler):
        self.routes[(method, path)] = handler


    def received(self, method, path):
        return [request for request in self.requests if request.method == method and request.path == path]


def s256(verifier):
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


class OAuthProvider(FakeService):
    """The authorization server part shared by both providers: codes bound to the client, the
    redirect URI and the PKCE challenge; the next identity to sign in is set by the test."""

    authorize_path = token_path = ""

    def __init__(self, client_id, client_secret):
        super().__init__()
        self.client_id, self.client_secret = client_id, client_secret
        self.codes = {}
        self.next_identity = {}
        self.route("GET", self.authorize_path, self._authorize)
        self.route("POST", self.token_path, self._token)

    def reset(self, **identity):
        self.codes.clear()
        self.requests.clear()
        self.next_identity = identity

    def _authorize(self, request):
        query = request.query
        if query.get("client_id") != self.client_id or query.get("code_challenge_method") != "S256":
            return Reply(400, {"error": "invalid_request"})
        code = secrets.token_urlsafe(16)
        self.codes[code] = {"redirect_uri": query["redirect_uri"], "challenge": query["code_challenge"],
                            "nonce": query.get("nonce"), "identity": dict(self.next_identity)}
        separator = "&" if "?" in query["redirect_uri"] else "?"
        location = f"{query['redirect_uri']}{separator}{urlencode({'code': code, 'state': query['state']})}"
        return Reply(302, b"", {"Location": location})

    def _grant(self, request):
        """The code's record when the token request is right, else an error Reply."""
        form = request.form()
        if (form.get("client_id"), form.get("client_secret")) != (self.client_id, self.client_secret):
            return Reply(401, {"error": "invalid_client"})
        grant = self.codes.pop(form.get("code"), None)
        if grant is None or grant["redirect_uri"] != form.get("redirect_uri") \
                or s256(form.get("code_verifier", "")) != grant["challenge"]:
            return Reply(400, {"error": "invalid_grant"})
        return grant

    def _token(self, request):
        raise NotImplementedError


class OidcProvider(OAuthProvider):
    """Google's shape: discovery, authorize, token (with an RS256 ID token), userinfo, JWKS."""

    authorize_path, token_path = "/o/oauth2/v2/auth", "/token"

    def __init__(self, client_id="google-client", client_secret="google-secret"):
        super().__init__(client_id, client_secret)
        self.key = RSAKey.generate_key(2048, auto_kid=True)
        self.signing_key = self.key
        self.access_tokens = {}
        self.route("GET", "/.well-known/openid-configuration", lambda _request: Reply(200, {
            "issuer": self.url, "authorization_endpoint": self.url + self.authorize_path,
            "token_endpoint": self.url + self.token_path, "userinfo_endpoint": self.url + "/userinfo",
            "jwks_uri": self.url + "/jwks"}))
        self.route("GET", "/jwks", lambda _request: Reply(200, {"keys": [self.key.as_dict(private=False)]}))
        self.route("GET", "/userinfo", self._userinfo)

    @property
    def metadata_url(self):
        return self.url + "/.well-known/openid-configuration"

    def reset(self, **identity):
        super().reset(**identity)
        self.signing_key = self.key

    def _token(self, request):
        grant = self._grant(request)
        if isinstance(grant, Reply):
            return grant
        now = int(time.time())
        claims = {"iss": self.url, "aud": self.client_id, "iat": now, "exp": now + 3600, "nonce": grant["nonce"],
                  **grant["identity"]}
        id_token = jwt.encode({"alg": "RS256", "kid": self.signing_key.kid}, claims, self.signing_key)
        access_token = secrets.token_urlsafe(16)
        self.access_tokens[access_token] = grant["identity"]
        return Reply(200, {"access_token": access_token, "token_type": "Bearer", "expires_in": 3600,
                           "id_token": id_token})

    def _userinfo(self, request):
        identity = self.access_tokens.get(request.bearer())
        return Reply(200, identity) if identity else Reply(401, {"error": "invalid_token"})


class GitHubProvider(OAuthProvider):
    """GitHub's OAuth app endpoints and the REST calls we make (/user, /user/emails, check a token)."""

    authorize_path, token_path = "/login/oauth/authorize", "/login/oauth/access_token"

    def __init__(self, client_id="github-client", client_secret="github-secret"):
        super().__init__(client_id, client_secret)
        self.access_tokens = {}
        self.route("GET", "/user", self._user)
        self.route("GET", "/user/emails", self._emails)
        self.route("POST", f"/applications/{client_id}/token", self._check_token)

    def _token(self, request):
        grant = self._grant(request)
        if isinstance(grant, Reply):
            # GitHub answers 200 with an error document.
            return Reply(200, {"error": "bad_verification_code"})
        access_token = secrets.token_urlsafe(16)
        self.access_tokens[access_token] = grant["identity"]
        return Reply(200, {"access_token": access_token, "token_type": "bearer", "scope": "read:user,user:email"})

    def _identity(self, request):
        return self.access_tokens.get(request.bearer())

    def _user(self, request):
        identity = self._identity(request)
        if identity is None:
            return Reply(401, {"message": "Bad credentials"})
        return Reply(200, {"id": identity["id"], "login": identity["login"], "name": identity.get("name"),
                           "email": None})

    def _emails(self, request):
        identity = self._identity(request)
        if identity is None:
            return Reply(401, {"message": "Bad credentials"})
        return Reply(200, identity["emails"])

    def _check_token(self, request):
        if request.basic() != (self.client_id, self.client_secret):
            return Reply(401, {"message": "Bad credentials"})
        return Reply(404, {"message": "Not Found"})


class ResendApi(FakeService):
    """Resend's e-mail API: POST /emails and GET /domains with a Bearer key."""

    def __init__(self, api_key="re_test_key_123456"):
        super().__init__()
        self.api_key = api_key
        self.route("POST", "/emails", self._send)
        self.route("GET", "/domains", self._domains)

    def _authorized(self, request):
        return request.bearer() == self.api_key

    def _send(self, request):
        if not self._authorized(request):
            return Reply(401, {"statusCode": 401, "name": "validation_error", "message": "API key is invalid"})
        return Reply(200, {"id": secrets.token_hex(8)})

    def _domains(self, request):
        if not self._authorized(request):
            return Reply(401, {"statusCode": 401, "name": "validation_error", "message": "API key is invalid"})
        return Reply(200, {"data": []})

    def sent(self):
        return [request.json() for request in self.received("POST", "/emails")]


class StripeApi(FakeService):
    """Stripe's GET /v1/balance with a Bearer secret key."""

    def __init__(self, secret_key="sk_test_51abcdefghijklmnop"):
        super().__init__()
        self.secret_key = secret_key
        self.route("GET", "/v1/balance", lambda request: Reply(200, {"object": "balance", "available": []})
                   if request.bearer() == self.secret_key
                   else Reply(401, {"error": {"message": "Invalid API Key provided"}}))
