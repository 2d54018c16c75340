"""Realistic data through the public API: a user with 20 projects x 20 diagrams, a 400-diagram project,
a shared link and a chat session with history."""
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import requests

PASSWORD = "Bench-Passw0rd!x"
MERMAID = "flowchart TD\n    A[Start] --> B{Valid?}\n    B -->|yes| C[Save]\n    B -->|no| D[Reject]\n    C --> E[End]"
GRAPHVIZ = "digraph G { rankdir=LR; a -> b -> c; b -> d; }"


@dataclass
class Seeded:
    email: str
    token: str
    project_ids: list = field(default_factory=list)
    diagram_ids: list = field(default_factory=list)
    big_project_id: str = ""
    share_token: str = ""
    image_token: str = ""  # a public link of a Graphviz diagram (the image link rows)
    chat_session_id: str = ""


def expect(response, *statuses):
    if response.status_code not in statuses:
        raise RuntimeError(f"{response.request.method} {response.url} -> {response.status_code}: "
                           f"{response.text[:300]}")
    return response.json() if response.content else None


class Api:
    def __init__(self, base_url, token=None):
        self.base = f"{base_url}/api/v1"
        self.session = requests.Session()
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"

    def post(self, path, **kwargs):
        return self.session.post(self.base + path, timeout=60, **kwargs)

    def get(self, path, **kwargs):
        return self.session.get(self.base + path, timeout=60, **kwargs)


def register_and_login(base_url, email=None):
    email = email or f"bench-{uuid.uuid4().hex[:10]}@example.com"
    anonymous = Api(base_url)
    expect(anonymous.post("/users/register", json={"email": email, "password": PASSWORD}), 201)
    token = expect(anonymous.post("/users/login", json={"email": email, "password": PASSWORD}), 200)["access_token"]
    return email, token


def create_diagrams(api, project_id, count, prefix):
    def create(index):
        body = {"title": f"{prefix} {index}", "content": MERMAID, "diagram_type": "mermaid",
                "description": f"Diagram {index} of the benchmark project."}
        return expect(api.post(f"/projects/{project_id}/diagrams", json=body), 201)["id"]

    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(create, range(count)))


def seed(base_url, projects=20, diagrams_per_project=20, big_project=400, chat_base_url=None):
    email, token = register_and_login(base_url)
    api = Api(base_url, token)
    seeded = Seeded(email, token)
    for index in range(projects):
        project = expect(api.post("/projects", json={"name": f"Project {index}", "emoji": "📊"}), 201)
        seeded.project_ids.append(project["id"])
        seeded.diagram_ids += create_diagrams(api, project["id"], diagrams_per_project, f"Diagram {index}")
    if big_project:
        project = expect(api.post("/projects", json={"name": "Big project"}), 201)
        seeded.big_project_id = project["id"]
        create_diagrams(api, project["id"], big_project, "Big")
    share = expect(api.post("/shared-links", json={"diagram_id": seeded.diagram_ids[0], "access_type": "public",
                                                    "expiration_days": None}), 201)
    seeded.share_token = share["token"]
    graph = expect(api.post(f"/projects/{seeded.project_ids[0]}/diagrams",
                            json={"title": "Image", "diagram_type": "graphviz", "content": GRAPHVIZ}), 201)
    image = expect(api.post("/shared-links", json={"diagram_id": graph["id"], "access_type": "public",
                                                    "expiration_days": None}), 201)
    seeded.image_token = image["token"]
    if chat_base_url:
        seeded.chat_session_id = seed_chat(api, seeded.diagram_ids[0], chat_base_url)
    return seeded


def seed_chat(api, diagram_id, openai_base_url):
    """An OpenAI-compatible provider pointing at the local fake, and a session with a few turns."""
    expect(api.post("/ai/providers", json={"provider": "openai_compatible", "api_key": "sk-bench-0123456789",
                                            "model": "bench-model", "base_url": openai_base_url}), 201)
    session = expect(api.post("/chat-sessions", json={"diagram_id": diagram_id, "title": "Bench"}), 201)
    session_id = session.get("id") or session.get("session", {}).get("id")
    for turn in range(3):
        expect(api.post(f"/chat-sessions/{session_id}/messages", json={
            "content": f"Explain step {turn}", "diagram_code": MERMAID, "diagram_type": "mermaid",
            "language": "en", "preset_action": "explain"}), 200, 201)
    return session_id
