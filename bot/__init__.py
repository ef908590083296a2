"""The Slack app and the aiohttp server that receives Slack and scheduler webhooks."""
