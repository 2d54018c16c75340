"""OAuth providers on 127.0.0.1: an OpenID Connect provider (Google's shape) and GitHub's OAuth app and
REST endpoints, with codes bound to the client, the redirect URI and the PKCE challenge."""
import base64
import hashlib
import secrets
import time
from urllib.parse import urlencode

from joserfc import jwt
from joserfc.jwk import RSAKey

from .base import FakeService, Reply


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
