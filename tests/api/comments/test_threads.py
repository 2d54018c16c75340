"""Comment threads (docs/comments.md): create, list, reply, edit, delete, resolve and reopen by role."""
import pytest

from trazo.core.billing.plans import find_free_plan
from trazo.core.billing.quotas import COMMENT_OVERHEAD_BYTES
from trazo.extensions import db

from ...helpers import create_diagram, error_detail, validation_errors
from .conftest import comment, threads


def test_a_commenter_opens_a_thread_and_a_viewer_reads_it(diagram, member):
    writer, reader = member("commenter", "Carla Commenter"), member("viewer")
    made = comment(writer, diagram["id"], "Is B right?\n<b>not html</b>")
    assert made["body"] == "Is B right?\n<b>not html</b>"
    assert made["author"] == {"id": writer.id, "full_name": "Carla Commenter"}
    assert made["anchor"] == {"type": "diagram"} and made["parent_id"] is None
    assert made["resolved"] is False and made["resolved_by"] is None and made["mentions"] == []
    listed = threads(reader, diagram["id"])
    assert listed["total"] == 1 and listed["items"][0]["id"] == made["id"]
    assert listed["items"][0]["replies"] == []


def test_threads_list_newest_first_with_replies_oldest_first_and_page(user, diagram):
    first, second = comment(user, diagram["id"], "one"), comment(user, diagram["id"], "two")
    replies = [user.post(f"/comments/{first['id']}/replies", json={"body": text}).json for text in ("a", "b")]
    listed = threads(user, diagram["id"])
    assert [item["id"] for item in listed["items"]] == [second["id"], first["id"]]
    assert [reply["id"] for reply in listed["items"][1]["replies"]] == [reply["id"] for reply in replies]
    assert replies[0]["parent_id"] == first["id"]
    page = threads(user, diagram["id"], page=2, page_size=1)
    assert page["total"] == 2 and page["total_pages"] == 2 and [item["id"] for item in page["items"]] == [first["id"]]


def test_resolve_and_reopen_move_a_thread_between_the_statuses(user, diagram, member):
    writer = member("commenter", "Rita Resolver")
    made = comment(user, diagram["id"])
    resolved = writer.post(f"/comments/{made['id']}/resolve")
    assert resolved.status_code == 200, resolved.json
    assert resolved.json["resolved"] is True and resolved.json["resolved_by"] == {"id": writer.id,
                                                                                  "full_name": "Rita Resolver"}
    assert threads(user, diagram["id"])["total"] == 0
    assert [item["id"] for item in threads(user, diagram["id"], status="resolved")["items"]] == [made["id"]]
    assert threads(user, diagram["id"], status="all")["total"] == 1
    reopened = writer.post(f"/comments/{made['id']}/reopen")
    assert reopened.json["resolved"] is False and reopened.json["resolved_by"] is None
    assert threads(user, diagram["id"])["total"] == 1


def test_replies_resolving_and_reopening_take_a_threads_first_comment_only(user, diagram):
    root = comment(user, diagram["id"])
    reply = user.post(f"/comments/{root['id']}/replies", json={"body": "yes"}).json
    for path in ("replies", "resolve", "reopen"):
        response = user.post(f"/comments/{reply['id']}/{path}", json={"body": "deeper"})
        error_detail(response, 409)


def test_only_its_author_edits_a_comment(user, diagram, member):
    writer = member("commenter")
    made = comment(writer, diagram["id"], "typo")
    edited = writer.put(f"/comments/{made['id']}", json={"body": "fixed"})
    assert edited.status_code == 200 and edited.json["body"] == "fixed"
    assert threads(user, diagram["id"])["items"][0]["body"] == "fixed"
    refused = user.put(f"/comments/{made['id']}", json={"body": "owner's word"})
    error_detail(refused, 403, "not_comment_author")
    spanish = user.put(f"/comments/{made['id']}", json={"body": "x"}, lang="es")
    assert error_detail(spanish, 403, "not_comment_author") == "Solo su autor puede editar un comentario."
    assert threads(user, diagram["id"])["items"][0]["body"] == "fixed"


def test_an_author_or_an_admin_deletes_and_a_root_takes_its_replies(user, diagram, member):
    writer, other, admin = member("commenter"), member("commenter"), member("admin")
    made = comment(writer, diagram["id"])
    writer.post(f"/comments/{made['id']}/replies", json={"body": "reply"})
    error_detail(other.delete(f"/comments/{made['id']}"), 403, "insufficient_role")
    assert admin.delete(f"/comments/{made['id']}").status_code == 204
    assert threads(user, diagram["id"], status="all")["total"] == 0
    own = comment(other, diagram["id"])
    assert other.delete(f"/comments/{own['id']}").status_code == 204
    assert other.get(f"/diagrams/{diagram['id']}/comments").json["total"] == 0


def test_a_viewer_reads_but_writes_nothing(user, diagram, member):
    viewer = member("viewer")
    made = comment(user, diagram["id"])
    error_detail(viewer.post(f"/diagrams/{diagram['id']}/comments", json={"body": "x"}), 403, "insufficient_role")
    for method, path in (("post", "replies"), ("post", "resolve"), ("post", "reopen")):
        error_detail(getattr(viewer, method)(f"/comments/{made['id']}/{path}", json={"body": "x"}), 403,
                     "insufficient_role")
    error_detail(viewer.put(f"/comments/{made['id']}", json={"body": "x"}), 403, "insufficient_role")
    error_detail(viewer.delete(f"/comments/{made['id']}"), 403, "insufficient_role")
    assert threads(user, diagram["id"])["items"][0]["body"] == "Looks good"


def test_a_non_member_finds_neither_the_diagram_nor_its_comments(user, other_user, diagram):
    made = comment(user, diagram["id"])
    error_detail(other_user.get(f"/diagrams/{diagram['id']}/comments"), 404)
    error_detail(other_user.post(f"/diagrams/{diagram['id']}/comments", json={"body": "x"}), 404)
    error_detail(other_user.post(f"/comments/{made['id']}/replies", json={"body": "x"}), 404)
    error_detail(other_user.put(f"/comments/{made['id']}", json={"body": "x"}), 404)
    error_detail(other_user.delete(f"/comments/{made['id']}"), 404)
    assert threads(user, diagram["id"])["total"] == 1


def test_without_a_token_every_comment_route_answers_401(client, user, diagram):
    made = comment(user, diagram["id"])
    assert client.get(f"/diagrams/{diagram['id']}/comments").status_code == 401
    assert client.post(f"/diagrams/{diagram['id']}/comments", json={"body": "x"}).status_code == 401
    assert client.post(f"/comments/{made['id']}/replies", json={"body": "x"}).status_code == 401
    assert client.put(f"/comments/{made['id']}", json={"body": "x"}).status_code == 401
    assert client.delete(f"/comments/{made['id']}").status_code == 401


@pytest.mark.parametrize("body", ["", "   \n", "x" * 10_001, None, 5])
def test_a_body_empty_blank_too_long_or_not_text_is_refused(user, diagram, body):
    validation_errors(user.post(f"/diagrams/{diagram['id']}/comments", json={"body": body}), "body")
    assert threads(user, diagram["id"])["total"] == 0


def test_a_body_of_ten_thousand_characters_is_kept_as_written(user, diagram):
    body = "ñ" * 10_000
    assert comment(user, diagram["id"], body)["body"] == body


@pytest.mark.parametrize("anchor", [
    {"type": "lines", "start_line": 0, "end_line": 1}, {"type": "lines", "start_line": 3, "end_line": 2},
    {"type": "lines", "start_line": 1}, {"type": "lines", "start_line": "1", "end_line": 2},
    {"type": "lines", "start_line": 6, "end_line": 7}, {"type": "element"}, {"type": "shape"},
    {"type": "element", "element_id": ""}])
def test_a_bad_anchor_is_refused(user, diagram, anchor):
    response = user.post(f"/diagrams/{diagram['id']}/comments", json={"body": "x", "anchor": anchor})
    validation_errors(response, "anchor")
    assert threads(user, diagram["id"])["total"] == 0


def test_a_status_outside_the_three_is_refused(user, diagram):
    validation_errors(user.get(f"/diagrams/{diagram['id']}/comments?status=closed"), "status", where="query")


def test_comment_writes_share_a_per_user_rate(user, diagram, configure):
    configure(RATE_LIMIT_COMMENTS="2/minute")
    made = comment(user, diagram["id"])
    assert user.post(f"/comments/{made['id']}/replies", json={"body": "r"}).status_code == 201
    refused = user.put(f"/comments/{made['id']}", json={"body": "edit"})
    assert refused.status_code == 429
    assert user.get(f"/diagrams/{diagram['id']}/comments").status_code == 200


def _usage(web):
    return web.get("/subscriptions/usage").json["storage"]["current"]


def _free_storage_mb(app, megabytes):
    with app.app_context():
        find_free_plan().max_storage_mb = megabytes
        db.session.commit()


def test_comments_count_in_the_billing_owners_storage_and_are_refused_past_it(app, user, project, diagram, member):
    _free_storage_mb(app, 1)
    writer = member("commenter")
    before = _usage(user)
    made = comment(writer, diagram["id"], "ñandú")  # 7 bytes
    assert _usage(user) == before + 7 + COMMENT_OVERHEAD_BYTES
    filler = 1_048_576 - _usage(user) - 8_000
    create_diagram(user, project["id"], title="Filler", content="a" * filler)
    room = 1_048_576 - _usage(user)
    assert COMMENT_OVERHEAD_BYTES < room < 8_000, room
    too_long = "b" * (room - COMMENT_OVERHEAD_BYTES + 1)
    refused = writer.post(f"/diagrams/{diagram['id']}/comments", json={"body": too_long})
    assert refused.status_code == 403 and refused.json["detail"]["resource_type"] == "storage"
    error_detail(writer.put(f"/comments/{made['id']}", json={"body": "b" * (room + 8)}), 403)  # grows by room + 1
    assert writer.put(f"/comments/{made['id']}", json={"body": "ok"}).status_code == 200  # shrinking is allowed
    assert comment(writer, diagram["id"], "b" * (room - COMMENT_OVERHEAD_BYTES))["id"]


def test_a_comment_mentions_members_by_e_mail_and_e_mails_them_in_their_language(user, diagram, member,
                                                                                smtp_sink, make_user):
    mentioned, outsider = member("viewer", "Vera Viewer"), make_user(full_name="Otto Outsider")
    mentioned.get("/users/me", headers={"Accept-Language": "es"})  # the account's language is recorded
    made = comment(user, diagram["id"], f"@{mentioned.email.upper()} and @{outsider.email}, look at B.")
    assert made["mentions"] == [{"user_id": mentioned.id, "full_name": "Vera Viewer"}]
    message = smtp_sink.wait_for(mentioned.email)
    assert f"/diagrams/{diagram['id']}#comment-{made['id']}" in message["text"]
    assert "le mencionó en «Flow»" in message["subject"]
    assert smtp_sink.to(outsider.email) == []
