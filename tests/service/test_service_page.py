"""The page at GET /, in headless Chromium (Debian's `chromium`), driven over the DevTools protocol.

A real uvicorn server on 127.0.0.1 (a free port) serves the app with the bundled parser; the test
types the paper's example sentence, submits it, and reads what the page drew. The screenshot is
kept in artifacts/service/ (git-ignored) for a person to look at.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from served import running

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
EXAMPLE = "But I try very hard not to go that way because it would be too easy for them."
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "service"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason="Chromium is not installed: apt-get install chromium (Debian's package)"),
]


def _serve(annotator, senses):
    """The app under a real uvicorn server on 127.0.0.1, port chosen by the OS."""
    from logicparse.service import Settings, create_app

    with running(create_app(Settings(senses=senses), annotator=annotator)) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def live_url(lexicon_annotator):
    yield from _serve(lexicon_annotator, None)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Headless Chromium with a DevTools port; yields the HTTP address of its DevTools server."""
    profile = tmp_path_factory.mktemp("chromium-profile")
    proc = subprocess.Popen(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
         "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
         "--window-size=1100,1000", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port_file = profile / "DevToolsActivePort"
    deadline = time.monotonic() + 60
    while not (port_file.exists() and port_file.read_text().strip()):
        assert proc.poll() is None, f"chromium exited with {proc.returncode}"
        assert time.monotonic() < deadline, "chromium did not open its DevTools port"
        time.sleep(0.1)
    port = port_file.read_text().split()[0]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


class Page:
    """A minimal DevTools-protocol client for one page target (websockets)."""

    def __init__(self, ws):
        self.ws = ws
        self.n = 0
        self.exceptions: list[str] = []

    async def call(self, method: str, **params):
        self.n += 1
        await self.ws.send(json.dumps({"id": self.n, "method": method, "params": params}))
        while True:
            msg = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
            if msg.get("method") == "Runtime.exceptionThrown":
                self.exceptions.append(json.dumps(msg["params"]["exceptionDetails"])[:500])
            if msg.get("id") == self.n:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]

    async def js(self, expression: str):
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                                 awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 60.0):
        deadline = time.monotonic() + timeout
        while True:
            value = await self.js(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {expression}")
            await asyncio.sleep(0.1)

    async def hover(self, selector: str) -> None:
        box = await self.js(f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                            ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        await self.call("Input.dispatchMouseEvent", type="mouseMoved", x=box[0], y=box[1])


@contextlib.asynccontextmanager
async def _open(devtools: str, url: str):
    """The browser's page at ``url``, once the script has drawn the legend."""
    import websockets

    async with httpx.AsyncClient() as client:
        targets = (await client.get(f"{devtools}/json/list")).json()
    target = next(t for t in targets if t["type"] == "page")
    async with websockets.connect(target["webSocketDebuggerUrl"], max_size=2**26) as ws:
        page = Page(ws)
        await page.call("Runtime.enable")
        await page.call("Page.enable")
        await page.call("Page.navigate", url=url)
        # The legend is drawn from GET /v1/taxonomy once the script has run.
        await page.wait_for("document.querySelectorAll('#legend li').length === 12")
        yield page


async def _drive(devtools: str, url: str, shot: Path, hover_rel: int) -> dict:
    async with _open(devtools, url) as page:
        out = {"legend": await page.js(
            "[...document.querySelectorAll('#legend li')].map(li => li.dataset.relation)")}
        await page.js(f"document.querySelector('#text').value = {json.dumps(EXAMPLE)}; "
                      "document.querySelector('#annotate').click(); true")
        await page.wait_for("document.querySelectorAll('#doc .tok').length > 0")
        out["keywords"] = await page.js(
            "[...document.querySelectorAll('#doc .tok.kw')].map(e => [e.textContent, "
            "e.dataset.relation, getComputedStyle(e).backgroundColor])")
        out["tokens"] = await page.js("[...document.querySelectorAll('#doc .tok')].map(e => e.textContent)")
        out["rendered_text"] = await page.js("document.querySelector('#doc').textContent")
        out["status"] = await page.js("document.querySelector('#status').textContent")
        # A real mouse over a keyword: its alpha and beta spans are marked, its layers listed.
        await page.hover(f"#doc .tok.kw[data-rel='{hover_rel}']")
        out["alpha"] = await page.js(
            "[...document.querySelectorAll('#doc .tok.in-alpha')].map(e => e.textContent)")
        out["beta"] = await page.js(
            "[...document.querySelectorAll('#doc .tok.in-beta')].map(e => e.textContent)")
        out["layers_key"] = await page.js(
            "[...document.querySelectorAll('#layers li')].map(e => e.dataset.label)")
        png = await page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        shot.parent.mkdir(parents=True, exist_ok=True)
        shot.write_bytes(base64.b64decode(png["data"]))
        # Hovering a plain token inside the because-clause lists its layers.
        await page.hover("#doc .tok[data-i='12']")
        out["layers_12"] = await page.js(
            "[...document.querySelectorAll('#layers li')].map(e => e.dataset.label)")
        # A refused request is reported on the page, with the service's message.
        await page.js("document.querySelector('#text').value = 'x'.repeat(100001); "
                      "document.querySelector('#annotate').click(); true")
        await page.wait_for("document.querySelector('#status').classList.contains('error')")
        out["error_status"] = await page.js("document.querySelector('#status').textContent")
        out["exceptions"] = page.exceptions
        return out


async def _drive_docs(devtools: str, url: str) -> dict:
    import websockets

    async with httpx.AsyncClient() as client:
        targets = (await client.get(f"{devtools}/json/list")).json()
    target = next(t for t in targets if t["type"] == "page")
    async with websockets.connect(target["webSocketDebuggerUrl"], max_size=2**26) as ws:
        page = Page(ws)
        await page.call("Runtime.enable")
        await page.call("Page.enable")
        await page.call("Page.navigate", url=url)
        await page.wait_for("document.querySelectorAll('.swagger-ui .opblock').length >= 5")
        return {
            "operations": await page.js("[...document.querySelectorAll('.opblock-summary-path')]"
                                        ".map(e => e.textContent.replace(/\u200b/g, ''))"),
            "scripts": await page.js("[...document.scripts].map(s => s.src).filter(Boolean)"),
            "exceptions": page.exceptions,
        }


def test_openapi_docs_render_offline(live_url, browser):
    """/docs is Swagger UI from local files (no CDN): it renders with no network."""
    seen = asyncio.run(_drive_docs(browser, live_url + "/docs"))
    assert set(seen["operations"]) == {"/v1/annotate", "/v1/labels", "/v1/taxonomy", "/healthz",
                                       "/readyz"}
    assert all(src.startswith(live_url) for src in seen["scripts"]), seen["scripts"]
    assert seen["exceptions"] == []


def test_page_annotates_the_paper_example(live_url, browser, lexicon_annotator):
    shot = ARTIFACTS / "page.png"
    doc = lexicon_annotator.annotate(EXAMPLE)
    # The keyword with the most tokens in its spans (the spans depend on the parser's trees).
    width = lambda span: sum(b - a for a, b in span)  # noqa: E731
    hover = max(range(len(doc.relations)), key=lambda r: width(doc.relations[r].alpha)
                + width(doc.relations[r].beta))
    seen = asyncio.run(_drive(browser, live_url + "/", shot, hover))

    assert seen["exceptions"] == []
    import logicparse

    assert seen["legend"] == logicparse.RELATIONS
    # What the page drew is what the API returns for the text.
    assert seen["tokens"] == doc.tokens
    assert seen["rendered_text"] == EXAMPLE
    keywords = [(k, r) for k, r, _ in seen["keywords"]]
    assert [k for k, _ in keywords] == ["But", "not", "because"]
    assert keywords == [(r.keyword, r.relation) for r in doc.relations]
    assert dict(keywords)["because"] == "causal" and dict(keywords)["not"] == "negation"
    # Each relation has its own colour.
    assert len({colour for _, _, colour in seen["keywords"]}) == 3

    rel = doc.relations[hover]
    spans = lambda span: [doc.tokens[i] for a, b in span for i in range(a, b)]  # noqa: E731
    assert seen["alpha"] == spans(rel.alpha)
    assert seen["beta"] == spans(rel.beta)
    assert seen["alpha"] or seen["beta"]
    labels = logicparse.LABELS
    key = rel.key[0][0]
    assert seen["layers_key"] == [labels[i] for i in doc.logic[key]]
    assert f"{rel.relation}:key" in seen["layers_key"]
    assert seen["layers_12"] == [labels[i] for i in doc.logic[12]]
    assert shot.stat().st_size > 10_000
    assert seen["error_status"].startswith("413: ") and "100000" in seen["error_status"]


NONE_TEXT = "I like tea in Paris, and I stayed because it didn't stop raining."


@pytest.fixture(scope="module")
def rules_url(lexicon_annotator):
    """The app with the tree rules deciding keywords (some are decided none), same parser."""
    import logicparse

    rules = logicparse.Annotator(parser=lexicon_annotator.parser, senses="rules")
    for url in _serve(rules, "rules"):
        yield url, rules


async def _drive_none(devtools: str, url: str, shot: Path) -> dict:
    async with _open(devtools, url) as page:
        out = {"roles": await page.js("document.querySelector('#roles').textContent")}
        await page.js(f"document.querySelector('#text').value = {json.dumps(NONE_TEXT)}; "
                      "document.querySelector('#annotate').click(); true")
        await page.wait_for("document.querySelectorAll('#doc .tok').length > 0")
        out["none"] = await page.js("[...document.querySelectorAll('#doc .tok.kw-none')]"
                                    ".map(e => [e.textContent, e.title, getComputedStyle(e).color])")
        out["kw_colour"] = await page.js("getComputedStyle(document.querySelector('#doc .tok.kw')).color")
        out["rows"] = await page.js("[...document.querySelectorAll('#relations tbody tr')].map(tr => "
                                    "[tr.className, ...[...tr.cells].map(td => td.textContent)])")
        await page.hover("#doc .tok.kw-none")
        out["info"] = await page.js("document.querySelector('#info').textContent")
        await page.hover("#doc .tok.kw[data-rel='1']")
        png = await page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        shot.parent.mkdir(parents=True, exist_ok=True)
        shot.write_bytes(base64.b64decode(png["data"]))
        out["exceptions"] = page.exceptions
        return out


# The reason shown for each none: the tree rule and the case it matched, in the rules' words.
NONE_REASONS = ("tree rule _like: verb, adjective (native-like), filler, quotative",
                'tree rule _in: not a time: a place, a thing, a state ("in Paris", "in the box", '
                '"in love")')


def test_page_shows_keywords_decided_none_and_the_text_as_written(rules_url, browser):
    url, rules = rules_url
    doc = rules.annotate(NONE_TEXT)
    seen = asyncio.run(_drive_none(browser, url + "/", ARTIFACTS / "page-none.png"))
    assert seen["exceptions"] == []
    # The page says what α and β are.
    assert "β is its own" in " ".join(seen["roles"].split())
    # `like` (a verb) and `in` (a place) are shown greyed, with the reason the rules gave.
    assert [t for t, _, _ in seen["none"]] == ["like", "in"]
    assert [title for _, title, _ in seen["none"]] == [
        f"{k}: decided none ({reason})" for k, reason in zip(("like", "in"), NONE_REASONS)]
    assert seen["none"][0][2] != seen["kw_colour"]
    assert f"“like” decided none: {NONE_REASONS[0]}" in seen["info"]
    # The table: the kept relations, then the keywords decided none with their reason; spans
    # as written in the text ("didn't"), not as tokens ("did n't").
    text = lambda span: " … ".join(NONE_TEXT[doc.token_starts[a]:doc.token_ends[b - 1]]  # noqa: E731
                                   for a, b in span) or "—"
    kept = [["", r.keyword, r.relation.replace("_", " "), r.category, text(r.alpha), text(r.beta),
             r.sense_source] for r in doc.relations]
    assert [r.keyword for r in doc.relations] == ["and", "because", "n't"]
    assert seen["rows"][:3] == kept
    assert "it didn't stop raining" in kept[1][5]
    assert seen["rows"][3:] == [["none-row", k, "none", "—", "—", "—", reason]
                                for k, reason in zip(("like", "in"), NONE_REASONS)]
