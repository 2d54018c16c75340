"""MFA secrets, OAuth identities and states, integration vendors, audit log."""
