"""Mentions in comment bodies and the e-mails of mentions and replies (core/comments/mentions.py): members
only, any case, linear time on hostile bodies; one e-mail per recipient in their language, honouring their
choices, never the author."""
import time

import pytest
from sqlalchemy import update

from trazo.core.comments.mentions import MAX_MENTIONS, mentioned_addresses, mentioned_members, notify
from trazo.extensions import db
from trazo.models import User
from trazo.models.comments import Comment
from trazo.models.content import Diagram, Project
from trazo.models.workspaces import Membership

from ...helpers import create_diagram, create_project


@pytest.fixture
def team(make_team, user, other_user, make_user):
    third = make_user(email="Third.Person@Example.com", full_name="Third Person")
    workspace = make_team(user, members=[(other_user, "commenter"), (third, "editor")])
    project = create_project(user, name="Shared", workspace_id=workspace["id"])
    diagram = create_diagram(user, project["id"], title="Checkout <flow>")
    return {"workspace": workspace, "diagram": diagram, "third": third}


def _set(app, user_id, **values):
    with app.app_context():
        db.session.execute(update(User).where(User.id == user_id).values(**values))
        db.session.commit()


def _comment(author_id, diagram_id, body, parent_id=None, mentions=()):
    comment = Comment(diagram_id=diagram_id, parent_id=parent_id, author_id=author_id, body=body,
                      body_size=len(body.encode()), anchor={"type": "diagram"}, mentions=list(mentions))
    db.session.add(comment)
    db.session.flush()
    return comment


def _post(app, author, diagram_id, body, root=None):
    """Add a comment by `author` (a reply when `root`, an id) with its mentions and notify as the threads do;
    answers the comment id and how many e-mails were queued."""
    with app.test_request_context():
        diagram = db.session.get(Diagram, diagram_id)
        workspace_id = db.session.get(Project, diagram.project_id).workspace_id
        mentions = mentioned_members(workspace_id, body)
        comment = _comment(author.id, diagram_id, body, root, mentions)
        queued = notify(comment, diagram, db.session.get(User, author.id),
                        db.session.get(Comment, root) if root else None)
        comment_id = comment.id
        db.session.commit()
        return comment_id, queued


def test_members_are_mentioned_in_order_of_first_appearance_in_any_case_and_non_members_stay_text(
        app, team, user, other_user):
    body = (f"Ask @{team['third'].email.lower()}, then @{other_user.email.upper()}. "
            f"Not @stranger@example.com nor {user.email} without an at, again @{team['third'].email}!")
    with app.app_context():
        found = mentioned_members(team["workspace"]["id"], body)
    assert found == [{"user_id": team["third"].id, "full_name": "Third Person"},
                     {"user_id": other_user.id, "full_name": other_user.profile["full_name"]}]


def test_a_member_of_another_workspace_is_not_mentioned(app, team, make_user):
    outsider = make_user(email="outsider@example.com")
    with app.app_context():
        assert mentioned_members(team["workspace"]["id"], f"hi @{outsider.email}") == []


def test_trailing_punctuation_is_not_part_of_the_address_and_mentions_are_capped():
    assert mentioned_addresses("(cc @a@b.com), @C@D.ORG; x@y@z.com") == ["a@b.com", "c@d.org"]
    many = " ".join(f"@u{i}@example.com" for i in range(MAX_MENTIONS + 20))
    assert len(mentioned_addresses(many)) == MAX_MENTIONS


@pytest.mark.parametrize("hostile", ["@" * 10_000, "@a" * 5_000, "@" + "a" * 9_999, ("@" + "a" * 63) * 156,
                                     "@a@" + "b@" * 4_998, ("@" + "x" * 64 + "@" + "y" * 255 + " ") * 30])
def test_a_hostile_body_of_ten_thousand_characters_is_read_in_linear_time(hostile):
    started = time.perf_counter()
    mentioned_addresses(hostile)
    assert time.perf_counter() - started < 0.2


def test_a_mention_e_mails_the_member_in_their_language_with_the_link_and_the_quoted_body(
        app, team, user, other_user, smtp_sink):
    _set(app, other_user.id, language="es")
    body = f"@{other_user.email} look at <b>this</b> & that\nsecond line"
    comment_id, queued = _post(app, user, team["diagram"]["id"], body)
    assert queued == 1
    [message] = smtp_sink.wait_for(other_user.email) and smtp_sink.to(other_user.email)
    link = f"http://localhost:5173/diagrams/{team['diagram']['id']}#comment-{comment_id}"
    assert message["subject"] == f"{user.profile['full_name']} le mencionó en «Checkout <flow>»"
    assert link in message["text"] and f'href="{link}"' in message["html"]
    assert "le mencionó en un comentario del diagrama «Checkout <flow>»" in message["text"]
    assert "> second line" in message["text"] and "<b>this</b> & that" in message["text"]
    assert "&lt;b&gt;this&lt;/b&gt; &amp; that" in message["html"] and "<b>this</b>" not in message["html"]
    assert "Checkout &lt;flow&gt;" in message["html"]
    assert smtp_sink.to(user.email) == []


def test_a_mention_e_mail_falls_back_to_the_default_language(app, team, user, other_user, smtp_sink):
    _set(app, other_user.id, language=None)
    _post(app, user, team["diagram"]["id"], f"hey @{other_user.email}")
    message = smtp_sink.wait_for(other_user.email)
    assert message["subject"].endswith("mentioned you on \"Checkout <flow>\"")
    assert "Open the comment here:" in message["text"]


def test_the_author_mentioning_themselves_gets_no_e_mail(app, team, user, smtp_sink):
    _, queued = _post(app, user, team["diagram"]["id"], f"note to self @{user.email}")
    assert queued == 0
    time.sleep(0.3)
    assert smtp_sink.messages == []


def test_a_member_who_turned_mentions_off_gets_no_mention_e_mail(app, team, user, other_user, smtp_sink):
    _set(app, other_user.id, notify_comment_mentions=False)
    _, queued = _post(app, user, team["diagram"]["id"], f"@{other_user.email} and @{team['third'].email}")
    assert queued == 1
    smtp_sink.wait_for(team["third"].email)
    assert smtp_sink.to(other_user.email) == []


def test_a_reply_e_mails_the_other_participants_once_each_and_not_its_author(
        app, team, user, other_user, smtp_sink):
    third = team["third"]
    diagram_id = team["diagram"]["id"]
    root, _ = _post(app, user, diagram_id, "root by the owner")
    _post(app, other_user, diagram_id, "first reply", root=root)
    _post(app, user, diagram_id, "owner answers", root=root)
    smtp_sink.clear()
    # The third member replies and mentions the owner: the owner gets the mention only, other_user the reply.
    _, queued = _post(app, third, diagram_id, f"@{user.email} agreed", root=root)
    assert queued == 2
    [to_owner] = [smtp_sink.wait_for(user.email)] and smtp_sink.to(user.email)
    assert "mentioned you" in to_owner["subject"]
    [to_other] = [smtp_sink.wait_for(other_user.email)] and smtp_sink.to(other_user.email)
    assert to_other["subject"] == "Third Person replied on \"Checkout <flow>\""
    assert "agreed" in to_other["text"]
    assert smtp_sink.to(third.email) == []


def test_a_participant_who_turned_replies_off_or_left_the_workspace_gets_no_reply_e_mail(
        app, team, user, other_user, smtp_sink):
    diagram_id = team["diagram"]["id"]
    root, _ = _post(app, other_user, diagram_id, "root")
    _post(app, team["third"], diagram_id, "reply", root=root)
    _set(app, other_user.id, notify_comment_replies=False)
    with app.app_context():
        db.session.execute(Membership.__table__.delete().where(Membership.user_id == team["third"].id,
                                                               Membership.workspace_id == team["workspace"]["id"]))
        db.session.commit()
    smtp_sink.clear()
    _, queued = _post(app, user, diagram_id, "owner replies", root=root)
    assert queued == 0
