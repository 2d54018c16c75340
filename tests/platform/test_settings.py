"""One declared settings table (src/trazo/settings.py): the code reads no environment variable the table does not
declare, the README tables and .env.example are what `make settings-doc` writes, rate limits are real settings
checked at start, and the version has one declaration (setup.cfg)."""
import ast
import importlib.metadata
import importlib.util
import re
from pathlib import Path

import pytest

from trazo.config import ConfigError, load_config
from trazo.settings import BY_NAME, LIMIT, SETTINGS

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [*sorted((ROOT / "src" / "trazo").rglob("*.py")), ROOT / "gunicorn.conf.py", ROOT / "wsgi.py"]
# Read by the table's own reader, or not settings: the PATH engines inherit, and the directory gunicorn.conf.py
# tells itself to remove on exit.
TABLE_READER = ROOT / "src" / "trazo" / "settings.py"
NOT_SETTINGS = {"PATH", "TRAZO_METRICS_TEMP_DIR"}


def _environment(node):
    """True for `os.environ` and `env` (the mapping create_app and load_config receive); a WSGI `environ` is
    a request, not the environment."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name)
            and node.value.id == "os") or (isinstance(node, ast.Name) and node.id == "env")


def _key(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def environment_reads(path):
    """[(line, name or None)] of every read of the environment in `path`: `.get(...)`, `[...]`, getenv."""
    reads = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("get", "pop", "setdefault") and _environment(node.func.value):
                reads.append((node.lineno, _key(node.args[0]) if node.args else None))
            elif node.func.attr == "getenv":
                reads.append((node.lineno, _key(node.args[0]) if node.args else None))
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _environment(node.value):
            reads.append((node.lineno, _key(node.slice)))
    return reads


def test_every_environment_read_goes_through_the_declared_table():
    stray = [f"{path.relative_to(ROOT)}:{line} reads {name or 'a computed name'}"
             for path in SOURCES if path != TABLE_READER
             for line, name in environment_reads(path) if name not in NOT_SETTINGS]
    assert stray == []


def test_every_setting_is_declared_once_with_a_section_a_kind_and_a_line_of_doc():
    names = [setting.name for setting in SETTINGS]
    assert len(names) == len(set(names))
    assert [setting.name for setting in SETTINGS if not (setting.section and setting.kind and setting.doc)] == []
    assert len(SETTINGS) >= 125


def test_every_config_key_the_code_reads_is_built_by_load_config(tmp_path):
    config = load_config({"APP_ENV": "testing"}, str(tmp_path))
    read = set()
    for path in SOURCES:
        read |= set(re.findall(r"config\[\"([A-Z][A-Z0-9_]+)\"\]", path.read_text()))
        read |= set(re.findall(r"config\.get\(\"([A-Z][A-Z0-9_]+)\"", path.read_text()))
    assert sorted(read - set(config)) == []


def _settings_doc():
    spec = importlib.util.spec_from_file_location("settings_doc", ROOT / "tools" / "settings_doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["README.md", ".env.example"])
def test_the_generated_settings_documents_are_what_make_settings_doc_writes(name):
    expected = {path.name: text for path, text in _settings_doc().expected_files().items()}
    assert (ROOT / name).read_text() == expected[name], f"{name} is stale: run `make settings-doc`"


def test_the_readme_documents_every_declared_setting_and_only_those():
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("<!-- settings:begin"):readme.index("<!-- settings:end -->")]
    assert re.findall(r"^\| `([A-Z0-9_]+)` \|", table, re.MULTILINE) == [setting.name for setting in SETTINGS]


def test_a_rate_limit_set_in_the_environment_replaces_its_default(tmp_path):
    config = load_config({"APP_ENV": "testing", "RATE_LIMIT_LOGIN": "3/hour",
                          "RATE_LIMIT_EXPORT_IMAGES": "1/10 minutes"}, str(tmp_path))
    assert config["RATE_LIMIT_LOGIN"] == "3/hour"
    assert config["RATE_LIMIT_EXPORT_IMAGES"] == "1/10 minutes"
    assert config["RATE_LIMIT_REGISTER"] == "20/hour"


def test_every_rate_limit_is_a_declared_setting_with_a_valid_default(tmp_path):
    config = load_config({"APP_ENV": "testing"}, str(tmp_path))
    limits = {name for name in config if name.startswith("RATE_LIMIT_")}
    assert limits == {setting.name for setting in SETTINGS if setting.kind == LIMIT}
    assert len(limits) == 31


@pytest.mark.parametrize("value", ["ten per minute", "10/fortnight", "/minute"])
def test_a_rate_limit_that_does_not_parse_refuses_to_start_naming_the_setting(tmp_path, value):
    with pytest.raises(ConfigError, match=r"^RATE_LIMIT_RENDER must be a rate limit such as 10/minute"):
        load_config({"APP_ENV": "testing", "RATE_LIMIT_RENDER": value}, str(tmp_path))


def test_mermaid_pages_is_a_setting(tmp_path):
    assert BY_NAME["MERMAID_PAGES"].section == "Rendering"
    assert load_config({"APP_ENV": "testing", "MERMAID_PAGES": "3"}, str(tmp_path))["MERMAID_PAGES"] == 3


@pytest.mark.parametrize(("env", "message"), [
    ({"RENDER_SLOTS": "six"}, "RENDER_SLOTS must be an integer, got 'six'"),
    ({"LOG_FORMAT": "xml"}, "LOG_FORMAT must be one of text, json, got 'xml'"),
    ({"SENTRY_TRACES_SAMPLE_RATE": "2"}, "SENTRY_TRACES_SAMPLE_RATE must be a number between 0 and 1, got '2'"),
    ({"METRICS_ALLOWED_NETWORKS": "10.0.0.1/8"}, "METRICS_ALLOWED_NETWORKS: '10.0.0.1/8' is not a network"),
    ({"APP_ENV": "staging"}, "APP_ENV must be one of production, development, testing, got 'staging'"),
])
def test_an_invalid_setting_refuses_to_start_with_the_same_message_as_before(tmp_path, env, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config({"APP_ENV": "testing", **env}, str(tmp_path))


def test_the_version_comes_from_the_package_metadata(client):
    response = client.get("/")
    assert response.status_code == 200
    assert response.json["version"] == importlib.metadata.version("trazo")


def test_the_version_is_declared_once_in_setup_cfg():
    version = importlib.metadata.version("trazo")
    copies = [str(path.relative_to(ROOT)) for path in [*SOURCES, ROOT / "pyproject.toml"]
              if re.search(rf"[\"']{re.escape(version)}[\"']", path.read_text())]
    assert copies == []
    assert f"version = {version}" in (ROOT / "setup.cfg").read_text()
