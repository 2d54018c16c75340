"""Plan limits, checked by the content area inside its transaction, before the insert."""


def ensure_within_plan(user, resource_type, adding=1):
    """Raise a 403 resource_limit_exceeded when `adding` more `resource_type` ("projects" or
    "diagrams") would pass the user's plan limit. Not enforced yet (the billing issue)."""
