"""An export with history never holds more than an import accepts: past the import's limits the oldest
revisions are left out, chosen from the sizes kept in the database, and the manifest and the summary say
so (docs/export-format.md, "History", "Limits of an export")."""
import io
import json
import random
import zipfile

from ...helpers import create_diagram, create_project
from .test_import import upload

MIB = 1024 * 1024
BIG = "graph TD\n%% " + "x" * 1_000_000  # 1 MB that compresses to about 1 KB
SMALL = "graph TD\n  A"
NOTE = ("The oldest {count} revisions were left out so that the archive can be imported again: an import reads "
        "at most 10000 history files and 50 MiB of uncompressed data, from an archive of at most {upload} MiB.")


def _inflate(web, project_id, title, copies, content=BIG):
    """A diagram whose large revision is restored and named `copies` times (the attack of issue 24)."""
    diagram = create_diagram(web, project_id, title=title, content=content)
    assert web.put(f"/diagrams/{diagram['id']}", json={"content": SMALL}).status_code == 200
    for copy in range(copies):
        assert web.post(f"/diagrams/{diagram['id']}/revisions/1/restore").status_code == 200
        assert web.post(f"/diagrams/{diagram['id']}/revisions", json={"label": f"copia {copy}"}).status_code == 201
        assert web.post(f"/diagrams/{diagram['id']}/revisions/2/restore").status_code == 200
    return diagram


def _export(web, project_id, **headers):
    response = web.get(f"/projects/{project_id}/export", query_string={"include_history": "true"}, **headers)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    return response


def _summary(web, project_id):
    response = web.get(f"/projects/{project_id}/export/summary", query_string={"include_history": "true"})
    assert response.status_code == 200, response.json
    return response.json


def _revisions(web, diagram_id):
    response = web.get(f"/diagrams/{diagram_id}/revisions", query_string={"page_size": 100})
    assert response.status_code == 200, response.json
    return response.json["items"]


def _kept(archive, root):
    """{diagram title: [revision numbers in the archive]} and the manifest."""
    manifest = json.loads(archive.read(f"{root}/manifest.json"))
    kept = {}
    for entry in manifest["diagrams"]:
        index = entry.get("history_path")
        revisions = json.loads(archive.read(f"{root}/{index}"))["revisions"] if index else []
        kept[entry["title"]] = [revision["number"] for revision in revisions]
    return kept, manifest


def test_an_inflated_history_exports_within_the_import_s_limits_and_imports_back(user, configure):
    # The rates and the cap on named revisions slow this down; the export must hold whatever is stored.
    configure(REVISION_COALESCE_SECONDS=0, RATE_LIMIT_REVISION_RESTORE="1000/minute",
              RATE_LIMIT_REVISION_LABEL="1000/minute")
    project = create_project(user, name="Inflado")
    diagrams = [_inflate(user, project["id"], f"Grande {n}", copies=15) for n in range(4)]  # 60 MB of history
    download = _export(user, project["id"])
    archive = zipfile.ZipFile(io.BytesIO(download.data))
    infos = archive.infolist()
    assert sum(info.file_size for info in infos) <= 50 * MIB
    assert len(download.data) <= 20 * MIB
    assert sum(1 for info in infos if "/.history/" in info.filename) <= 10_000

    kept, manifest = _kept(archive, "Inflado")
    stored = {diagram["title"]: _revisions(user, diagram["id"]) for diagram in diagrams}
    omitted = {title: len(stored[title]) - len(kept[title]) for title in stored}
    assert sum(omitted.values()) > 0
    assert manifest["history_omitted"] == {"revisions": sum(omitted.values()),
                                           "detail": NOTE.format(count=sum(omitted.values()), upload=20)}
    for entry in manifest["diagrams"]:
        assert entry.get("history_omitted", 0) == omitted[entry["title"]]
    # The oldest are left out: each diagram keeps its newest revisions, and nothing kept is older than
    # anything left out.
    for title, revisions in stored.items():
        numbers = sorted(revision["number"] for revision in revisions)
        assert kept[title] == numbers[len(numbers) - len(kept[title]):]
    kept_times = [r["created_at"] for t, rs in stored.items() for r in rs if r["number"] in kept[t]]
    left_times = [r["created_at"] for t, rs in stored.items() for r in rs if r["number"] not in kept[t]]
    assert max(left_times) <= min(kept_times)

    summary = _summary(user, project["id"])
    assert summary["history_omitted"] == manifest["history_omitted"]["revisions"]
    assert len(download.data) <= summary["size_bytes"]

    target = create_project(user, name="De vuelta")
    imported = upload(user, target["id"], [("Inflado.zip", download.data)])
    assert imported.status_code == 200, imported.json
    assert imported.json["diagram_count"] == 4
    assert sorted(d["revision_count"] for d in imported.json["diagrams"]) == sorted(len(k) for k in kept.values())


def test_past_the_upload_limit_the_oldest_revisions_are_left_out_and_the_manifest_says_so(user, configure):
    configure(REVISION_COALESCE_SECONDS=0, MAX_IMPORT_UPLOAD_BYTES=MIB)
    noise = random.Random(24)
    project = create_project(user, name="Ruido")
    diagram = create_diagram(user, project["id"], title="Ruido", content=SMALL)
    for _edit in range(4):
        content = "graph TD\n%% " + noise.randbytes(60_000).hex()  # about 70 KB compressed
        assert user.put(f"/diagrams/{diagram['id']}", json={"content": content}).status_code == 200
    summary = _summary(user, project["id"])
    assert summary["history_omitted"] == 0
    assert "history_omitted" not in json.loads(
        zipfile.ZipFile(io.BytesIO(_export(user, project["id"]).data)).read("Ruido/manifest.json"))

    for _edit in range(16):
        content = "graph TD\n%% " + noise.randbytes(60_000).hex()
        assert user.put(f"/diagrams/{diagram['id']}", json={"content": content}).status_code == 200
    download = _export(user, project["id"], lang="es")
    assert len(download.data) <= MIB
    archive = zipfile.ZipFile(io.BytesIO(download.data))
    kept, manifest = _kept(archive, "Ruido")
    numbers = sorted(revision["number"] for revision in _revisions(user, diagram["id"]))
    left_out = len(numbers) - len(kept["Ruido"])
    assert 0 < left_out < len(numbers) and kept["Ruido"] == numbers[left_out:]
    assert manifest["diagrams"][0]["history_omitted"] == left_out
    assert manifest["history_omitted"] == {
        "revisions": left_out,
        "detail": f"Se omitieron las {left_out} revisiones más antiguas para que el archivo pueda importarse de "
                  "nuevo: una importación lee como mucho 10000 archivos de historial y 50 MiB de datos sin "
                  "comprimir, de un archivo de como mucho 1 MiB."}
    summary = _summary(user, project["id"])
    assert summary["history_omitted"] == left_out and len(download.data) <= summary["size_bytes"]

    target = create_project(user, name="Copia")
    imported = upload(user, target["id"], [("Ruido.zip", download.data)])
    assert imported.status_code == 200, imported.json
    assert imported.json["diagrams"][0]["revision_count"] == len(kept["Ruido"])
