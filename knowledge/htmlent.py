"""A log copied out of a web page with its HTML entities left in is read as the job printed it.

A log saved from a rendered page (an issue thread, a CI job's console page, a wiki, a ticket system's
export) often keeps the page's escapes: `File &quot;train.py&quot;, line 12, in &lt;module&gt;`,
`unexpected keyword argument &#39;foo&#39;`, `Killed process 4711 (python) ... &amp;&amp;`. Read as it
is, no signature that expects a quote, a `<module>` frame or an apostrophe matches, and the corpus
rewritten this way changed 30 of 575 categories. Such a copy has entities and no raw `<` or `>` at all
(the page escaped every one), which a log written by a program almost never is; only then is the source
unescaped, whole (a copy from a page is small: `unwrap.MAX_BYTES`, as for the other copy forms).
"""

from __future__ import annotations

import html
import re

from denpex.core.models import LogSource
from knowledge import unwrap

#: the escapes a page writes for the characters a log line holds (named and numeric forms)
_ENTITY = re.compile(
    rb"&(?:quot|apos|lt|gt|amp|#0*(?:34|39|60|62|38)|#x0*(?:22|27|3c|3e|26));", re.IGNORECASE
)
#: so few entities in a log that has raw angle brackets are the program's own text, kept as printed
_RAW = re.compile(rb"[<>]")


def escaped(data: bytes) -> bool:
    """Whether `data` reads as a page's escaped copy: entities, and not one raw angle bracket."""
    return _ENTITY.search(data) is not None and _RAW.search(data) is None


def decode(source: LogSource) -> LogSource:
    """The source with a page's HTML escapes undone (as in-memory data), else the source itself."""
    data = unwrap.small_data(source)
    if data is None or not escaped(data):
        return source
    text = html.unescape(data.decode("utf-8", errors="replace"))
    return source.model_copy(update={"data": text.encode("utf-8"), "path": None})
