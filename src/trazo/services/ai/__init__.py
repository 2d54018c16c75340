"""AI providers: their clients (OpenAI chat completions, Anthropic messages, Gemini generateContent), their
failures in neutral terms (errors.py), the texts sent to them (prompts/) and the reading of their answers
(text, replies). The app calls them through core/ai/calls.py; the syntax check of the code they propose is
core/content/validation.py."""
