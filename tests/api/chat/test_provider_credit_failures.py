"""A quota or balance error of the provider ends a chat stream as `no_credits`, worded as credits, not as a
rate limit (issue 26 item 3; the generation routes: tests/api/ai/test_provider_credit_failures.py)."""
import pytest

from ..ai.test_provider_credit_failures import NO_CREDITS
from .conftest import add_provider, message_body, new_session, parse_sse


@pytest.mark.parametrize(("provider", "server", "status", "body", "label"), NO_CREDITS,
                         ids=[case[0] for case in NO_CREDITS])
def test_a_chat_stream_ends_with_no_credits_for_a_quota_or_balance_error(user, diagram, fake_providers, provider,
                                                                         server, status, body, label):
    add_provider(user, provider, model="any-model")
    session = new_session(user, diagram["id"])
    fake_providers.reset()
    getattr(fake_providers, server).reply(status=status, error=body, headers={"Retry-After": "20"})
    response = user.post(f"/chat-sessions/{session['id']}/messages/stream", json=message_body(), lang="es")
    assert response.status_code == 200
    events, _comments = parse_sse(response.get_data(as_text=True))
    assert events[-1] == {"type": "error", "error_code": "no_credits",
                          "message": f"Tu cuenta de {label} no tiene créditos. Añade créditos o usa otro proveedor."}
