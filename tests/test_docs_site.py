"""The documentation site, looked at in a real headless browser.

Every page of the built site renders (served over HTTP, no 404, a title and a
heading, no console error, no request that fails), every link of the
navigation leads to a page, and Material's search finds a recipe and links to
its entry in the catalog. Screenshots of the home page, of the search and of
the catalog are written where ``PODFOLD_DOCS_SCREENSHOTS`` says (else into
pytest's temporary directory), to be looked at.

The site is the one ``PODFOLD_DOCS_SITE`` names, else ``examples/docs/site``
(``mkdocs build -f examples/docs/mkdocs.yml``). It is driven by Playwright (the
docs extra) in the distribution's chromium; Playwright's own browsers are never
used. Without the site, chromium or Playwright these tests skip, saying which
is missing; with ``PODFOLD_REQUIRE_DOCS=1`` (as ``.ci/docs`` runs them) they
fail instead.

Output a page shows a command printing, where no doctest can show it, is
compared with what the command prints (no browser needed).
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import os
import re
import shlex
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")  # Debian's package; Playwright's downloads are not used
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
RECIPE = "shm_size"  # typed into the search box; its catalog entry must come up


def site_dir() -> Path:
    return Path(os.environ.get("PODFOLD_DOCS_SITE") or REPO / "examples" / "docs" / "site")


def missing() -> str | None:
    """What stops these tests from running here, or None."""
    site = site_dir()
    if not (site / "index.html").is_file():
        return (
            f"the documentation site is not built (no index.html in {site}): "
            "run mkdocs build -f examples/docs/mkdocs.yml, or .ci/docs"
        )
    if not CHROMIUM.is_file():
        return f"no chromium at {CHROMIUM} (apt-get install chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (pip install -e '.[docs]')"
    return None


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The built site served on localhost; its base URL."""
    reason = missing()
    if reason is not None:
        if os.environ.get("PODFOLD_REQUIRE_DOCS") == "1":
            pytest.fail(f"PODFOLD_REQUIRE_DOCS=1, but {reason}")
        pytest.skip(reason)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(site_dir()))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def browser(site: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS), headless=True
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page that records console errors, uncaught exceptions and failed requests."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.problems = []
    tab.on(
        "console",
        lambda message: (
            tab.problems.append(f"console error: {message.text}")
            if message.type == "error"
            else None
        ),
    )
    tab.on("pageerror", lambda error: tab.problems.append(f"uncaught: {error}"))
    tab.on(
        "requestfailed",
        lambda request: tab.problems.append(f"request failed: {request.url} ({request.failure})"),
    )
    try:
        yield tab
    finally:
        context.close()


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    where = Path(os.environ.get("PODFOLD_DOCS_SCREENSHOTS") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


def page_urls(site: str) -> list[str]:
    """Every page the build wrote (each an index.html), as served."""
    root = site_dir()
    return sorted(
        urljoin(
            site, "" if index.parent == root else f"{index.parent.relative_to(root).as_posix()}/"
        )
        for index in root.rglob("index.html")
    )


def look_at(page: Any, url: str) -> list[str]:
    """What is wrong with ``url`` in the browser: an empty list if it renders whole."""
    page.problems.clear()
    response = page.goto(url, wait_until="networkidle")
    wrong = []
    if response is None or response.status != 200:
        wrong.append(f"status {None if response is None else response.status}")
    if not page.title().strip():
        wrong.append("no title")
    if page.locator("article.md-content__inner h1").count() != 1:
        wrong.append("no single h1 heading in the article")
    return wrong + list(page.problems)


def test_every_page_renders(site: str, page: Any, screenshots: Path) -> None:
    urls = page_urls(site)
    assert len(urls) >= 20, f"the site has {len(urls)} pages: {urls}"
    failures = {url: wrong for url in urls if (wrong := look_at(page, url))}
    assert not failures, "pages that do not render whole:\n" + "\n".join(
        f"  {url}: {'; '.join(wrong)}" for url, wrong in failures.items()
    )
    page.goto(site)
    page.screenshot(path=str(screenshots / "home.png"), full_page=True)


def test_every_navigation_link_leads_to_a_page(site: str, page: Any) -> None:
    page.goto(site)
    hrefs = page.eval_on_selector_all(
        "nav.md-nav--primary a.md-nav__link[href]", "links => links.map(a => a.href)"
    )
    targets = sorted({href.split("#", 1)[0] for href in hrefs if href.startswith(site)})
    assert len(targets) >= 20, f"the navigation links to {len(targets)} pages: {targets}"
    served = set(page_urls(site))
    assert not set(targets) - served, f"navigation links to no page: {set(targets) - served}"
    for target in targets:
        response = page.request.get(target)
        assert response.status == 200, f"{target}: status {response.status}"


def test_search_finds_a_recipe_and_links_to_its_entry(
    site: str, page: Any, screenshots: Path
) -> None:
    page.goto(site)
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially(RECIPE, delay=30)
    results = page.locator("li.md-search-result__item a.md-search-result__link")
    results.first.wait_for(state="visible", timeout=15_000)
    page.screenshot(path=str(screenshots / "search.png"))
    hrefs = results.evaluate_all("links => links.map(a => a.href)")
    catalog = [href for href in hrefs if urlsplit(href).path.endswith("/reference/recipes/")]
    assert catalog, f"searching {RECIPE!r} found no link into the recipe catalog: {hrefs}"
    assert any(urlsplit(href).fragment == RECIPE for href in catalog), (
        f"searching {RECIPE!r} found the catalog but not its entry: {catalog}"
    )
    page.goto(next(href for href in catalog if urlsplit(href).fragment == RECIPE))
    entry = page.locator(f"h3[id={RECIPE!r}]")
    assert entry.count() == 1, f"the catalog has no entry with the id {RECIPE!r}"
    assert RECIPE in entry.inner_text()
    assert f"{RECIPE}(size" in page.locator("article").inner_text()
    entry.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / "catalog.png"))
    assert not page.problems, page.problems


# --- what the pages show a command printing -------------------------------------------------


def test_the_command_line_tutorial_shows_what_explain_prints(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from transforms.cli import main

    page = (REPO / "examples/docs/pages/tutorials/command-line.md").read_text(encoding="utf-8")
    command = "podfold explain --blame -f examples/a100.yaml job.yaml"
    shown = page.split(f"```sh\n{command}\n```\n\n```text\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(REPO)
    with pytest.raises(SystemExit) as exit:
        main(
            [
                "explain",
                "--blame",
                "-f",
                "examples/a100.yaml",
                "tests/manifests/kubernetes/job.yaml",
            ]
        )
    assert exit.value.code == 0
    printed = capfd.readouterr()
    assert printed.out + printed.err == shown, "the page shows another output: paste the new one"


def test_the_policies_guide_shows_what_each_check_prints(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from transforms.cli import main

    page = (REPO / "examples/docs/pages/how-to/policies-in-ci.md").read_text(encoding="utf-8")
    for name, text in re.findall(r"`(\w+\.yaml)`:\n\n```yaml\n(.*?)```", page, re.DOTALL):
        (tmp_path / name).write_text(text, encoding="utf-8")
    job = REPO / "tests/manifests/kubernetes/job.yaml"
    (tmp_path / "job.yaml").write_text(job.read_text(encoding="utf-8"), encoding="utf-8")
    shown = re.findall(
        r"```sh\n(podfold apply .*?) > /dev/null\n```\n\n```text\n(.*?)```", page, re.DOTALL
    )
    assert len(shown) == 3, f"the guide shows {len(shown)} apply commands with their output"
    monkeypatch.chdir(tmp_path)
    for command, output in shown:
        with pytest.raises(SystemExit) as exit:
            main(shlex.split(command)[1:])
        assert exit.value.code == 1, command
        printed = capfd.readouterr()
        assert printed.out == "", command
        assert printed.err == output, f"{command}: the guide shows another output"
