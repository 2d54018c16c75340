"""Every documented error answer is a text `detail` the browser client can show (an `error_code` may sit
beside it), except 422's validation list and the few object details the reference itself sends."""
import pytest

SCHEMAS = "#/components/schemas/"
TEXT = {SCHEMAS + "Error", SCHEMAS + "CodedError", SCHEMAS + "VersionConflict"}
VALIDATION = SCHEMAS + "ValidationError"
OBJECT = SCHEMAS + "ObjectError"
METHODS = ("get", "put", "post", "delete", "patch")
PLAN_LIMIT = "403"
# (method, path, status) answering an object detail: plan limits, import refusals, AI code results
# that cannot be used (response_truncated 422, empty_response 502).
OBJECT_DETAILS = {
    ("post", "/api/v1/projects", PLAN_LIMIT),
    ("post", "/api/v1/projects/{project_id}/diagrams", PLAN_LIMIT),
    ("post", "/api/v1/projects/{project_id}/folders", PLAN_LIMIT),
    ("put", "/api/v1/diagrams/{diagram_id}", PLAN_LIMIT),
    ("post", "/api/v1/diagrams/{diagram_id}/duplicate", PLAN_LIMIT),
    ("post", "/api/v1/diagrams/{diagram_id}/revisions", PLAN_LIMIT),
    ("post", "/api/v1/diagrams/{diagram_id}/revisions/{number}/restore", PLAN_LIMIT),
    ("post", "/api/v1/projects/{project_id}/import", "400"),
    ("post", "/api/v1/projects/{project_id}/import", PLAN_LIMIT),
    ("post", "/api/v1/projects/{project_id}/import", "500"),
    ("put", "/api/v1/projects/{project_id}/files/{file_path}", PLAN_LIMIT),
    ("post", "/api/v1/projects/{project_id}/sync", PLAN_LIMIT),
    ("post", "/api/v1/projects/{project_id}/transfer", PLAN_LIMIT),
    ("post", "/api/v1/ai/generate-diagram", "422"), ("post", "/api/v1/ai/generate-diagram", "502"),
    ("post", "/api/v1/ai/improve-diagram", "422"), ("post", "/api/v1/ai/improve-diagram", "502"),
    ("post", "/api/v1/diagrams/{diagram_id}/fix", "422"), ("post", "/api/v1/diagrams/{diagram_id}/fix", "502"),
    ("post", "/api/v1/diagrams/convert", "422"), ("post", "/api/v1/diagrams/convert", "502"),
    ("post", "/api/v1/invitations/{token}/accept", PLAN_LIMIT),
    ("post", "/api/v1/invite-links/{token}/join", PLAN_LIMIT),
    ("post", "/api/v1/diagrams/{diagram_id}/comments", PLAN_LIMIT),
    ("post", "/api/v1/comments/{comment_id}/replies", PLAN_LIMIT),
    ("put", "/api/v1/comments/{comment_id}", PLAN_LIMIT),
}


# Not an error body: the readiness probe reports its checks with 503 too.
REPORTS = {("get", "/health/ready", "503")}


@pytest.fixture(scope="module")
def spec(app):
    return app.test_client().get("/openapi.json").json


def _schema_refs(spec, response):
    if "$ref" in response:
        response = spec["components"]["responses"][response["$ref"].rsplit("/", 1)[-1]]
    schema = response.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return set()
    return {item["$ref"] for item in schema.get("oneOf", [schema])}


def _error_responses(spec):
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method not in METHODS:
                continue
            for status, response in operation.get("responses", {}).items():
                if (status == "default" or int(status) >= 400) and (method, path, status) not in REPORTS:
                    yield (method, path, status), _schema_refs(spec, response)


def test_the_error_schemas_hold_a_text_detail(spec):
    schemas = spec["components"]["schemas"]
    assert schemas["Error"]["properties"]["detail"]["type"] == "string"
    assert schemas["CodedError"]["properties"]["detail"]["type"] == "string"
    assert schemas["CodedError"]["properties"]["error_code"]["type"] == "string"
    assert schemas["VersionConflict"]["properties"]["detail"]["type"] == "string"
    assert schemas["ValidationError"]["properties"]["detail"]["type"] == "array"


def test_every_documented_error_is_a_text_detail_except_the_reference_objects(spec):
    wrong = []
    for key, refs in _error_responses(spec):
        allowed = TEXT | ({VALIDATION} if key[2] == "422" else set()) | ({OBJECT} if key in OBJECT_DETAILS else set())
        if not refs or not refs <= allowed:
            wrong.append((key, sorted(refs)))
    assert wrong == []


def test_the_object_details_are_documented_where_they_are_answered(spec):
    documented = {key for key, refs in _error_responses(spec) if OBJECT in refs}
    assert documented == OBJECT_DETAILS
