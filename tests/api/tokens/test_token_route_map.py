"""Every route of the API either takes a personal access token (with the scope it needs) or refuses it:
the table below names each one, so a new route that nobody classified fails here, and each route is
called with a read and a write token to show it does what the table says."""
import re

import pytest

from ...helpers import UNKNOWN_ID

# METHOD path  ->  public (no credential needed: a token changes nothing), read, write, refused.
ROUTES = """
    GET /admin/audit-log                                         refused
    GET /admin/integrations/status                               refused
    GET /admin/integrations/vendors                              refused
    POST /admin/integrations/vendors                             refused
    DELETE /admin/integrations/vendors/{vendor_id}               refused
    PUT /admin/integrations/vendors/{vendor_id}                  refused
    GET /admin/integrations/vendors/{vendor_id}/config           refused
    PUT /admin/integrations/vendors/{vendor_id}/set-default      refused
    POST /admin/integrations/vendors/{vendor_id}/test            refused
    GET /admin/plans                                             refused
    POST /admin/plans                                            refused
    DELETE /admin/plans/{plan_id}                                refused
    PUT /admin/plans/{plan_id}                                   refused
    POST /admin/plans/{plan_id}/prices                           refused
    DELETE /admin/plans/{plan_id}/prices/{currency}              refused
    POST /ai/generate-description                                refused
    POST /ai/generate-diagram                                    refused
    POST /ai/improve-diagram                                     refused
    POST /ai/providers                                           refused
    DELETE /ai/providers/{provider_index}                        refused
    PUT /ai/providers/{provider_index}                           refused
    POST /ai/refine-description                                  refused
    GET /ai/settings                                             refused
    PUT /ai/settings/auto-fix                                    refused
    PUT /ai/settings/default-provider                            refused
    POST /ai/test-provider                                       refused
    GET /chat-sessions                                           refused
    POST /chat-sessions                                          refused
    GET /chat-sessions/stats/provider-usage                      refused
    DELETE /chat-sessions/{session_id}                           refused
    GET /chat-sessions/{session_id}                              refused
    PUT /chat-sessions/{session_id}                              refused
    POST /chat-sessions/{session_id}/messages                    refused
    POST /chat-sessions/{session_id}/messages/stream             refused
    DELETE /chat-sessions/{session_id}/messages/{message_id}     refused
    PUT /chat-sessions/{session_id}/messages/{message_id}/status refused
    PUT /chat-sessions/{session_id}/model                        refused
    POST /diagrams/convert                                       refused
    GET /diagrams/recent                                         read
    POST /diagrams/render                                        public
    POST /events/tickets                                         refused
    GET /diagrams/render/engines                                 public
    DELETE /comments/{comment_id}                                write
    PUT /comments/{comment_id}                                   write
    POST /comments/{comment_id}/reopen                           write
    POST /comments/{comment_id}/replies                          write
    POST /comments/{comment_id}/resolve                          write
    DELETE /diagrams/{diagram_id}                                write
    GET /diagrams/{diagram_id}                                   read
    PUT /diagrams/{diagram_id}                                   write
    POST /diagrams/{diagram_id}/duplicate                        write
    POST /diagrams/{diagram_id}/fix                              refused
    GET /diagrams/{diagram_id}/comments                          read
    POST /diagrams/{diagram_id}/comments                         write
    GET /diagrams/{diagram_id}/events                            refused
    GET /diagrams/{diagram_id}/image.{fmt}                       read
    POST /diagrams/{diagram_id}/move                             write
    GET /diagrams/{diagram_id}/revisions                         read
    POST /diagrams/{diagram_id}/revisions                        write
    GET /diagrams/{diagram_id}/revisions/{number}                read
    PUT /diagrams/{diagram_id}/revisions/{number}                write
    GET /diagrams/{diagram_id}/revisions/{number}/diff           read
    POST /diagrams/{diagram_id}/revisions/{number}/restore       write
    DELETE /folders/{folder_id}                                  write
    GET /folders/{folder_id}                                     read
    PUT /folders/{folder_id}                                     write
    GET /invitations/{token}                                     refused
    POST /invitations/{token}/accept                             refused
    POST /invite-links/{token}/join                              refused
    GET /mfa/admin/users                                         refused
    GET /mfa/admin/users/export                                  refused
    POST /mfa/admin/users/{user_id}/reset-mfa                    refused
    PUT /mfa/default-method                                      refused
    POST /mfa/disable                                            refused
    POST /mfa/enable-email                                       refused
    POST /mfa/enable-totp                                        refused
    POST /mfa/regenerate-recovery-codes                          refused
    POST /mfa/resend-email-code                                  public
    POST /mfa/setup-totp                                         refused
    GET /mfa/status                                              refused
    POST /mfa/switch-method                                      public
    POST /mfa/verify                                             public
    POST /mfa/verify-email-activation                            refused
    GET /oauth/authorize/{provider}                              public
    POST /oauth/callback                                         public
    GET /oauth/providers                                         public
    GET /plans                                                   public
    GET /plans/{plan_id}                                         public
    GET /projects                                                read
    POST /projects                                               write
    DELETE /projects/{project_id}                                write
    GET /projects/{project_id}                                   read
    PUT /projects/{project_id}                                   write
    POST /projects/{project_id}/diagrams                         write
    GET /projects/{project_id}/export                            read
    GET /projects/{project_id}/export/summary                    read
    GET /projects/{project_id}/files                             read
    DELETE /projects/{project_id}/files/{file_path}              write
    GET /projects/{project_id}/files/{file_path}                 read
    PUT /projects/{project_id}/files/{file_path}                 write
    POST /projects/{project_id}/folders                          write
    POST /projects/{project_id}/import                           write
    POST /projects/{project_id}/sync                             write
    POST /projects/{project_id}/transfer                         write
    GET /prompt-history                                          read
    POST /prompt-history                                         write
    DELETE /prompt-history/{entry_id}                            write
    GET /search                                                  read
    POST /shared-links                                           refused
    GET /shared-links/diagram/{diagram_id}                       refused
    DELETE /shared-links/{link_id}                               refused
    PUT /shared-links/{link_id}                                  refused
    GET /shared/{token}/diagram                                  public
    GET /shared/{token}/image.{fmt}                              public
    GET /shared/{token}/info                                     public
    POST /shared/{token}/verify                                  public
    GET /subscriptions/billing-history                           refused
    POST /subscriptions/cancel                                   refused
    POST /subscriptions/checkout                                 refused
    GET /subscriptions/invoices/{invoice_id}/pdf-url             refused
    GET /subscriptions/me                                        refused
    POST /subscriptions/update-payment-method                    refused
    GET /subscriptions/usage                                     refused
    GET /users/admin-count                                       public
    PUT /users/change-password                                   refused
    GET /users/installation-status                               public
    POST /users/login                                            public
    DELETE /users/me                                             refused
    GET /users/me                                                refused
    PUT /users/me                                                refused
    GET /users/me/connected-apps                                 refused
    DELETE /users/me/connected-apps/{grant_id}                   refused
    GET /users/me/notifications                                  refused
    PUT /users/me/notifications                                  refused
    GET /users/me/tokens                                         refused
    POST /users/me/tokens                                        refused
    DELETE /users/me/tokens/{token_id}                           refused
    POST /users/register                                         public
    POST /users/reset-password-confirm                           public
    POST /users/reset-password-request                           public
    POST /webhooks/{provider}                                    public
    GET /workspaces/{workspace_id}/invitations                   refused
    POST /workspaces/{workspace_id}/invitations                  refused
    DELETE /workspaces/{workspace_id}/invitations/{invitation_id} refused
    GET /workspaces/{workspace_id}/invite-links                  refused
    POST /workspaces/{workspace_id}/invite-links                 refused
    DELETE /workspaces/{workspace_id}/invite-links/{link_id}     refused
    GET /workspaces                                              refused
    POST /workspaces                                             refused
    DELETE /workspaces/{workspace_id}                            refused
    GET /workspaces/{workspace_id}                               refused
    PUT /workspaces/{workspace_id}                               refused
    GET /workspaces/{workspace_id}/audit-log                     refused
    PUT /workspaces/{workspace_id}/billing-owner                 refused
    POST /workspaces/{workspace_id}/leave                        refused
    GET /workspaces/{workspace_id}/members                       refused
    DELETE /workspaces/{workspace_id}/members/{member_id}        refused
    PUT /workspaces/{workspace_id}/members/{member_id}           refused
    GET /workspaces/{workspace_id}/events                        refused
"""
TABLE = {tuple(line.split()[:2]): line.split()[2] for line in ROUTES.strip().splitlines()}
SAMPLES = {"fmt": "svg", "file_path": "docs/flow.mmd", "number": "1", "provider": "google", "provider_index": "0",
           "currency": "usd", "token": "no-such-link"}
CONVERTED = re.compile(r"<(?:[^>]*:)?(\w+)>")
REFUSED = "cannot be used on this route"
READ_ONLY = "can only read"


def _api_routes(app):
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/v1/"):
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                yield method, CONVERTED.sub(r"{\1}", rule.rule[len("/api/v1"):])


def _url(path):
    return re.sub(r"{(\w+)}", lambda match: SAMPLES.get(match.group(1), UNKNOWN_ID), path)


def test_every_route_is_classified_and_none_is_forgotten(app):
    assert set(_api_routes(app)) == set(TABLE)


@pytest.fixture
def tokens(admin, mint):
    """A read-only and a write token of the administrator (admin routes refuse them all the same)."""
    return mint(["read"], client=admin)[1], mint(["write"], client=admin)[1]


def _answer(client, method, path):
    response = client.request(method, _url(path), json={})
    return response.status_code, response.get_data(as_text=True)


@pytest.mark.parametrize("method, path", sorted(TABLE), ids=" ".join)
def test_a_route_takes_or_refuses_a_token_as_the_table_says(tokens, method, path):
    reader, writer = tokens
    kind = TABLE[method, path]
    (read_status, read_body), (write_status, write_body) = (_answer(reader, method, path),
                                                            _answer(writer, method, path))
    if kind == "refused":
        assert (read_status, write_status) == (403, 403) and REFUSED in read_body and REFUSED in write_body
    elif kind == "write":
        assert read_status == 403 and READ_ONLY in read_body
        assert write_status not in (401, 403), write_body
    else:  # read routes take both tokens; public routes answer as they would without one
        assert read_status not in (401, 403) and write_status not in (401, 403), (read_body, write_body)
