"""E-mail: composing localized messages, the outbox they wait in, and their delivery (the transports are
services/email; docs/operations.md, "E-mail outbox")."""
