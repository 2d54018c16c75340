"""The texts sent to the AI: what every prompt says about a diagram language (guides), writing code and
descriptions (generation), repairing a diagram (fix), translating it (convert) and the chat (chat).

Instructions are in English whatever the user's language (models follow them best and the system
prompt stays cacheable); only the language the output is written in changes.
"""
