"""AI repair (POST /diagrams/{id}/fix) and conversion (POST /diagrams/convert)."""
import json

import pytest

from ...helpers import UNKNOWN_ID, error_detail, validation_errors

BROKEN = "flowchart TD\n  subgraph one\n    A --> B\n"
FIXED = "flowchart TD\n  subgraph one\n    A --> B\n  end"
FIX_REPLY = (f"<<<EXPLANATION>>>\nThe subgraph was never closed.\n<<<CHANGES>>>\nAdded the missing\n end.\n"
             f"<<<CODE>>>\n```mermaid\n{FIXED}\n```")
ER = "erDiagram\n  USER ||--o{ POST : writes"
DBML = "Table users {\n  id int [pk]\n}\nTable posts {\n  user_id int [ref: > users.id]\n}"
CONVERT = {"diagram_code": "flowchart TD\n  A --> B", "source_type": "mermaid", "target_type": "PlantUML"}


def make_diagram(client, content=BROKEN, diagram_type="mermaid"):
    project = client.post("/projects", json={"name": "AI"})
    assert project.status_code == 201, project.json
    diagram = client.post(f"/projects/{project.json['id']}/diagrams",
                          json={"title": "Flow", "content": content, "diagram_type": diagram_type})
    assert diagram.status_code == 201, diagram.json
    return diagram.json["id"]


def test_fix_repairs_the_stored_code_without_saving(with_provider, fake_providers):
    diagram_id = make_diagram(with_provider)
    fake_providers.openai.reply(text=FIX_REPLY)
    response = with_provider.post(f"/diagrams/{diagram_id}/fix", json={"error_context": "Parse error on line 4",
                                                                         "language": "en"})
    assert response.status_code == 200
    body = response.json
    assert body["original_code"] == BROKEN and body["corrected_code"] == FIXED
    assert body["explanation"] == "The subgraph was never closed."
    assert body["changes_summary"] == "Added the missing end."
    assert body["diff"].startswith("--- original\n+++ corrected\n") and "+  end" in body["diff"]
    assert body["validation_passed"] is True and body["provider_used"] == "openai"
    assert body["model_used"] == "gpt-test" and isinstance(body["generation_time"], float)
    sent = fake_providers.openai.last["json"]
    assert sent["temperature"] == 0.3 and "MERMAID RULES" in sent["messages"][0]["content"]
    assert "Parse error on line 4" in sent["messages"][1]["content"] and BROKEN in sent["messages"][1]["content"]
    assert with_provider.get(f"/diagrams/{diagram_id}").json["content"] == BROKEN


def test_fix_can_repair_the_code_of_the_editor(with_provider, fake_providers):
    diagram_id = make_diagram(with_provider)
    fake_providers.openai.reply(text=json.dumps({"corrected_code": "flowchart LR\n  X --> Y",
                                                 "explanation": "ok", "changes_summary": "none"}))
    response = with_provider.post(f"/diagrams/{diagram_id}/fix", json={"diagram_code": "flowchart LR\n  X -->"})
    assert response.json["original_code"] == "flowchart LR\n  X -->"
    assert response.json["corrected_code"] == "flowchart LR\n  X --> Y" and response.json["explanation"] == "ok"
    assert "X -->" in fake_providers.openai.last["json"]["messages"][1]["content"]


def test_a_fix_that_fails_validation_is_refused(with_provider, fake_providers):
    diagram_id = make_diagram(with_provider)
    fake_providers.openai.reply(text="<<<CODE>>>\nflowchart TD\n  end")
    detail = error_detail(with_provider.post(f"/diagrams/{diagram_id}/fix", json={}, lang="es"), 422)
    assert "no pasó la validación" in detail and "'end'" in detail


def test_a_dbml_fix_that_fails_validation_is_returned_flagged(with_provider, fake_providers):
    diagram_id = make_diagram(with_provider, "Table users {", "dbml")
    fake_providers.openai.reply(text="<<<CODE>>>\nTable users {\n  id int")
    response = with_provider.post(f"/diagrams/{diagram_id}/fix", json={})
    assert response.status_code == 200 and response.json["validation_passed"] is False


def test_fix_refuses_what_it_cannot_repair(with_provider, fake_providers):
    freehand = make_diagram(with_provider, "{}", "freehand")
    assert error_detail(with_provider.post(f"/diagrams/{freehand}/fix", json={}), 400).startswith("AI repair works")
    empty = make_diagram(with_provider, "  ")
    assert error_detail(with_provider.post(f"/diagrams/{empty}/fix", json={}, lang="es"), 400) == \
        "El diagrama está vacío: no hay nada que reparar."
    assert fake_providers.openai.requests == []


def test_fix_of_a_foreign_or_unknown_diagram_is_404(with_provider, other_user, fake_providers):
    foreign = make_diagram(other_user)
    for diagram_id in (foreign, UNKNOWN_ID, "not-an-id"):
        assert error_detail(with_provider.post(f"/diagrams/{diagram_id}/fix", json={}), 404) == "Diagram not found"
    assert fake_providers.openai.requests == []


def test_fix_needs_a_token_valid_input_and_a_provider(client, user, with_provider, fake_providers):
    diagram_id = make_diagram(with_provider)
    assert error_detail(client.post(f"/diagrams/{diagram_id}/fix", json={}), 401) == "Not authenticated"
    validation_errors(with_provider.post(f"/diagrams/{diagram_id}/fix", json={"error_context": "x" * 5001}),
                      "error_context")
    validation_errors(with_provider.post(f"/diagrams/{diagram_id}/fix", json={"language": "de"}), "language")
    assert error_detail(with_provider.post(f"/diagrams/{diagram_id}/fix", json={"provider_index": 3}), 404)
    with_provider.delete("/ai/providers/0")
    assert error_detail(with_provider.post(f"/diagrams/{diagram_id}/fix", json={}), 400).startswith("No active AI")


@pytest.mark.parametrize(("status", "code", "answer"), [(401, "invalid_key", 400), (429, "rate_limited", 429),
                                                         (503, "provider_error", 502)])
def test_fix_keeps_provider_failure_codes(with_provider, fake_providers, status, code, answer):
    diagram_id = make_diagram(with_provider)
    fake_providers.openai.reply(status=status, error="nope")
    assert error_detail(with_provider.post(f"/diagrams/{diagram_id}/fix", json={}), answer, error_code=code)
    fake_providers.openai.reply(text="<<<CODE>>>\nflowchart TD", truncated=True)
    assert error_detail(with_provider.post(f"/diagrams/{diagram_id}/fix", json={}), 422)["error"] == \
        "response_truncated"


def test_convert_returns_a_preview_with_its_warning(with_provider, fake_providers):
    fake_providers.openai.reply(text="```plantuml\n@startuml\nA -> B\n@enduml\n```")
    response = with_provider.post("/diagrams/convert", json={**CONVERT, "model": "gpt-chat-model"}, lang="es")
    assert response.status_code == 200
    body = response.json
    assert body["converted_code"] == "@startuml\nA -> B\n@enduml" and body["original_code"] == CONVERT["diagram_code"]
    assert (body["source_type"], body["target_type"]) == ("mermaid", "plantuml")
    assert (body["provider_used"], body["model_used"]) == ("openai", "gpt-chat-model")
    assert body["warning"] == "Se conserva la estructura; los estilos classDef se adaptan a skinparam."
    sent = fake_providers.openai.last["json"]
    assert sent["model"] == "gpt-chat-model" and "PLANTUML RULES" in sent["messages"][0]["content"]


def test_convert_to_dbml_needs_a_data_model(with_provider, fake_providers):
    body = {"diagram_code": "flowchart TD\n  A --> B", "source_type": "mermaid", "target_type": "dbml"}
    assert "DBML" in error_detail(with_provider.post("/diagrams/convert", json=body), 422)
    fake_providers.openai.reply(text=DBML)
    response = with_provider.post("/diagrams/convert", json={**body, "diagram_code": ER})
    assert response.status_code == 200 and response.json["converted_code"] == DBML
    assert response.json["warning"] == "Only entity-relationship diagrams have a DBML equivalent."
    assert len(fake_providers.openai.requests) == 1


@pytest.mark.parametrize(("body", "message"), [
    ({**CONVERT, "source_type": "freehand"}, "cannot be converted"),
    ({**CONVERT, "target_type": "visio"}, "cannot be converted"),
    ({**CONVERT, "target_type": "Mermaid"}, "same"),
])
def test_convert_refuses_unsupported_pairs(with_provider, fake_providers, body, message):
    assert message in error_detail(with_provider.post("/diagrams/convert", json=body), 400)
    assert fake_providers.openai.requests == []


@pytest.mark.parametrize("reply", ["<<<INCOMPATIBLE>>>", "```plantuml\nA -> B\n```"])
def test_convert_refuses_an_unusable_result(with_provider, fake_providers, reply):
    fake_providers.openai.reply(text=reply)
    detail = error_detail(with_provider.post("/diagrams/convert", json=CONVERT, lang="es"), 422)
    assert detail == "openai (gpt-test) no pudo convertir este diagrama a plantuml. El original no se ha modificado."


def test_convert_needs_a_token_and_valid_input(client, with_provider, fake_providers):
    assert error_detail(client.post("/diagrams/convert", json=CONVERT), 401) == "Not authenticated"
    for field in ("diagram_code", "source_type", "target_type"):
        validation_errors(with_provider.post("/diagrams/convert", json={**CONVERT, field: ""}), field)
    assert error_detail(with_provider.post("/diagrams/convert", json={**CONVERT, "provider_index": -1}), 404)
    assert fake_providers.openai.requests == []


def test_fix_and_convert_are_rate_limited(app, with_provider, fake_providers):
    app.config["RATE_LIMIT_AI"] = "1/minute"
    try:
        fake_providers.openai.reply(text="```plantuml\n@startuml\nA -> B\n@enduml\n```")
        assert with_provider.post("/diagrams/convert", json=CONVERT).status_code == 200
        response = with_provider.post("/diagrams/convert", json=CONVERT)
        assert error_detail(response, 429) and int(response.headers["Retry-After"]) > 0
        diagram_id = make_diagram(with_provider)
        fake_providers.openai.reply(text=FIX_REPLY)
        assert with_provider.post(f"/diagrams/{diagram_id}/fix", json={}).status_code == 200
        assert error_detail(with_provider.post(f"/diagrams/{diagram_id}/fix", json={}), 429)
    finally:
        app.config["RATE_LIMIT_AI"] = "30/minute"
