"""The pages in a real browser: Debian's chromium driven through its chromedriver by Selenium.

Open /kb/, search, open an entry; on /diagnose give the token, paste a log, submit, see the
initiating rank; choose the demo's per-rank files, see rank 5. Screenshots are written to the test's
tmp folder (printed); with DENPEX_UPDATE_SCREENSHOTS=1 two of them also replace docs/img/kb.png and
docs/img/diagnose.png (the README shows them). The driver's path is given, so Selenium Manager never
runs and nothing is downloaded. Skipped, saying why, only where chromium or its driver is absent.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from denpex.core.settings import Settings
from denpex.demo import INITIATING_RANK, LOGS
from knowledge.engine import Engine
from knowledge.masking import TextMasker
from tests.web.conftest import TOKEN, Clock, web_app

CHROMIUM, DRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
DOCS_IMG = Path(__file__).parents[2] / "docs" / "img"
WAIT = 60.0

_missing = [str(p) for p in (CHROMIUM, DRIVER) if not p.exists()]
if _missing:
    print(
        f"tests/web/test_browser.py skipped: {', '.join(_missing)} absent (scripts/bootstrap installs them)"
    )
pytestmark = [
    pytest.mark.skipif(
        bool(_missing), reason=f"{', '.join(_missing)} absent; scripts/bootstrap installs them"
    ),
    pytest.mark.timeout(240),
]


class ServerThread:
    """The web routes on 127.0.0.1 in a thread of their own: Selenium's calls block, the server must not."""

    def __init__(self, app: web.Application) -> None:
        self.app, self.loop = app, asyncio.new_event_loop()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.runner = web.AppRunner(app, access_log=None)
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> ServerThread:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(30)
        return self

    async def _start(self) -> None:
        await self.runner.setup()
        await web.SockSite(self.runner, self.sock).start()

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture
def server(masker: TextMasker, engine: Engine) -> Iterator[ServerThread]:
    settings = Settings.model_validate({"DENPEX_WEB_TOKEN": TOKEN})
    with ServerThread(web_app(settings, masker, engine, Clock())) as running:
        yield running


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is in the dev extra")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1100",
        "--no-first-run",
        "--disable-extensions",
        f"--user-data-dir={tmp_path / 'profile'}",
    ):
        options.add_argument(arg)
    service = Service(executable_path=str(DRIVER), log_output=str(tmp_path / "chromedriver.log"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()


def shot(driver: Any, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    print(f"screenshot: {path}")
    if os.environ.get("DENPEX_UPDATE_SCREENSHOTS") == "1" and name in ("kb", "diagnose"):
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_IMG / f"{name}.png")
    return path


def test_search_open_an_entry_and_diagnose_a_pasted_log(
    server: ServerThread, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, WAIT)
    browser.get(f"{server.url}/kb/")
    search = wait.until(ec.visibility_of_element_located((By.ID, "search")))
    search.send_keys("xid 79")
    link = browser.find_element(By.CSS_SELECTOR, "#by-category a[href='/kb/xid-79-fallen-off-bus']")
    wait.until(lambda _: not browser.find_element(By.CSS_SELECTOR, "a[href='/kb/disk-full']").is_displayed())
    assert link.is_displayed()
    shot(browser, tmp_path, "kb")
    link.click()
    title = wait.until(ec.visibility_of_element_located((By.ID, "entry-title")))
    assert "Xid 79" in title.text
    assert browser.find_element(By.ID, "verify").is_displayed()
    shot(browser, tmp_path, "entry")

    browser.get(f"{server.url}/diagnose")
    wait.until(ec.visibility_of_element_located((By.ID, "token"))).send_keys(TOKEN)
    pasted = (
        "[rank3]: Traceback (most recent call last):\n"
        "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total"
        " capacity of 79.15 GiB of which 1.2 GiB is free.\n"
    )
    browser.find_element(By.ID, "log-text").send_keys(pasted)
    browser.find_element(By.ID, "submit").click()
    rank = wait.until(ec.visibility_of_element_located((By.ID, "r-rank")))
    assert rank.text.startswith("rank 3"), browser.find_element(By.ID, "status").text

    # several files at once (the demo's eight ranks and a dmesg), the token kept for this tab
    browser.get(f"{server.url}/diagnose")
    assert wait.until(ec.visibility_of_element_located((By.ID, "token"))).get_attribute("value") == TOKEN
    files = "\n".join(str(p) for p in sorted(LOGS.iterdir()))
    browser.find_element(By.ID, "log-files").send_keys(files)
    browser.find_element(By.ID, "submit").click()
    wait.until(ec.text_to_be_present_in_element((By.ID, "status"), "Done."))
    assert browser.find_element(By.ID, "r-rank").text.startswith(f"rank {INITIATING_RANK}")
    assert "ranks 0-4,6,7" in browser.find_element(By.ID, "r-collateral").text
    browser.set_window_size(1280, 2000)  # the form and the whole result in one picture
    browser.execute_script("window.scrollTo(0, 0)")
    shot(browser, tmp_path, "diagnose")
