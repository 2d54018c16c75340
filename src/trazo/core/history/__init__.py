"""A diagram's history: how a change is saved (version check, revision, quota), the stored revisions, the
diffs between them, and reading them in batches (docs/history.md)."""
