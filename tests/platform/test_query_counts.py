"""No N+1: the list and detail reads run the same number of SQL statements for 2 rows as for 20."""
import hashlib

from trazo.core.workspaces.personal import personal_workspace_id
from trazo.extensions import db
from trazo.models.ai import PromptHistory
from trazo.models.chat import ChatMessage, ChatSession
from trazo.models.content import Diagram, Folder, Project


def _fill(user, rows):
    """A project with a folder of `rows` diagrams, `rows` prompts, `rows` chat sessions (one with
    `rows` messages); returns the ids the reads need."""
    with user.flask_client.application.app_context():
        project = Project(workspace_id=personal_workspace_id(user.id), user_id=user.id, name="P")
        db.session.add(project)
        db.session.flush()
        folder = Folder(project_id=project.id, name="F")
        db.session.add(folder)
        db.session.flush()
        diagrams = [Diagram(project_id=project.id, folder_id=folder.id, title=f"D{n}", diagram_type="mermaid")
                    for n in range(rows)]
        db.session.add_all(diagrams)
        db.session.flush()
        for n in range(rows):
            text = f"prompt {n}"
            db.session.add(PromptHistory(user_id=user.id, diagram_id=diagrams[n].id, prompt_text=text,
                                         prompt_hash=hashlib.sha256(text.encode()).hexdigest(),
                                         operation_type="creation"))
        sessions = [ChatSession(user_id=user.id, diagram_id=diagrams[0].id, title=f"S{n}") for n in range(rows)]
        db.session.add_all(sessions)
        db.session.flush()
        db.session.add_all(ChatMessage(session_id=sessions[0].id, role=("user", "assistant")[n % 2],
                                       content=f"message {n}") for n in range(rows))
        db.session.commit()
        return {"folder": folder.id, "diagram": diagrams[0].id, "session": sessions[0].id}


def _reads(ids):
    return ["/diagrams/recent", f"/folders/{ids['folder']}", "/prompt-history?page_size=100",
            f"/chat-sessions?diagram_id={ids['diagram']}", f"/chat-sessions/{ids['session']}"]


def _statements(user, count_queries, path):
    with count_queries() as counted:
        response = user.get(path)
    assert response.status_code == 200, (path, response.json)
    return counted.count


def test_reads_run_a_constant_number_of_statements(user, other_user, count_queries):
    small, big = _fill(other_user, 2), _fill(user, 20)
    for small_path, big_path in zip(_reads(small), _reads(big), strict=True):
        assert _statements(other_user, count_queries, small_path) == _statements(user, count_queries, big_path), \
            big_path
    assert len(user.get(f"/folders/{big['folder']}").json["diagrams"]) == 20
    assert len(user.get(f"/chat-sessions/{big['session']}").json["messages"]) == 20
