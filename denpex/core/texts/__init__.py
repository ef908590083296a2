"""Every user-facing text in one package: CLI errors, Slack replies, webhook error bodies.

One module per surface (`cli`, `slack`, `http`), each text a named function or constant, so tone and
wording stay consistent and tests can assert on the same function the code uses.
"""
