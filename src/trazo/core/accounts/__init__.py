"""Accounts: registration, passwords, second factors, the sign-in step, session and personal tokens, the
audit log, and the OAuth providers a sign-in may use (docs/glossary.md names each)."""
