"""Administrators: users with MFA state and usage, the XLSX export, MFA reset."""
import io

import pytest
from openpyxl import load_workbook

from trazo.core.workspaces.personal import personal_workspace_id
from trazo.extensions import db
from trazo.models.ai import AIProvider
from trazo.models.content import Diagram, Project

from ...flows import enable_totp, mfa_token, sign_in
from ...helpers import UNKNOWN_ID, error_detail, validation_errors

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _give_content(app, user_id, projects, diagram_types):
    with app.app_context():
        workspace_id = personal_workspace_id(user_id)
        made = [Project(workspace_id=workspace_id, user_id=user_id, name=f"Project {n}") for n in range(projects)]
        db.session.add_all(made)
        db.session.flush()
        db.session.add_all(Diagram(project_id=made[0].id, title=f"D{n}", diagram_type=kind)
                           for n, kind in enumerate(diagram_types))
        db.session.commit()


def _give_ai_models(app, user_id):
    with app.app_context():
        db.session.add_all([
            AIProvider(user_id=user_id, position=0, provider="openai", api_key_encrypted="x", model="gpt-4o",
                       display_name="Work", is_default=True),
            AIProvider(user_id=user_id, position=1, provider="claude", api_key_encrypted="x", model="sonnet",
                       is_active=False)])
        db.session.commit()


def test_admin_list_pages_searches_and_counts(app, admin, user, other_user):
    enable_totp(user)
    _give_content(app, user.id, 2, ["mermaid", "Mermaid", "plantuml"])
    _give_ai_models(app, user.id)
    response = admin.get("/mfa/admin/users", query_string={"page": 1, "page_size": 2})
    assert response.status_code == 200
    body = response.json
    assert body["total"] == 3 and body["page"] == 1 and body["page_size"] == 2 and body["total_pages"] == 2
    assert [item["email"] for item in body["items"]] == ["other@example.com", "user@example.com"]
    row = body["items"][1]
    assert row["mfa_enabled"] is True and row["mfa_methods"] == ["totp"] and row["mfa_default_method"] == "totp"
    assert row["recovery_codes_remaining"] == 8
    assert row["project_count"] == 2 and row["diagram_count"] == 3
    assert row["diagram_type_counts"] == {"mermaid": 2, "plantuml": 1}
    assert row["role"] == "user" and row["is_active"] is True
    assert row["plan_name"] == user.get("/users/me").json["subscription"]["plan"]["name"]
    assert row["created_at"].endswith("+00:00")
    assert row["connected_ai_models"] == [{"provider": "openai", "model": "gpt-4o", "is_default": True,
                                           "is_active": True, "display_name": "Work"}]
    assert body["items"][0]["connected_ai_models"] == []
    second = admin.get("/mfa/admin/users", query_string={"page": 2, "page_size": 2}).json
    assert [item["email"] for item in second["items"]] == ["admin@example.com"]
    assert second["items"][0]["plan_name"] is None and second["items"][0]["role"] == "admin"
    found = admin.get("/mfa/admin/users", query_string={"search": "OTHER"}).json
    assert found["total"] == 1 and found["items"][0]["email"] == "other@example.com"
    assert admin.get("/mfa/admin/users", query_string={"search": "%"}).json["total"] == 0


@pytest.mark.parametrize("query", [{"page": 0}, {"page": -1}, {"page_size": 0}, {"page_size": 101},
                                   {"page": "x"}, {"search": "x" * 201}])
def test_admin_list_bounds(admin, query):
    validation_errors(admin.get("/mfa/admin/users", query_string=query), where="query")


def test_admin_routes_are_for_admins(client, user):
    for method, path in (("GET", "/mfa/admin/users"), ("GET", "/mfa/admin/users/export"),
                         ("POST", f"/mfa/admin/users/{user.id}/reset-mfa")):
        assert error_detail(user.request(method, path), 403) == "Admin access required"
        assert error_detail(user.request(method, path, lang="es"), 403) == "Acceso restringido a administradores"
        error_detail(client.request(method, path), 401)


def test_export_is_a_localized_workbook_honouring_search(app, admin, user, other_user):
    enable_totp(user)
    _give_content(app, user.id, 1, ["mermaid", "d2"])
    response = admin.get("/mfa/admin/users/export", query_string={"search": "user@"}, lang="es")
    assert response.status_code == 200 and response.mimetype == XLSX
    assert response.headers["Content-Disposition"].startswith('attachment; filename="trazo_users_')
    sheet = load_workbook(io.BytesIO(response.data)).active
    assert sheet.title == "Usuarios"
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0][:5] == ("Correo", "Nombre completo", "Rol", "Plan", "Uso de licencia")
    assert len(rows) == 2
    assert rows[1][0] == "user@example.com" and rows[1][4] == "1 proyecto / 2 diagramas"
    assert rows[1][5:9] == ("Sí", "Sí", "TOTP", "TOTP") and rows[1][9] == 8

    english = load_workbook(io.BytesIO(admin.get("/mfa/admin/users/export").data)).active
    all_rows = list(english.iter_rows(values_only=True))
    assert "License Usage" in all_rows[0] and len(all_rows) == 4
    assert ("0 projects / 0 diagrams") in [row[4] for row in all_rows]


def test_export_keeps_formulas_out(app, admin, make_user):
    make_user(email="formula@example.com", full_name="=HYPERLINK(\"http://evil\",\"x\")")
    sheet = load_workbook(io.BytesIO(admin.get("/mfa/admin/users/export").data)).active
    cell = next(row[1] for row in sheet.iter_rows() if row[0].value == "formula@example.com")
    assert cell.data_type == "s" and cell.value.startswith("=HYPERLINK")


def test_export_drops_control_characters_a_spreadsheet_cannot_hold(app, admin, make_user):
    make_user(email="bell@example.com", full_name="Ada\x01 Love\x1flace")
    response = admin.get("/mfa/admin/users/export")
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    sheet = load_workbook(io.BytesIO(response.data)).active
    assert next(row[1].value for row in sheet.iter_rows() if row[0].value == "bell@example.com") == "Ada Lovelace"


def test_admin_reset_turns_mfa_off(client, admin, user, smtp_sink):
    enable_totp(user)
    token = mfa_token(client, user.email)
    smtp_sink.clear()
    response = admin.post(f"/mfa/admin/users/{user.id}/reset-mfa", lang="es")
    assert response.status_code == 200 and response.json["message"] == "MFA desactivado para user@example.com"
    assert "administrador" in smtp_sink.wait_for(user.email)["text"]
    assert user.get("/mfa/status").json == {"enabled": False, "methods": [], "default_method": None,
                                            "recovery_codes_remaining": 0}
    # The login that was waiting for a code is over; a new one needs no code.
    assert "expir" in error_detail(client.post("/mfa/verify", json={"mfa_token": token, "code": "123456"}), 401)
    assert "access_token" in sign_in(client, user.email).json
    again = admin.post(f"/mfa/admin/users/{user.id}/reset-mfa")
    assert again.json == {"message": "The user does not have MFA enabled"}


@pytest.mark.parametrize("user_id", [UNKNOWN_ID, "not-a-uuid", "x" * 300])
def test_admin_reset_of_an_unknown_user_is_404(admin, user_id):
    assert error_detail(admin.post(f"/mfa/admin/users/{user_id}/reset-mfa"), 404) == "User not found"
