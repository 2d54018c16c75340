"""Cross-cutting rules: health, error shapes, body limits, language, headers, CORS, docs, 500."""
import io

import pytest

from trazo import create_app

from ..helpers import error_detail, validation_errors


def test_root_describes_the_service(client):
    response = client.get("/")
    assert response.status_code == 200
    assert response.json == {"name": "Trazo", "message": "Welcome to Trazo", "version": "0.1.0",
                              "environment": "testing", "status": "running"}


def test_health_and_readiness(client):
    assert client.get("/health").json == {"status": "ok"}
    ready = client.get("/health/ready")
    assert ready.status_code == 200
    assert ready.json["status"] == "ok" and ready.json["checks"]["database"] == "ok"


def test_health_probe_answers_like_the_route(client):
    probe = client.get("/health")  # no Origin: answered below Flask
    browser = client.get("/health", headers={"Origin": "http://localhost:5173"})  # through Flask
    assert probe.status_code == browser.status_code == 200
    assert probe.data == browser.data == b'{"status":"ok"}\n'
    for name in ("Content-Type", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy",
                 "Permissions-Policy"):
        assert probe.headers[name] == browser.headers[name]
    assert "Access-Control-Allow-Origin" not in probe.headers
    assert browser.headers["Access-Control-Allow-Origin"] == "http://localhost:5173"
    head = client.request("HEAD", "/health")
    assert head.status_code == 200 and head.data == b""
    assert client.post("/health").status_code == 405


def test_unknown_route_is_a_localized_404(client):
    assert error_detail(client.get("/nowhere", lang="en"), 404) == "Not found"
    assert error_detail(client.get("/nowhere", lang="es"), 404) == "No encontrado"
    assert error_detail(client.get("/no-such-page"), 404) == "Not found"


def test_method_not_allowed_keeps_allow(client):
    response = client.request("PATCH", "/users/me")
    assert error_detail(response, 405) == "Method not allowed"
    assert {"GET", "PUT", "DELETE"} <= {m.strip() for m in response.headers["Allow"].split(",")}


def test_malformed_json_and_non_object_bodies_are_422(client):
    malformed = client.post("/users/login", data='{"email": ', content_type="application/json")
    assert validation_errors(malformed)[0]["type"] == "json_invalid"
    listed = client.post("/users/login", json=["a@example.com", "x"])
    assert validation_errors(listed)[0]["loc"] == ["body"]


def test_validation_messages_follow_the_language(client):
    english = validation_errors(client.post("/users/login", json={"password": "x"}, lang="en"), "email")
    spanish = validation_errors(client.post("/users/login", json={"password": "x"}, lang="es"), "email")
    assert english[0]["msg"] == "Missing data for required field."
    assert spanish[0]["msg"] == "Falta un dato obligatorio."
    assert english[0]["type"] == spanish[0]["type"] == "missing"


@pytest.mark.parametrize("header, expected", [
    ("es-ES,en;q=0.1", "es"), ("en-US,es;q=0.9", "en"), ("fr", "en"), ("es-MX", "es"), (None, "en"),
    ("fr, es;q=0.5", "es"), ("*", "en")])
def test_language_negotiation_honours_q_values(client, header, expected):
    detail = error_detail(client.get("/users/me", lang=header), 401)
    assert detail == {"en": "Not authenticated", "es": "No autenticado"}[expected]


def test_body_over_the_limit_by_content_length_is_413(client, app):
    limit = app.config["MAX_REQUEST_BODY_BYTES"]
    response = client.post("/users/login", data=b"x" * (limit + 1), content_type="application/json")
    assert error_detail(response, 413) == "Request body too large"
    spanish = client.post("/users/login", data=b"x" * (limit + 1), content_type="application/json", lang="es")
    assert error_detail(spanish, 413) == "Cuerpo de la solicitud demasiado grande"


def test_chunked_body_over_the_limit_is_413(client, app):
    """No Content-Length (as gunicorn passes a chunked body): the limit applies while reading."""
    limit = app.config["MAX_REQUEST_BODY_BYTES"]
    response = client.post("/users/login", input_stream=io.BytesIO(b"x" * (limit + 65536)),
                           content_type="application/json", headers={"Transfer-Encoding": "chunked"},
                           environ_overrides={"wsgi.input_terminated": True})
    assert error_detail(response, 413) == "Request body too large"


@pytest.mark.parametrize("size", ["small", "at the limit"])
def test_chunked_body_up_to_the_limit_is_read(client, app, size):
    head, tail = b'{"email": "chunked@example.com", "password": "', b'"}'
    length = 2000 if size == "small" else app.config["MAX_REQUEST_BODY_BYTES"] - len(head) - len(tail)
    body = head + b"x" * length + tail
    response = client.post("/users/login", input_stream=io.BytesIO(body), content_type="application/json",
                           headers={"Transfer-Encoding": "chunked"}, environ_overrides={"wsgi.input_terminated": True})
    assert response.status_code == 422  # the 1024-character password bound: the whole body was read
    validation_errors(response, "password")


def test_body_at_the_limit_is_read(client, app):
    limit = app.config["MAX_REQUEST_BODY_BYTES"]
    head, tail = b'{"email": "limit@example.com", "password": "', b'"}'
    body = head + b"x" * (limit - len(head) - len(tail)) + tail
    response = client.post("/users/login", data=body, content_type="application/json")
    assert response.status_code == 422  # the 1024-character password bound, not the body limit
    validation_errors(response, "password")


def test_security_headers_everywhere(client):
    for response in (client.get("/health"), client.get("/users/me"), client.get("/nowhere")):
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"
        assert "Strict-Transport-Security" not in response.headers


def test_cors_for_the_frontend_only(client):
    preflight = client.request("OPTIONS", "/users/me", headers={
        "Origin": "http://localhost:5173", "Access-Control-Request-Method": "PUT",
        "Access-Control-Request-Headers": "authorization,content-type"})
    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Origin"] == "http://localhost:5173"
    assert "authorization" in preflight.headers["Access-Control-Allow-Headers"].lower()
    actual = client.get("/users/installation-status", headers={"Origin": "http://localhost:5173"})
    exposed = actual.headers["Access-Control-Expose-Headers"].lower()
    assert "content-disposition" in exposed and "retry-after" in exposed
    foreign = client.get("/users/installation-status", headers={"Origin": "http://evil.example"})
    assert "Access-Control-Allow-Origin" not in foreign.headers


def test_docs_in_development(client):
    spec = client.get("/openapi.json").json
    assert spec["openapi"].startswith("3.")
    assert "post" in spec["paths"]["/api/v1/users/login"]
    assert spec["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    assert spec["paths"]["/api/v1/users/login"]["post"]["security"] == []
    for path, asset in (("/docs", "/docs-assets/swagger/swagger-ui-bundle.js"),
                        ("/redoc", "/docs-assets/redoc/redoc.standalone.js")):
        page = client.get(path)
        assert page.status_code == 200 and "text/html" in page.content_type
        assert asset in page.get_data(as_text=True)
        assert client.get(asset).status_code == 200


def test_every_view_has_a_summary(client):
    spec = client.get("/openapi.json").json
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method not in ("get", "put", "post", "delete", "patch"):
                continue
            assert operation.get("summary"), f"{method.upper()} {path} has no summary"


def test_production_hides_docs_and_sends_hsts(app_env):
    production = create_app(env={**app_env, "APP_ENV": "production"})
    web = production.test_client()
    for path in ("/openapi.json", "/docs", "/redoc"):
        assert web.get(path).status_code == 404
    response = web.get("/health")
    assert response.headers["Strict-Transport-Security"].startswith("max-age=")
    assert response.headers["Content-Security-Policy"]
    assert web.get("/").json["environment"] == "production"


def test_production_refuses_to_start_without_secrets(app_env):
    from trazo.config import ConfigError

    for name in ("SECRET_KEY", "JWT_SECRET_KEY", "ENCRYPTION_KEYS"):
        env = {k: v for k, v in app_env.items() if k != name} | {"APP_ENV": "production"}
        with pytest.raises(ConfigError, match=name):
            create_app(env=env)


def test_development_generates_and_keeps_secrets(tmp_path, app_env):
    env = {k: v for k, v in app_env.items() if k not in ("SECRET_KEY", "JWT_SECRET_KEY", "ENCRYPTION_KEYS")}
    env |= {"APP_ENV": "development", "INSTANCE_PATH": str(tmp_path)}
    first, second = create_app(env=env), create_app(env=env)
    assert first.config["JWT_SECRET_KEY"] == second.config["JWT_SECRET_KEY"]
    assert (tmp_path / "dev-secrets.json").exists()


def test_unexpected_errors_are_a_generic_500(app_env):
    failing = create_app(env=app_env)

    @failing.route("/explode")
    def explode():
        raise RuntimeError("secret internals")

    response = failing.test_client().get("/explode")
    assert response.status_code == 500
    assert response.json == {"detail": "Internal server error", "request_id": response.headers["X-Request-ID"]}


def _address_seen(app_env, hops):
    application = create_app(env={**app_env, "TRUSTED_PROXY_COUNT": str(hops)})

    @application.route("/whoami")
    def whoami():
        from flask import request

        return {"ip": request.remote_addr}

    return application.test_client().get("/whoami", headers={"X-Forwarded-For": "1.2.3.4, 5.6.7.8"},
                                          environ_base={"REMOTE_ADDR": "127.0.0.1"}).json["ip"]


def test_proxy_fix_trusts_only_the_configured_hops(app_env):
    assert _address_seen(app_env, 1) == "5.6.7.8"
    assert _address_seen(app_env, 2) == "1.2.3.4"
    assert _address_seen(app_env, 0) == "127.0.0.1"


def test_database_outage_is_a_503_with_retry_after(app_env):
    unreachable = create_app(env={**app_env, "DATABASE_URL": "postgresql+psycopg://postgres@127.0.0.1:9/none"})
    web = unreachable.test_client()
    response = web.get("/api/v1/users/installation-status", headers={"Accept-Language": "es"})
    assert response.status_code == 503
    assert response.json == {"detail": "Servicio no disponible temporalmente, inténtelo de nuevo en breve"}
    assert response.headers["Retry-After"] == "5"
    ready = web.get("/health/ready")
    assert ready.status_code == 503 and ready.json["checks"]["database"] == "unavailable"


def test_nul_characters_are_bad_input_not_a_database_error(client, make_user):
    user = make_user()
    detail = error_detail(user.put("/users/me", json={"full_name": "a\x00b"}), 422)
    assert detail[0]["loc"] == ["body"] and "NUL" in detail[0]["msg"]
    assert error_detail(client.get("/users/installation-status%00"), 404) == "Not found"
    assert user.get("/users/me").json["full_name"] == "Test User"


def test_page_numbers_are_bounded(make_user):
    admin = make_user()
    validation_errors(admin.get("/admin/audit-log?page=125002812791084464209920"), "page", where="query")
    validation_errors(admin.get("/admin/audit-log?page=0"), "page", where="query")
    validation_errors(admin.get("/admin/audit-log?page_size=101"), "page_size", where="query")
    assert admin.get("/admin/audit-log?page=1000000").status_code == 200
