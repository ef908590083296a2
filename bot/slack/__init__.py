"""The Slack app: Bolt listeners (`/denpex`, thread follow-ups), Block Kit rendering, wiring.

Public surface: `create_slack_app`, `install_slack_routes`, `socket_mode_handler`, `make_client`
(`bot.slack.app`) and `BlockKitRenderer` (`bot.slack.render`, the worker's `Renderer`).
"""
