"""The second step of a sign-in for accounts with MFA: the challenge answered by /users/login."""
import uuid

from ...auth import issue_mfa_token


def start_login_challenge(user):
    """Open an MFA login: a 5-minute `mfa` token bound to this login attempt."""
    methods = list(user.mfa_methods)
    default = user.mfa_default_method if user.mfa_default_method in methods else methods[0]
    token = issue_mfa_token(user, uuid.uuid4().hex, methods, default)
    return {"mfa_required": True, "mfa_token": token, "mfa_default_method": default,
            "available_methods": methods}
