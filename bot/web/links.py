"""The public URL of a knowledge entry's page, for links from Slack threads and the web pages."""

from __future__ import annotations

import re
from urllib.parse import quote

from denpex.core.settings import Settings

_SAFE_BASE = re.compile(r"^https?://[^\s<>|\"]+$")


def entry_url(settings_or_base: Settings | str | None, entry_id: str) -> str | None:
    """`<DENPEX_PUBLIC_URL>/kb/<id>`, or None when no public URL is configured (or it is unsafe).

    A base with a space, `<`, `>` or `|` could break out of a Slack link, so it gives no link at all.
    """
    base = settings_or_base.public_url if isinstance(settings_or_base, Settings) else settings_or_base
    if not base or not _SAFE_BASE.match(base):
        return None
    return f"{base.rstrip('/')}/kb/{quote(entry_id, safe='')}"
