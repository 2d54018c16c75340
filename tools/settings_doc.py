"""Write README.md's settings tables and .env.example from the settings declared in src/trazo/settings.py
(`make settings-doc`; `--check` only says whether they are stale). tests/platform/test_settings.py runs the check."""
import importlib.util
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
ENV_EXAMPLE = ROOT / ".env.example"
BEGIN = "<!-- settings:begin (written by `make settings-doc` from src/trazo/settings.py; edit the table there) -->"
END = "<!-- settings:end -->"


def load_settings():
    """src/trazo/settings.py on its own (it imports no module of ours), without importing the application."""
    spec = importlib.util.spec_from_file_location("trazo_settings_doc", ROOT / "src" / "trazo" / "settings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sections(settings):
    """[(title, [setting, ...]), ...] in the table's order."""
    grouped = {}
    for setting in settings:
        grouped.setdefault(setting.section, []).append(setting)
    return list(grouped.items())


def readme_tables(settings):
    lines = []
    for title, members in sections(settings):
        lines += ["", f"### {title}", "", "| Variable | Default | Meaning |", "|---|---|---|"]
        lines += [f"| `{setting.name}` | {setting.default_text()} | {setting.doc} |" for setting in members]
    return "\n".join([BEGIN, *lines, "", END])


def env_text(setting):
    """The setting's line in .env.example: its example, else its default as the environment spells it."""
    if setting.example is not None:
        example = setting.example
    elif callable(setting.default):
        example = "#"
    elif isinstance(setting.default, bool):
        example = str(setting.default).lower()
    elif setting.default in (None, [], ()):
        example = ""
    else:
        example = str(setting.default)
    if example.startswith("#"):
        return f"# {setting.name}={example[1:]}"
    return f"{setting.name}={example}"


def env_example(settings):
    lines = ["# Written by `make settings-doc` from src/trazo/settings.py: edit the table there, not this file.",
             "# Copy to your environment (the service reads real environment variables; see README.md)."]
    for title, members in sections(settings):
        lines += ["", f"# --- {title} ---"]
        for setting in members:
            lines += textwrap.wrap(setting.doc, width=116, initial_indent="# ", subsequent_indent="# ",
                                   break_on_hyphens=False)
            lines.append(env_text(setting))
    return "\n".join(lines) + "\n"


def readme_with_tables(readme, settings):
    start, end = readme.index(BEGIN), readme.index(END) + len(END)
    return readme[:start] + readme_tables(settings) + readme[end:]


def expected_files():
    """{path: the text `make settings-doc` writes}."""
    settings = load_settings().SETTINGS
    return {README: readme_with_tables(README.read_text(), settings), ENV_EXAMPLE: env_example(settings)}


def main(argv):
    stale = [path for path, text in expected_files().items() if path.read_text() != text]
    if "--check" in argv:
        for path in stale:
            print(f"{path.name} is stale: run `make settings-doc`")
        return 1 if stale else 0
    for path, text in expected_files().items():
        path.write_text(text)
    print(f"wrote {', '.join(path.name for path in stale) or 'nothing (up to date)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
