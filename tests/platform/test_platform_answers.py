"""Answers registered beside errors.py: the limiter's 429 (ratelimit.py) and the database going away (web.py)."""
import re

from sqlalchemy.exc import OperationalError

from trazo.extensions import db

from ..helpers import PASSWORD, error_detail


def test_the_limiters_429_names_its_wait_in_both_languages(monkeypatch, app, client):
    monkeypatch.setitem(app.config, "RATE_LIMIT_LOGIN", "2/minute")
    body = {"email": "nobody@example.com", "password": PASSWORD}
    for _ in range(2):
        assert client.post("/users/login", json=body).status_code == 401
    refused = client.post("/users/login", json=body)
    detail = error_detail(refused, 429)
    seconds = int(refused.headers["Retry-After"])
    assert 1 <= seconds <= 61 and detail == f"Too many requests. Try again in {seconds} seconds."
    spanish = error_detail(client.post("/users/login", json=body, lang="es"), 429)
    assert re.fullmatch(r"Demasiadas solicitudes\. Intente de nuevo en \d+ segundos\.", spanish), spanish


def test_a_database_that_went_away_answers_503(monkeypatch, user):
    def gone(*_args, **_kwargs):
        raise OperationalError("SELECT 1", {}, Exception("server closed the connection unexpectedly"))

    monkeypatch.setattr(db.session, "execute", gone)
    response = user.get("/users/me")
    assert error_detail(response, 503) == "Service temporarily unavailable, try again shortly"
    assert response.headers["Retry-After"] == "5"
    monkeypatch.undo()
    assert user.get("/users/me").status_code == 200
