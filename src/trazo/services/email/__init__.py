"""Outgoing e-mail transports: console and SMTP backends, Resend's HTTP API, and an SMTP connection
check. Choosing the backend in force and rendering templates is core's (core/mail/compose.py)."""
