"""The OAuth providers (Google, GitHub): how one is described (providers) and the HTTP conversations
with them (clients). Which providers are in force is core's choice (core/accounts/oauth_providers.py); the sign-in and
the administrators' vendor checks both use them."""
