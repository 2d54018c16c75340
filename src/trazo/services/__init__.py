"""Adapters to the outside world (render engines and Kroki, AI providers, the payment gateway, OAuth
providers, e-mail) and the outbound HTTP they share (outbound.py, egress/).

Every adapter keeps one contract (setup.cfg's import-linter contract "adapters" enforces the imports):

1. Settings come in as arguments: a dataclass or plain values built by core/ from the app's config
   (render: the config mapping; ai: CallSettings; payments: GatewaySettings; oauth: Defaults). An adapter
   never reads flask's current_app, and imports neither flask, flask_babel nor trazo.errors.
2. Failures go out as neutral exceptions in the adapter's errors.py, one class per meaning, carrying the
   facts (the provider's status, its reason, a line number, a Retry-After) and no user-facing text.
3. One mapping in core/ turns them into the API's statuses and localized texts: core/content/rendering.py
   render_failures, core/ai/failures.py provider_failures, core/billing/payments.py payment_failures (OAuth's
   ProviderUnavailable and ProviderRefused are still answered where they are caught, in api/oauth and
   api/integrations).

A new adapter: services/<name>/ with its client and errors.py; a core module that reads its settings,
calls it inside its mapping context manager and is what api/ imports; the texts' Spanish translations in
the area's .po file; tests through the HTTP API against a fake server on 127.0.0.1 (tests/fakes/).
"""
