"""Mentions in comment bodies and the e-mails they and replies send (docs/comments.md, "Mentions").

Interface used by core/comments/threads.py (the bodies are filled in by the mentions work):
- `mentioned_members(workspace_id, body)`: [{"user_id", "full_name"}] of the workspace's members whose
  e-mail follows an `@` in `body` (non-members stay plain text);
- `notify(comment, diagram, author, root=None)`: queue, through the outbox, one e-mail per mentioned member
  and (on a reply, `root` the thread's root comment) per other participant of the thread, each in the
  recipient's language and honouring their notification choices; never the author. Called in the
  comment's transaction (the outbox sends after the commit).
"""


def mentioned_members(workspace_id, body):
    return []


def notify(comment, diagram, author, root=None):
    return None
