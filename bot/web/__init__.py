"""The knowledge base on the web (`/kb/`) and the paste-a-log page (`/diagnose`, `POST /api/diagnose`).

`bot.web.routes.setup(app, settings, masker)` adds every route to the server's app; `bot.web.links`
is the one place that spells an entry's public URL (the Slack thread links to it). Kept free of
imports so the Slack renderer can use `links` without loading Jinja2 or the engine.
"""
