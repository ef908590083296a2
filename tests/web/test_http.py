"""The web routes over real HTTP on 127.0.0.1: pages, 404s that echo nothing, auth, caps, rate limit,
masking, and the API's JSON against `denpex diagnose --format json` on the same files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient

from denpex.cli import diagnose as cli_diagnose
from denpex.demo import INITIATING_RANK, LOGS, PLANTED_TOKEN
from knowledge.schema import load_entries
from tests.web.conftest import TOKEN, Clock, bearer

Client = TestClient[Any, Any]
CORPUS = Path(__file__).parents[1] / "corpus"


def files_form(paths: list[Path]) -> aiohttp.FormData:
    form = aiohttp.FormData()
    for p in paths:
        form.add_field("file", p.read_bytes(), filename=p.name, content_type="text/plain")
    return form


async def test_index_lists_every_entry_by_category_and_phase(client: Client) -> None:
    resp = await client.get("/kb/")
    assert resp.status == 200
    assert "script-src 'self'" in resp.headers["Content-Security-Policy"]
    page = await resp.text()
    for e in load_entries():
        assert f'href="/kb/{e.id}"' in page
    assert 'id="by-category"' in page and 'id="by-phase"' in page
    assert 'id="category-nccl_timeout"' in page and 'id="phase-checkpoint_save"' in page
    assert (await client.get("/kb", allow_redirects=False)).headers["Location"] == "/kb/"


async def test_entry_page_shows_every_part_and_compares_lookalikes(client: Client) -> None:
    entry = next(e for e in load_entries() if e.id == "nccl-timeout-slow-rank")
    page = await (await client.get(f"/kb/{entry.id}")).text()
    for anchor in ("symptoms", "root-cause", "mechanism", "confirm", "fix", "verify", "faq", "references"):
        assert f'id="{anchor}"' in page
    assert entry.faq.fingerprint.split(".")[0].replace("'", "&#39;")[:40] in page
    assert entry.related, "the example entry has lookalikes"
    other = entry.related[0]
    assert f'href="/kb/{entry.id}/vs/{other}"' in page
    resp = await client.get(f"/kb/{entry.id}/vs/{other}")
    assert resp.status == 200
    compare = await resp.text()
    assert 'id="apart"' in compare and 'class="differs"' in compare
    assert (await client.get(f"/kb/{entry.id}/vs/nope")).status == 404


@pytest.mark.parametrize("path", ["/kb/<script>alert(1)</script>", "/kb/%3Cscript%3Ealert(1)%3C%2Fscript%3E"])
async def test_unknown_entry_is_a_404_that_echoes_nothing(client: Client, path: str) -> None:
    resp = await client.get(path)
    assert resp.status == 404
    page = await resp.text()
    assert "<script>" not in page and "alert(1)" not in page
    assert "No such entry" in page


async def test_entry_link_uses_the_public_url(make_client: Any) -> None:
    from bot.web.links import entry_url

    client = await make_client(DENPEX_PUBLIC_URL="https://denpex.example.com/")
    page = await (await client.get("/kb/disk-full")).text()
    assert 'href="https://denpex.example.com/kb/disk-full"' in page
    assert entry_url("https://denpex.example.com/", "disk-full") == "https://denpex.example.com/kb/disk-full"
    assert entry_url("https://x.example.com|<!channel>", "disk-full") is None
    assert entry_url("", "disk-full") is None


async def test_api_needs_the_token(client: Client) -> None:
    resp = await client.post("/api/diagnose", data=b"some log", headers={"Content-Type": "text/plain"})
    assert resp.status == 401
    assert resp.headers["WWW-Authenticate"] == "Bearer"
    wrong = {**bearer("wrong"), "Content-Type": "text/plain"}
    assert (await client.post("/api/diagnose", data=b"some log", headers=wrong)).status == 401


async def test_api_is_off_without_a_token_or_proxy_header(make_client: Any) -> None:
    client = await make_client(DENPEX_WEB_TOKEN=None)
    resp = await client.post("/api/diagnose", data=b"log", headers=bearer())
    assert resp.status == 403
    assert "DENPEX_WEB_TOKEN" in (await resp.json())["error"]
    assert 'id="api-off"' in await (await client.get("/diagnose")).text()


async def test_trusted_proxy_header_lets_its_user_in(make_client: Any) -> None:
    client = await make_client(DENPEX_WEB_TOKEN=None, DENPEX_WEB_TRUSTED_HEADER="X-Forwarded-User")
    text = {"Content-Type": "text/plain"}
    assert (await client.post("/api/diagnose", data=b"log", headers=text)).status == 401
    resp = await client.post("/api/diagnose", data=b"a log", headers={**text, "X-Forwarded-User": "alice"})
    assert resp.status == 200


async def test_a_body_over_the_cap_is_413(make_client: Any) -> None:
    client = await make_client(DENPEX_MAX_BODY_BYTES=64 << 10)
    big = b"x" * (65 << 10)
    resp = await client.post("/api/diagnose", data=big, headers={**bearer(), "Content-Type": "text/plain"})
    assert resp.status == 413
    form = aiohttp.FormData()
    form.add_field("file", big, filename="rank0.log")
    resp = await client.post("/api/diagnose", data=form, headers=bearer())
    assert resp.status == 413


async def test_rate_limit_per_client_with_the_clock(make_client: Any, clock: Clock) -> None:
    client = await make_client(DENPEX_WEB_RATE=6, DENPEX_WEB_BURST=2)  # one every 10 s, two at once
    headers = {**bearer(), "Content-Type": "text/plain"}
    for _ in range(2):
        assert (await client.post("/api/diagnose", data=b"log line", headers=headers)).status == 200
    resp = await client.post("/api/diagnose", data=b"log line", headers=headers)
    assert resp.status == 429
    assert resp.headers["Retry-After"] == "10"
    clock.now += 10
    assert (await client.post("/api/diagnose", data=b"log line", headers=headers)).status == 200


async def test_a_secret_in_a_posted_log_is_masked(client: Client) -> None:
    rank5 = (LOGS / "rank5.log").read_bytes()
    assert PLANTED_TOKEN.encode() in rank5
    form = files_form([LOGS / "rank5.log"])
    form.add_field("text", f"export HF_TOKEN={PLANTED_TOKEN}\nRuntimeError: boom {PLANTED_TOKEN}\n")
    resp = await client.post("/api/diagnose", data=form, headers=bearer())
    assert resp.status == 200
    body = await resp.text()
    assert PLANTED_TOKEN not in body
    assert json.loads(body)["initiating"]["rank"] == INITIATING_RANK


def cli_json(paths: list[Path], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert cli_diagnose.run(paths, "json", jobs=1) == 0
    return dict(json.loads(capsys.readouterr().out))


@pytest.mark.parametrize("case", ["demo", "g-002"])
async def test_api_json_equals_the_cli_json(
    client: Client,
    case: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("DENPEX_CACHE_DIR", str(tmp_path))
    folder = LOGS if case == "demo" else CORPUS / case / "logs"
    paths = sorted(folder.iterdir())
    expected = cli_json(paths, capsys)
    resp = await client.post("/api/diagnose", data=files_form(paths), headers=bearer())
    assert resp.status == 200
    got = await resp.json()
    for d in (expected, got):
        d["stats"].pop("seconds")
    assert got == expected


async def test_pasted_text_and_bad_requests(client: Client) -> None:
    resp = await client.post(
        "/api/diagnose", data=b"  \n", headers={**bearer(), "Content-Type": "text/plain"}
    )
    assert resp.status == 400
    resp = await client.post(
        "/api/diagnose", data=b"{}", headers={**bearer(), "Content-Type": "application/json"}
    )
    assert resp.status == 415
    log = b"[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    resp = await client.post("/api/diagnose", data=log, headers={**bearer(), "Content-Type": "text/plain"})
    assert resp.status == 200
    assert (await resp.json())["category"] == "gpu_oom"


async def test_diagnose_page_says_what_it_cuts(client: Client) -> None:
    page = await (await client.get("/diagnose")).text()
    assert 'id="log-text"' in page and 'type="file" id="log-files" multiple' in page
    assert "look like errors, and its end" in page
    assert 'id="api-off"' not in page
    assert TOKEN not in page


def test_inline_code_in_entry_prose_is_escaped_before_it_is_marked_up() -> None:
    from bot.web.routes import ticks

    assert str(ticks("<b>run `a<b` now</b>")) == "&lt;b&gt;run <code>a&lt;b</code> now&lt;/b&gt;"
