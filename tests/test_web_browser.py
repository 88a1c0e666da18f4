"""The web table in a real headless browser (Debian's Chromium through chromedriver and
Selenium), at three window sizes (1400 x 900, 800 x 900 and a phone's 400 x 800): open the
page, play a whole deal by clicking, read the result, replay games with the solver's values.
At every step that shows something new the page's layout is checked
(``web_helpers.LAYOUT_JS``): every visible text and card inside the window, no text over
another text or over a card, nothing cut off, no sideways scrolling; the test fails
otherwise. Screenshots are saved to ``$SKATSIM_ARTIFACTS`` (default ``test-artifacts/``).

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

from web_helpers import LAYOUT_JS, live_server  # noqa: E402

ROOT = Path(__file__).parent.parent
DATA = Path(__file__).parent / "data"
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
         "--disable-dev-shm-usage", "--window-size=1400,900")

#: The window sizes every screen must be usable at: a desktop, a small window, a phone.
SIZES = [(1400, 900), (800, 900), (400, 800)]


def _artifacts() -> Path:
    d = Path(os.environ.get("SKATSIM_ARTIFACTS") or ROOT / "test-artifacts")
    d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.fixture(scope="module", autouse=True)
def _fresh_artifacts():
    """Failure screenshots of an earlier run would mislead: remove them first."""
    for f in [*_artifacts().glob("layout-failure-*.png"), _artifacts() / "timeout.png"]:
        f.unlink(missing_ok=True)


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
    app = create_app(replay=[str(run), str(DATA / "iss_records.txt")], opponents=["rule_based", "rule_based"])
    with live_server(app) as url:
        yield url


def _size(d, w: int, h: int) -> None:
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})


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


def _check(d, where: str, shot: str | None = None) -> None:
    """The layout check (see the module docstring); a screenshot either way when named."""
    time.sleep(0.15)  # let a transition (a raised card) settle
    if shot:
        d.save_screenshot(str(_artifacts() / f"{shot}.png"))
    res = d.execute_script(LAYOUT_JS)
    if res["problems"]:
        d.save_screenshot(str(_artifacts() / f"layout-failure-{where.replace(' ', '_')}.png"))
    assert not res["problems"], f"layout at {where}:\n  " + "\n  ".join(res["problems"])
    assert res["texts"] > 3, f"nothing shown at {where}"


def _narrow(d) -> bool:
    return d.execute_script("return window.innerWidth") < 1000


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


def _drawer(d, button: str, where: str, shot: str | None = None) -> None:
    """On a narrow window: open a side drawer, check it, close it again."""
    if not _narrow(d):
        return
    d.find_element(By.ID, button).click()
    _check(d, where + " (drawer)", shot)
    d.find_element(By.ID, button).click()


@pytest.mark.parametrize("w,h", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_play_a_whole_deal_by_clicking(browser, server, w: int, h: int) -> None:
    d = browser
    _size(d, w, h)
    d.delete_all_cookies()
    d.get(server + "/?seat=0&seed=27&fast=1&opponents=rule_based,rule_based")
    _wait(d, lambda: d.find_element(By.ID, "setup").is_displayed(), "the setup dialog")
    tag = f"{w}x{h}"
    _check(d, f"{tag} setup", f"{tag}_setup")
    d.find_element(By.ID, "btn-deal").click()
    seen: list[str] = []
    trick_states: set[str] = set()
    t0 = time.time()
    while True:
        st, ph = _state(d)
        if st == "over":
            break
        assert time.time() - t0 < 120, f"the deal did not finish (state {st}, phase {ph})"
        if st != "your-turn" or d.execute_script("return S.busy"):
            time.sleep(0.05)
            continue
        if ph not in seen:
            seen.append(ph)
            _check(d, f"{tag} {ph}", f"{tag}_{ph}")
        if ph == "play":
            on_table = len(d.find_elements(By.CSS_SELECTOR, "#trick .slot .card"))
            last = "last" in d.find_element(By.ID, "trick").get_attribute("class")
            key = "lead after a trick" if last else f"{on_table} on the table"
            if key not in trick_states:  # each kind of moment once: the note beside "Your lead."
                trick_states.add(key)
                _check(d, f"{tag} play, {key}", f"{tag}_play_{key.replace(' ', '_')}")
                illegal = d.find_elements(By.CSS_SELECTOR, "#hand .card:not(.legal)")
                assert all(not c.is_enabled() for c in illegal)  # cards that may not be played cannot be clicked
        n = d.execute_script("return S.view.n")
        _click_move(d, ph)
        _wait(d, lambda: d.execute_script("return S.view.n") > n or _state(d)[0] == "over", "the move to register")
    assert {"bidding", "skat", "discard", "declare", "play"} <= set(seen)
    assert "lead after a trick" in trick_states
    _wait(d, lambda: d.find_element(By.ID, "result").is_displayed(), "the result")
    # the end of the deal: every hand as dealt, the skat and the last trick beside the settlement
    assert len(d.find_elements(By.CSS_SELECTOR, "#hand .card")) == 10
    assert len(d.find_elements(By.CSS_SELECTOR, "#opp-left .fan .card img:not([alt='face-down card'])")) == 10
    assert len(d.find_elements(By.CSS_SELECTOR, "#skat .card")) >= 2
    assert len(d.find_elements(By.CSS_SELECTOR, "#trick .slot .card")) == 3
    title = d.find_element(By.ID, "result-title").text
    assert title.startswith("You "), title
    d.find_element(By.CSS_SELECTOR, "#result-details summary").click()
    text = d.find_element(By.ID, "result-text").text
    assert "Result: You " in text and "Seeger-Fabian" in text and "seat 0" not in text
    d.find_element(By.ID, "btn-verdict").click()
    _wait(d, lambda: "Open-hand solver" in d.find_element(By.ID, "verdict-text").text, "the verdict")
    _check(d, f"{tag} result", f"{tag}_result")
    _drawer(d, "btn-side", f"{tag} result", f"{tag}_info")
    rows = d.find_elements(By.CSS_SELECTOR, "#list tr")
    assert len(rows) == 3  # header, the deal, the total
    errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    # the next deal: the seats rotate, the list stays
    d.find_element(By.ID, "btn-next").click()
    _wait(d, lambda: d.execute_script("return S.view && S.view.deal_no") == 2, "the next deal")
    assert d.execute_script("return S.view.seat") == 1


def _open_replay_game(d, source: str, pick) -> None:
    """Choose replay source ``source`` and the first game ``pick(row text)`` accepts."""
    if _narrow(d):
        d.find_element(By.ID, "btn-games").click()
    d.find_element(By.CSS_SELECTOR, f"#r-source option[value='{source}']").click()
    _wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#r-games tr[data-game]"), "the games list")
    time.sleep(0.2)
    rows = d.find_elements(By.CSS_SELECTOR, "#r-games tr[data-game]")
    row = next(r for r in rows if pick(r.get_attribute("title")))
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
    row.click()
    _wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#r-moves li"), "the moves")


@pytest.mark.parametrize("w,h", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_replay_games_with_the_solver(browser, server, w: int, h: int) -> None:
    d = browser
    _size(d, w, h)
    tag = f"{w}x{h}"
    d.get(server + "/?screen=replay&fast=1")
    _wait(d, lambda: len(d.find_elements(By.CSS_SELECTOR, "#r-games tr[data-game]")) == 6, "the games list")
    if _narrow(d):  # the games list is a drawer
        d.find_element(By.ID, "btn-games").click()
        _check(d, f"{tag} replay games", f"{tag}_replay_games")
        d.find_element(By.ID, "btn-games").click()
    else:
        _check(d, f"{tag} replay list", f"{tag}_replay_list")
    _open_replay_game(d, "0", lambda t: "passed" not in t)
    _wait(d, lambda: len(d.find_elements(By.CSS_SELECTOR, "#r-lost tr")) >= 4, "the points lost", 120,
          detail=lambda: _replay_state(d))
    lost = d.find_elements(By.CSS_SELECTOR, "#r-moves li.lost")
    target = lost[0] if lost else d.find_elements(By.CSS_SELECTOR, "#r-moves li.phase-play")[6]
    n = target.get_attribute("data-n")
    d.execute_script("arguments[0].click()", target)  # a click in the move list (a drawer on a phone)
    _wait(d, lambda: d.find_element(By.ID, "r-step").get_attribute("value") == n, f"the replay to go to step {n}",
          detail=lambda: _replay_state(d))
    _wait(d, lambda: d.find_element(By.ID, "r-values").get_attribute("data-step") == n,
          f"the solver's values at step {n}", 120, detail=lambda: _replay_state(d))
    values = d.find_elements(By.CSS_SELECTOR, "#r-values .v")
    assert any("best" in v.get_attribute("class") for v in values)
    assert len(d.find_elements(By.CSS_SELECTOR, "#r-values .v.played")) == 1
    summary = d.find_element(By.CSS_SELECTOR, "#r-values .summary").get_attribute("textContent")
    assert ("card points lost" in summary) == bool(lost), summary
    # the counter and the move list count alike: "move k / n" and the k-th entry is current
    k = int(n) + 1
    assert d.find_element(By.ID, "r-stepinfo").text.startswith(f"move {k} /")
    assert d.find_element(By.CSS_SELECTOR, "#r-moves li.cur").get_attribute("data-n") == n
    _check(d, f"{tag} replay at a card", f"{tag}_replay")
    _drawer(d, "btn-side", f"{tag} replay", f"{tag}_replay_info")
    # one seat's view: the others' cards are face down, the move list names nothing hidden
    d.find_element(By.CSS_SELECTOR, "#r-view option[value='1']").click()
    _wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#r-hand-0 .card img[alt='face-down card']"), "seat view")
    assert not d.find_elements(By.CSS_SELECTOR, "#r-hand-1 .card img[alt='face-down card']")
    _check(d, f"{tag} replay seat view", f"{tag}_replay_seat")
    d.find_element(By.CSS_SELECTOR, "#r-view option[value='all']").click()
    _wait(d, lambda: not d.find_elements(By.CSS_SELECTOR, "#r-hand-0 .card img[alt='face-down card']"), "all cards")
    # an ISS game with schwarz announced: values in the goal's terms, the list fits its panel
    _open_replay_game(d, "1", lambda t: "schwarz" in t and "26496" in t)
    _wait(d, lambda: d.find_element(By.ID, "r-values").get_attribute("data-step"), "the values", 120,
          detail=lambda: _replay_state(d))
    shown = {e.get_attribute("textContent") for e in d.find_elements(By.CSS_SELECTOR, "#r-values .v .num")}
    assert shown <= {"made", "fails"}, shown
    _wait(d, lambda: "games thrown" in d.find_element(By.ID, "r-lost").get_attribute("textContent"), "the unit")
    _check(d, f"{tag} replay ISS schwarz", f"{tag}_replay_iss")
    if _narrow(d):
        d.find_element(By.ID, "btn-games").click()
        _check(d, f"{tag} ISS games list", f"{tag}_replay_iss_list")
        d.find_element(By.ID, "btn-games").click()
    # a decision before the card play: the bid
    d.execute_script("goStep(0)")
    _wait(d, lambda: d.find_element(By.ID, "r-values-head").get_attribute("textContent") == "The bid", "the bid's panel")
    _check(d, f"{tag} replay bid", None)
    # the skat and the declaration, valued by the server's analysis agent (skat_search over sampled worlds)
    for phase, head in (("skat", "Pick up or hand"), ("declare", "The declaration")):
        n = d.execute_script(f"return S.r.data.moves.find((m) => m.phase === '{phase}').n")
        d.execute_script(f"goStep({n})")
        _wait(d, lambda: d.find_element(By.ID, "r-values").get_attribute("data-step") == str(n)
              and d.find_element(By.ID, "r-values-head").get_attribute("textContent") == head, f"the {phase} panel",
              180, detail=lambda: _replay_state(d))
        cells = d.find_elements(By.CSS_SELECTOR, "#r-values .v.action")
        assert len(cells) >= 2 and sum("played" in c.get_attribute("class") for c in cells) == 1
        assert "skat_search" in d.find_element(By.CSS_SELECTOR, "#r-values .unit").get_attribute("textContent")
        if _narrow(d):
            _drawer(d, "btn-side", f"{tag} replay {phase}", f"{tag}_replay_{phase}")
        else:
            _check(d, f"{tag} replay {phase}", f"{tag}_replay_{phase}")
    errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


class _Valued:
    """A test agent that gives values: action k of the legal list is worth -k."""

    name = "web_values"

    def act(self, obs):
        return obs.legal_actions[0]

    def action_values(self, obs):
        from types import SimpleNamespace

        return SimpleNamespace(values={a: -float(k) for k, a in enumerate(obs.legal_actions)}, unit="test points",
                               chosen=obs.legal_actions[0])


@pytest.fixture(scope="module")
def server_with_values():
    from agents.arena.base import register, unregister
    from skatsim_app.web import create_app

    register("web_values", _Valued, {}, defaults={}, doc="a test agent that gives values", replace=True)
    try:
        app = create_app(replay=[str(DATA / "iss_records.txt")], opponents=["random", "random"],
                         analysis_agent="web_values")
        with live_server(app) as url:
            yield url
    finally:
        unregister("web_values")


@pytest.mark.parametrize("w,h", [SIZES[0], SIZES[2]], ids=["1400x900", "400x800"])
def test_the_hint_and_a_replays_decisions_with_an_agent_that_gives_values(browser, server_with_values, w, h) -> None:
    d = browser
    _size(d, w, h)
    tag = f"{w}x{h}"
    d.delete_all_cookies()
    d.get(server_with_values + "/?seat=0&seed=5&fast=1&opponents=random,random")
    _wait(d, lambda: d.find_element(By.ID, "setup").is_displayed(), "the setup dialog")
    d.find_element(By.ID, "btn-deal").click()
    _wait(d, lambda: _state(d)[0] == "your-turn" and not d.execute_script("return S.busy"), "your turn")
    d.find_element(By.ID, "btn-hint").click()
    _wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#hints .h-item"), "the hint")
    items = d.find_elements(By.CSS_SELECTOR, "#hints .h-item")
    legal = d.execute_script("return S.view.legal")
    assert len(items) == len(legal) and "best" in items[0].get_attribute("class")
    assert "web_values" in d.find_element(By.CSS_SELECTOR, "#hints .h-note").text
    _check(d, f"{tag} hint", f"{tag}_hint")
    # the replay: the first bid of an ISS game, judged by the server's analysis agent
    d.get(server_with_values + "/?screen=replay&fast=1")
    _wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#r-games tr[data-game]"), "the games list")
    d.execute_script("openGame(0)")
    _wait(d, lambda: d.execute_script("return S.r.data !== null && S.r.data.moves.length > 0"), "the game")
    d.execute_script("goStep(0)")
    _wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#r-values .v.action"), "the bid's values", 120)
    cells = d.find_elements(By.CSS_SELECTOR, "#r-values .v.action")
    assert sum("played" in c.get_attribute("class") for c in cells) == 1
    assert sum("chosen" in c.get_attribute("class") for c in cells) == 1
    assert "analysis agent (web_values)" in d.find_element(By.CSS_SELECTOR, "#r-values .unit").get_attribute(
        "textContent")
    if _narrow(d):
        _drawer(d, "btn-side", f"{tag} replay decision", f"{tag}_replay_decision")
    else:
        _check(d, f"{tag} replay decision", f"{tag}_replay_decision")
    errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
