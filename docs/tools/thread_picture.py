"""Render the demo job's Slack thread to HTML and screenshot it: `docs/img/thread.png`.

    scripts/thread-picture                 # writes docs/img/thread.png (and docs/img/thread.html)
    scripts/thread-picture --html-only     # only the HTML (no browser needed)

The thread is the real one: the engine diagnoses the bundled demo job (`denpex/demo/logs`) and the
Slack app's `BlockKitRenderer` builds the root message and the first reply. Only the Block Kit
elements Denpex uses are drawn (header, mrkdwn sections, context, divider, a button), the way Slack
shows them, by a Jinja2 template; headless Chromium from Debian's packages (`/usr/bin/chromium`,
installed by `scripts/bootstrap`) takes the screenshot at the page's own height.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "img"
WIDTH = 900
CHROMIUM = ("/usr/bin/chromium", "chromium", "chromium-browser")
#: Slack emoji Denpex uses, as glyphs the Debian fonts have (no emoji font on a server)
EMOJI = {":rotating_light:": "⚠", ":thread:": "↳", ":no_entry:": "⊘", ":tada:": "★", ":mag:": "⌕"}

TEMPLATE = """<!doctype html>
<html><head><meta charset="utf-8"><title>thread</title><style>
body { margin: 0; background: #fff; font: 15px/1.46 "DejaVu Sans", Lato, sans-serif; color: #1d1c1d; }
.page { width: {{ width }}px; }
.bar { background: #3f0e40; color: #fff; padding: 10px 20px; font-weight: bold; }
.msg { display: flex; padding: 8px 20px; }
.avatar { width: 36px; height: 36px; border-radius: 6px; background: #611f69; color: #fff;
  font-weight: bold; text-align: center; line-height: 36px; margin-right: 10px; flex: none; }
.who { font-weight: 900; } .app { font-size: 10px; background: #ddd; border-radius: 3px; padding: 0 3px; }
.time { color: #616061; font-size: 12px; margin-left: 6px; }
.thread { border-top: 1px solid #ddd; margin-top: 6px; }
.thread-title { padding: 10px 20px 0; font-weight: 900; }
h3 { font-size: 17px; margin: 4px 0; }
.section { margin: 4px 0; white-space: normal; }
.context { color: #616061; font-size: 12px; margin: 4px 0; }
pre { background: #f8f8f8; border: 1px solid #ddd; border-radius: 4px; padding: 6px 8px; margin: 4px 0;
  font: 12px/1.5 "DejaVu Sans Mono", monospace; white-space: pre-wrap; word-break: break-word; }
code { color: #c01343; background: #f8f8f8; border: 1px solid #ddd; border-radius: 3px; padding: 0 2px;
  font: 12px "DejaVu Sans Mono", monospace; }
hr { border: 0; border-top: 1px solid #ddd; }
button { font: bold 14px "DejaVu Sans", sans-serif; background: #fff; border: 1px solid #bbb;
  border-radius: 4px; padding: 4px 12px; margin: 4px 0; }
.file { border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; margin: 4px 0; color: #1264a3; }
</style></head><body><div class="page">
<div class="bar"># denpex-alerts</div>
{% for message in messages %}
{% if message.thread_start %}<div class="thread"><div class="thread-title">Thread</div></div>{% endif %}
<div class="msg"><div class="avatar">D</div><div>
<span class="who">Denpex</span> <span class="app">APP</span><span class="time">{{ message.time }}</span>
{% for block in message.blocks %}{{ block | safe }}{% endfor %}
</div></div>
{% endfor %}
</div><script>document.title = String(document.documentElement.scrollHeight)</script></body></html>
"""


def mrkdwn_html(text: str) -> str:
    """Slack mrkdwn as HTML. The text is already entity-escaped for Slack (`&amp; &lt; &gt;`), which is
    also valid HTML; any other `<` is escaped here, so a log line can never become markup."""
    text = text.replace("<", "&lt;").replace(">", "&gt;")
    parts = re.split(r"(```.*?```)", text, flags=re.S)
    out = []
    for part in parts:
        if part.startswith("```") and part.endswith("```") and len(part) >= 6:
            out.append(f"<pre>{part[3:-3]}</pre>")
            continue
        out.append(_inline_html(part))
    return "".join(out)


def _inline_html(part: str) -> str:
    """Bold, italics, strike and emoji outside inline code; inline code as it is."""
    codes: list[str] = []

    def hold(m: re.Match[str]) -> str:  # inline code is never formatted: set it aside
        codes.append(f"<code>{m.group(1)}</code>")
        return f"\x00{len(codes) - 1}\x00"

    text = re.sub(r"`([^`\n]+)`", hold, part)
    text = re.sub(r"(?<![\w*])\*([^*\n]+)\*(?![\w*])", r"<b>\1</b>", text)
    text = re.sub(r"(?<![\w])_([^_\n]+)_(?![\w])", r"<i>\1</i>", text)
    text = re.sub(r"(?<![\w~])~([^~\n]+)~(?![\w~])", r"<s>\1</s>", text)
    for name, glyph in EMOJI.items():
        text = text.replace(name, glyph)
    text = re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], text)
    return text.replace("\n", "<br>")


def block_html(block: Mapping[str, Any]) -> str:
    kind = block.get("type")
    if kind == "header":
        return f"<h3>{html.escape(block['text']['text'])}</h3>"
    if kind == "section":
        return f'<div class="section">{mrkdwn_html(block["text"]["text"])}</div>'
    if kind == "context":
        return (
            '<div class="context">' + " ".join(mrkdwn_html(e["text"]) for e in block["elements"]) + "</div>"
        )
    if kind == "divider":
        return "<hr>"
    if kind == "actions":
        return "".join(f"<button>{html.escape(e['text']['text'])}</button>" for e in block["elements"])
    return ""


def demo_thread() -> list[dict[str, Any]]:
    """The demo job's root message and thread, as `denpex demo` would post them."""
    from bot.slack.render import BlockKitRenderer
    from denpex.core.models import JobRef, Scheduler
    from denpex.demo import LOGS
    from knowledge.engine import Engine
    from knowledge.sources import discover

    engine = Engine.load()
    diagnosis = engine.diagnose(discover([LOGS]))
    job = JobRef(
        scheduler=Scheduler.files,
        cluster="demo",
        job_id="llama-ft-4242",
        name="llama-ft",
        state="FAILED",
        exit_code="1:0",
        user="alice",
    )
    renderer = BlockKitRenderer(engine.entries)
    root = renderer.root_message(job, diagnosis, quota_note=None)
    replies = renderer.thread_messages(job, diagnosis)
    evidence = renderer.evidence_file(job, diagnosis)
    messages: list[dict[str, Any]] = [{"time": "03:24", "blocks": root.blocks, "thread_start": False}]
    for i, reply in enumerate(replies):
        messages.append({"time": "03:24", "blocks": reply.blocks, "thread_start": i == 0})
    if evidence is not None:
        file_block = {"type": "file", "title": evidence.filename}
        messages.append({"time": "03:24", "blocks": [file_block], "thread_start": False})
    return messages


def render_html(messages: Sequence[Mapping[str, Any]], width: int = WIDTH) -> str:
    import jinja2

    env = jinja2.Environment(autoescape=True)
    shown = []
    for message in messages:
        blocks = []
        for block in message["blocks"]:
            if block.get("type") == "file":
                blocks.append(f'<div class="file">{html.escape(str(block["title"]))} (plain text)</div>')
            else:
                blocks.append(block_html(block))
        shown.append({**message, "blocks": blocks})
    return env.from_string(TEMPLATE).render(messages=shown, width=width)


def chromium() -> str:
    for name in CHROMIUM:
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit("thread-picture: Chromium not found (scripts/bootstrap installs the chromium package)")


def _browser(args: list[str], page: Path, profile: Path) -> str:
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    cmd += [f"--user-data-dir={profile}", *args, page.as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True)
    return proc.stdout


def dump_dom(page: Path, width: int = WIDTH) -> str:
    """The page's DOM after Chromium rendered it (its title is then the page's height in pixels)."""
    with tempfile.TemporaryDirectory(prefix="denpex-chromium-") as profile:
        return _browser([f"--window-size={width},800", "--dump-dom"], page, Path(profile))


def screenshot(page: Path, png: Path, width: int = WIDTH) -> None:
    found = re.search(r"<title>(\d+)</title>", dump_dom(page, width))
    height = int(found.group(1)) if found else 1600
    with tempfile.TemporaryDirectory(prefix="denpex-chromium-") as profile:
        _browser([f"--window-size={width},{height}", f"--screenshot={png}"], page, Path(profile))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Render docs/img/thread.png from the demo's thread.")
    parser.add_argument("--out", type=Path, default=OUT, help="folder for thread.html and thread.png")
    parser.add_argument("--html-only", action="store_true", help="write the HTML, take no screenshot")
    ns = parser.parse_args(argv)
    ns.out.mkdir(parents=True, exist_ok=True)
    page = ns.out / "thread.html"
    page.write_text(render_html(demo_thread()), encoding="utf-8")
    if not ns.html_only:
        screenshot(page, ns.out / "thread.png")
        print(f"wrote {ns.out / 'thread.png'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
