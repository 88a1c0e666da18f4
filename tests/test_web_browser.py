"""The web table in a real headless browser (Debian's Chromium through chromedriver and
Selenium): open the page, play a whole deal by clicking, read the result, replay a game
with the solver's values; screenshots of the table, the result and a replay are saved to
``$SKATSIM_ARTIFACTS`` (default ``test-artifacts/``).

Skipped, saying why, where Selenium, Chromium or chromedriver is missing (``setup.sh``
installs them with apt-get where it can)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[web]')")

from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

from web_helpers import live_server  # noqa: E402

ROOT = Path(__file__).parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="no headless browser: Debian's chromium and chromium-driver are not installed "
           "(setup.sh installs them with apt-get when it runs as root)")

#: Flags Chromium needs here: no sandbox (root in a container), no GPU, and no network
#: attempts (the machine's network is closed; without them it hangs on connections).
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1500,900")


def _artifacts() -> Path:
    d = Path(os.environ.get("SKATSIM_ARTIFACTS") or ROOT / "test-artifacts")
    d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="skatsim-chromium-")
    for f in FLAGS + (f"--user-data-dir={profile}",):
        opts.add_argument(f)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(DRIVER), options=opts)
    d.set_page_load_timeout(30)
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",  # the screenshots' size: a 1500 x 900 page
                      {"width": 1500, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    try:
        yield d
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from agents.arena.tournament import run_tournament
    from skatsim_app.web import create_app

    run = tmp_path_factory.mktemp("web") / "run"
    run_tournament(["pimc:worlds=4", "rule_based"], 1, seed=5, out=run, progress=False)
    app = create_app(replay=[str(run)], opponents=["rule_based", "rule_based"])
    with live_server(app) as url:
        yield url


def _state(d) -> tuple[str, str]:
    body = d.find_element(By.TAG_NAME, "body")
    return body.get_attribute("data-state"), body.get_attribute("data-phase")


def _wait(d, cond, what: str, timeout: float = 30, detail=None) -> None:
    """Poll ``cond()`` until it holds; on a timeout fail with the page's state, its error
    lines, ``detail()`` when given, and a screenshot (``timeout.png``)."""
    t0 = time.time()
    while not cond():
        if time.time() - t0 > timeout:
            errors = " / ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, ".error") if e.text)
            d.save_screenshot(str(_artifacts() / "timeout.png"))
            more = f"; {detail()}" if detail else ""
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}; page state {_state(d)}; "
                                 f"errors: {errors or '-'}{more}")
        time.sleep(0.05)


def _replay_state(d) -> str:
    """What the replay screen shows: its step, and the step and text of the values box."""
    vals = d.find_element(By.ID, "r-values")
    return (f"replay step {d.find_element(By.ID, 'r-step').get_attribute('value')!r}, values box step "
            f"{vals.get_attribute('data-step')!r} text {vals.text[:120]!r}")


def _click_move(d, phase: str) -> None:
    """The person's move by clicking: bid up to 30 and pick up, discard two cards, declare
    the first game, the first highlighted card."""
    if phase == "discard":
        for _ in range(2):
            d.find_elements(By.CSS_SELECTOR, "#hand .card.legal:not(.selected)")[0].click()
        d.find_element(By.ID, "btn-discard").click()
        return
    cards = d.find_elements(By.CSS_SELECTOR, "#hand .card.legal")
    if phase == "play" and cards:
        cards[0].click()
        return
    buttons = d.find_elements(By.CSS_SELECTOR, "#choices button.choice")
    by = {b.get_attribute("data-action"): b for b in buttons}
    if phase == "bidding":
        bids = [b for a, b in by.items() if a.isdigit() and int(a) <= 30]
        (by.get("yes") or (bids[0] if bids else by["pass"])).click()
    elif phase == "skat":
        by["pickup"].click()
    else:
        buttons[0].click()


def test_play_a_whole_deal_by_clicking(browser, server) -> None:
    d = browser
    d.get(server + "/?seat=0&seed=27&fast=1&opponents=rule_based,rule_based")
    _wait(d, lambda: d.find_element(By.ID, "setup").is_displayed(), "the setup dialog")
    d.find_element(By.ID, "btn-deal").click()
    art = _artifacts()
    seen: set[str] = set()
    shot = 0
    t0 = time.time()
    while True:
        st, ph = _state(d)
        if st == "over":
            break
        assert time.time() - t0 < 90, f"the deal did not finish (state {st}, phase {ph})"
        if st != "your-turn" or d.execute_script("return S.busy"):
            time.sleep(0.05)
            continue
        seen.add(ph)
        if ph == "play" and shot < 2 and len(d.find_elements(By.CSS_SELECTOR, "#trick .slot .card")) == 2:
            assert d.find_elements(By.CSS_SELECTOR, "#hand .card.legal")
            illegal = d.find_elements(By.CSS_SELECTOR, "#hand .card:not(.legal)")
            assert all(not c.is_enabled() for c in illegal)  # the cards that may not be played cannot be clicked
            if not shot or illegal:  # the first such moment, and better one showing cards not allowed
                d.save_screenshot(str(art / "table.png"))
                shot = 2 if illegal else 1
        n = d.execute_script("return S.view.n")
        _click_move(d, ph)
        _wait(d, lambda: d.execute_script("return S.view.n") > n or _state(d)[0] == "over", "the move to register")
    assert {"bidding", "skat", "discard", "declare", "play"} <= seen
    _wait(d, lambda: d.find_element(By.ID, "result").is_displayed(), "the result")
    text = d.find_element(By.ID, "result-text").text
    assert "Result: the declarer" in text and "Seeger-Fabian" in text
    assert d.find_element(By.ID, "result-title").text.startswith("You ")
    rows = d.find_elements(By.CSS_SELECTOR, "#list tr")
    assert len(rows) == 3  # header, the deal, the total
    d.find_element(By.ID, "btn-verdict").click()
    _wait(d, lambda: "Open-hand solver" in d.find_element(By.ID, "verdict-text").text, "the verdict")
    d.save_screenshot(str(art / "result.png"))
    assert shot, "no screenshot of the table in the card play"
    errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    # the next deal: the seats rotate, the list stays
    d.find_element(By.ID, "btn-next").click()
    _wait(d, lambda: d.execute_script("return S.view && S.view.deal_no") == 2, "the next deal")
    assert d.execute_script("return S.view.seat") == 1


def test_replay_a_game_with_the_solver(browser, server) -> None:
    d = browser
    d.get(server + "/?screen=replay&fast=1")
    _wait(d, lambda: len(d.find_elements(By.CSS_SELECTOR, "#r-games tr[data-game]")) == 6, "the games list")
    rows = d.find_elements(By.CSS_SELECTOR, "#r-games tr[data-game]")
    played = [r for r in rows if "passed" not in r.text]
    (played or rows)[0].click()
    _wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#r-moves li"), "the moves")
    _wait(d, lambda: len(d.find_elements(By.CSS_SELECTOR, "#r-lost tr")) == 4, "the points lost", 90,
          detail=lambda: _replay_state(d))
    lost = d.find_elements(By.CSS_SELECTOR, "#r-moves li.lost")
    target = lost[0] if lost else d.find_elements(By.CSS_SELECTOR, "#r-moves li.phase-play")[6]
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", target)
    n = target.get_attribute("data-n")
    target.click()
    # the click moves the replay to that step (one clean-clone CI run timed out waiting for
    # the values below without saying where the replay stood: the waits now say so)
    _wait(d, lambda: d.find_element(By.ID, "r-step").get_attribute("value") == n, f"the replay to go to step {n}",
          detail=lambda: _replay_state(d))
    _wait(d, lambda: d.find_element(By.ID, "r-values").get_attribute("data-step") == n,
          f"the solver's values at step {n}", 90, detail=lambda: _replay_state(d))
    values = d.find_elements(By.CSS_SELECTOR, "#r-values .v")
    assert any("best" in v.get_attribute("class") for v in values), \
        ([v.get_attribute("class") for v in values], d.find_element(By.ID, "r-values").text)
    assert len(d.find_elements(By.CSS_SELECTOR, "#r-values .v.played")) == 1
    summary = d.find_element(By.CSS_SELECTOR, "#r-values .summary").text
    assert ("points lost" in summary) == bool(lost)
    # one seat's view: the others' cards are face down
    d.find_element(By.CSS_SELECTOR, "#r-view option[value='1']").click()
    _wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#r-hand-0 .card img[alt='face-down card']"), "seat view")
    assert not d.find_elements(By.CSS_SELECTOR, "#r-hand-1 .card img[alt='face-down card']")
    d.find_element(By.CSS_SELECTOR, "#r-view option[value='all']").click()
    _wait(d, lambda: not d.find_elements(By.CSS_SELECTOR, "#r-hand-0 .card img[alt='face-down card']"), "all cards")
    time.sleep(0.3)
    d.save_screenshot(str(_artifacts() / "replay.png"))
    errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
