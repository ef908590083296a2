"""Line anchors that hold however the line was delivered.

An entry's `^Killed$` means "Killed alone on a line", but a real line often carries what the tool that
delivered it added: ANSI colours (rich, loguru, colorlog), a timestamp (`kubectl logs --timestamps`,
Loki and CloudWatch exports, Python logging), a syslog header, or a launcher's label (`[rank3]:`,
srun's `3: `, torchrun's `[default3]:`). Every anchor in a signature is widened here, once, when the
entries are loaded, so authors write the plain form and the engine matches all the delivered ones:
`^` also accepts any run of such prefixes, `$` any trailing colour resets and blanks.

Only `^`/`$` outside character classes and escapes are rewritten; the result stays in the regex subset
that both Python `re` and Hyperscan accept.
"""

from __future__ import annotations

_ANSI = r"\x1b\[[0-9;?]*[A-Za-z]"
_ISO_STAMP = (
    r"\[?[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?"
    r"(?:Z|[+-][0-9]{2}:?[0-9]{2})?\]?[ \t]+"
)
_SYSLOG = r"[A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [^ \t\n]+ [^ \t\n:]{1,60}: "
_LABEL = r"\[[^\]\n]{1,60}\]:? ?|[0-9]{1,5}: "
#: what may stand before the start of the line an author meant
LINE_PREFIX = f"(?:{_ANSI}|{_ISO_STAMP}|{_SYSLOG}|{_LABEL})*"
#: what may stand after its end
LINE_SUFFIX = f"(?:{_ANSI}|[ \\t\\r])*"


def tolerant(pattern: str) -> str:
    """`pattern` with every line anchor widened to accept delivered prefixes and suffixes."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = ch != "]" or bool(out) and out[-1] in ("[", "[^")
            out.append(ch)
        elif ch == "[":
            in_class = True
            if pattern.startswith("[^", i):
                out.append("[^")
                i += 2
                continue
            out.append(ch)
        elif ch == "^":
            out.append("^" + LINE_PREFIX)
        elif ch == "$":
            out.append(LINE_SUFFIX + "$")
        else:
            out.append(ch)
        i += 1
    return "".join(out)
