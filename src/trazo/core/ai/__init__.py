"""AI calls as the app makes them: the user's stored providers, the call with the operator's settings, and
a provider's failures as the API answers them (the adapter is services/ai)."""
