"""AI providers: their clients (OpenAI chat completions, Anthropic messages, Gemini generateContent), the
texts sent to them (prompts/) and the reading and checking of their answers (text, replies, validator)."""
