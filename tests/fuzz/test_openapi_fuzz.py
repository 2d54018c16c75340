"""Property-based fuzzing of every documented route (schemathesis, bounded): never a 500, no other 5xx
than the upstream statuses a route documents (this app has no AI, payment or renderer peers configured,
so "not configured"/"unreachable" answers are expected), and every response matches its documented
schema. Run with `make fuzz` (marker `fuzz`, excluded from `make test`)."""
import base64
import os
import tempfile

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import response_schema_conformance

from trazo import create_app
from trazo.extensions import db

from ..helpers import PASSWORD

pytestmark = pytest.mark.fuzz
MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES") or 20)


def _fuzz_app():
    """An application of its own (SQLite file, no rate limits, local rendering: no network)."""
    folder = tempfile.mkdtemp(prefix="trazo-fuzz-")
    application = create_app(env={
        "APP_ENV": "testing", "INSTANCE_PATH": folder, "DATABASE_URL": f"sqlite:///{folder}/fuzz.db",
        "SECRET_KEY": "fuzz-secret-key-0123456789abcdef", "JWT_SECRET_KEY": "fuzz-jwt-secret-0123456789abcdef0123",
        "ENCRYPTION_KEYS": base64.urlsafe_b64encode(b"f" * 32).decode(), "RATELIMIT_ENABLED": "false",
        "RENDER_BACKEND": "local", "EMAIL_BACKEND": "console", "ARGON2_TIME_COST": "1",
        "ARGON2_MEMORY_COST": "1024", "ARGON2_PARALLELISM": "1"})
    with application.app_context():
        db.create_all()
    return application


APP = _fuzz_app()
schema = schemathesis.openapi.from_wsgi("/openapi.json", APP)


@pytest.fixture(scope="module")
def bearer():
    client = APP.test_client()
    client.post("/api/v1/users/register", json={"email": "fuzz@example.com", "password": PASSWORD})
    token = client.post("/api/v1/users/login", json={"email": "fuzz@example.com", "password": PASSWORD}).json
    return {"Authorization": f"Bearer {token['access_token']}"}


def no_undocumented_server_error(ctx, response, case):
    """A 500 is always a defect; 502-504 only where the operation documents them."""
    status = response.status_code
    if status < 500:
        return None
    documented = set(case.operation.definition.raw.get("responses", {}))
    if status == 500 or str(status) not in documented:
        raise AssertionError(f"{case.method} {case.path} answered {status}: {response.text[:300]}")
    return None


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_route_survives_generated_input(case, bearer):
    case.call_and_validate(headers=bearer, checks=[no_undocumented_server_error, response_schema_conformance])
