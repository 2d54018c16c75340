"""The e-mail backend chosen by an administrator in the integrations area, when there is one."""


def active_email_backend():
    """No admin-configured e-mail vendor yet: the settings decide."""
    return None
