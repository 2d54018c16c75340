"""AI provider clients (OpenAI chat completions, Anthropic messages, Gemini generateContent)."""
