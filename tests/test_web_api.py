"""The web table's API through Starlette's TestClient: full deals by requests through every
phase (Kontra/Re included), bad requests (4xx, nothing changed), the information the
browser gets (never a card the person's seat cannot see), sessions, the running list, the
solver's verdict, a slow AI that does not hold up other requests, the static files and
``skatsim serve`` itself."""

from __future__ import annotations

import fnmatch
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.testclient import TestClient  # noqa: E402

from skatsim.cards import CardSet  # noqa: E402
from skatsim.options import SkatRules  # noqa: E402
from skatsim_app.web import create_app  # noqa: E402
from skatsim_app.web.cards_svg import CARDS_DIR, all_cards  # noqa: E402
from skatsim_app.web.server import STATIC  # noqa: E402
from web_helpers import cards_in, choose, client, live_server, visible_cards  # noqa: E402

ROOT = Path(__file__).parent.parent
KONTRA = SkatRules(kontra=True)
JSON = {"content-type": "application/json"}


def _client(**options) -> TestClient:
    options.setdefault("opponents", ["rule_based", "rule_based"])
    options.setdefault("time_limit", 600.0)  # a cold numba cache compiles inside the AI's first decisions
    return client(create_app(**options))


def _game(client: TestClient):
    web = client.app.state.web
    (sess,) = web.sessions.values()
    return sess.game


def _play(client: TestClient, view: dict, role: str = "declare", level: str | None = None,
          on_response=None) -> tuple[dict, list[str]]:
    """Play the deal to its end by requests; returns the last view and the person's phases."""
    phases = []
    while not view["over"]:
        if view["your_turn"]:
            phases.append(view["phase"])
            r = client.post("/api/play/act", json={"action": choose(view, role, level), "expect": view["n"]})
        else:
            r = client.post("/api/play/advance", json={})
        assert r.status_code in (200, 202), r.text
        if on_response is not None:
            on_response(r)
        view = r.json()["view"]
    return view, phases


def test_a_deal_as_declarer_through_every_phase_with_re() -> None:
    with _client(rules=KONTRA) as c:
        v = c.post("/api/play/new", json={"seat": 0, "seed": 3}).json()["view"]
        assert (v["phase"], v["seat"], v["to_move"], v["your_turn"], len(v["hands"][0])) == ("bidding", 0, 1, False, 10)
        assert v["rules"] == {"kontra": True, "ramsch": False}
        v, phases = _play(c, v)
        assert {"bidding", "skat", "discard", "declare", "kontra", "play"} <= set(phases)
        state = _game(c).state
        assert state.is_terminal() and state.declarer == 0
        r = v["result"]
        # the settlement shown is the rules core's, Kontra and Re doubling twice
        assert r["kontra"] == 2 and r["list_score"] == state.result.list_score
        assert r["seeger_fabian"] == list(state.result.seeger_fabian)
        assert "Kontra and Re" in r["explanation"] and "Result: You " in r["explanation"]
        assert " C (" not in r["explanation"] and "seat 0" not in r["explanation"]  # table names, no raw codes
        said = [e["kind"] for e in v["events"] if e["phase"] == "kontra"]
        assert said == ["kontra", "re"]
        # every move of the game is in the log, in order
        assert len(v["events"]) == len(state.history()) == v["n"]
        assert [e["seat"] for e in v["events"]] == [p for p, _ in state.history_with_players()]
        assert v["list"][0]["contract"] == state.result.contract and v["totals"] == v["list"][0]["sf"]


def test_a_deal_as_defender_saying_kontra() -> None:
    with _client(rules=KONTRA) as c:
        v = c.post("/api/play/new", json={"seat": 0, "seed": 22}).json()["view"]
        v, phases = _play(c, v, role="defend")
        assert "kontra" in phases and "discard" not in phases
        ev = [(e["seat"], e["kind"]) for e in v["events"] if e["phase"] == "kontra"]
        assert ev[0] == (0, "kontra")
        assert v["result"]["kontra"] == _game(c).state.result.kontra >= 1


def test_a_hand_game_with_schneider_announced_and_the_verdict() -> None:
    with _client() as c:
        v = c.post("/api/play/new", json={"seat": 0, "seed": 3}).json()["view"]
        assert c.post("/api/play/verdict", json={}).status_code == 409  # not before the end
        v, phases = _play(c, v, level="schneider")
        c_ = _game(c).state.contract
        assert "discard" not in phases and c_.hand and c_.schneider_announced
        assert v["result"]["verdict_available"]
        r = c.post("/api/play/verdict", json={})
        assert r.status_code == 200 and r.json()["verdict"].startswith("Open-hand solver:")
        assert r.json()["view"]["verdict"] == r.json()["verdict"]


def test_bad_requests_are_4xx_with_a_message_and_change_nothing() -> None:
    with _client() as c:
        assert c.post("/api/play/act", json={"action": "18"}).status_code == 404  # no game yet
        assert c.post("/api/play/new", json={"seat": 5}).status_code == 400
        assert c.post("/api/play/new", json={"opponents": ["rule_based"]}).status_code == 400
        r = c.post("/api/play/new", json={"opponents": ["rule_based", "nobody"]})
        assert r.status_code == 400 and "nobody" in r.json()["error"]
        assert c.post("/api/play/new", json={"deck": "tarot"}).status_code == 400
        assert c.post("/api/play/new", json={"kontra": "yes"}).status_code == 400
        v = c.post("/api/play/new", json={"seat": 0, "seed": 3}).json()["view"]
        assert c.get("/api/play").json()["view"]["n"] == 0
        # out of turn: middlehand (an AI) speaks first
        r = c.post("/api/play/act", json={"action": "18"})
        assert r.status_code == 409 and "not your turn" in r.json()["error"]
        while not v["your_turn"]:
            v = c.post("/api/play/advance", json={}).json()["view"]
        before = c.get("/api/play").json()["view"]
        held = set(before["hands"][0])
        not_held = next(f"{s}{r}" for s in "CSHD" for r in ("J", "A", "10", "K", "Q", "9", "8", "7")
                        if f"{s}{r}" not in held)
        bad = [
            (400, c.post("/api/play/act", content=b"{not json", headers=JSON)),
            (400, c.post("/api/play/act", content=b"[1, 2]", headers=JSON)),
            (400, c.post("/api/play/act", json={})),
            (400, c.post("/api/play/act", json={"action": 18})),
            (400, c.post("/api/play/act", json={"action": "eighteen"})),
            (400, c.post("/api/play/act", json={"action": "pass", "cheat": True})),
            (400, c.post("/api/play/act", json={"action": "pass", "expect": "3"})),
            (400, c.post("/api/play/act", json={"action": "17"})),          # not on the bid ladder
            (422, c.post("/api/play/act", json={"action": not_held})),      # a card, in the bidding
            (422, c.post("/api/play/act", json={"action": "pickup"})),
            (409, c.post("/api/play/act", json={"action": "pass", "expect": before["n"] + 1})),
            (409, c.post("/api/play/advance", json={})),                              # it is the person's turn
            (400, c.post("/api/play/deck", json={"deck": "tarot"})),
            (404, c.get("/api/nothing")),
            (405, c.get("/api/play/act")),
        ]
        for status, r in bad:
            assert r.status_code == status, (r.request.content, r.status_code, r.text)
            assert isinstance(r.json()["error"], str) and r.json()["error"]
            assert c.get("/api/play").json()["view"] == before
        assert "valid bid" in bad[7][1].json()["error"]
        assert f"{not_held} cannot be played now: the phase is bidding" in bad[8][1].json()["error"]
        # a card not held, and a card that does not follow suit, in the card play
        v, _ = _advance_to_card(c, before)
        held = set(v["hands"][v["seat"]])
        illegal = [x for x in v["hands"][v["seat"]] if x not in v["legal_cards"]]
        r = c.post("/api/play/act", json={"action": next(x for x in ("CJ", "SJ", "HJ", "DJ", "CA", "SA", "HA", "DA")
                                                           if x not in held and x not in _on_table(v))})
        assert r.status_code == 422 and "do not hold" in r.json()["error"]
        if illegal:
            r = c.post("/api/play/act", json={"action": illegal[0]})
            assert r.status_code == 422 and "follow" in r.json()["error"]
        assert c.get("/api/play").json()["view"] == v
        v, _ = _play(c, v)
        r = c.post("/api/play/act", json={"action": "pass"})
        assert r.status_code == 409 and "over" in r.json()["error"]


def _on_table(v: dict) -> set[str]:
    return set(v["trick"]["cards"]) | {x for t in v["tricks"] for x in t["cards"]}


def _advance_to_card(c: TestClient, v: dict) -> tuple[dict, int]:
    n = 0
    while not (v["your_turn"] and v["phase"] == "play" and v["trick"]["cards"]):
        assert not v["over"]
        if v["your_turn"]:
            r = c.post("/api/play/act", json={"action": choose(v, "defend"), "expect": v["n"]})
        else:
            r = c.post("/api/play/advance", json={})
        v = r.json()["view"]
        n += 1
    return v, n


@pytest.mark.parametrize("seed,role", [(3, "declare"), (22, "defend"), (7, "defend")])
def test_no_response_names_a_card_the_seat_cannot_see(seed: int, role: str) -> None:
    """Every response of a whole deal is searched for card names; each must be one the
    person's seat has seen by then (its observation, accumulated over the deal). Once the
    deal is over the whole deal is shown (every hand as dealt, the skat)."""
    with _client(rules=KONTRA) as c:
        seen: set[str] = set()
        checked = [0]

        def check(r) -> None:
            game = _game(c)
            seen.update(visible_cards(game.state.observation(game.seat)))
            named = cards_in(r.text)
            view = r.json().get("view")
            if view is not None and view["over"]:
                assert len(named) == 32 and sorted(sum(view["deal"]["hands"], view["deal"]["skat"])) == sorted(
                    game.state.deal.hands[0].to_text().split() + game.state.deal.hands[1].to_text().split()
                    + game.state.deal.hands[2].to_text().split() + game.state.deal.skat.to_text().split())
                return
            assert named <= seen, f"response names unseen cards {sorted(named - seen)}: {r.text[:300]}"
            checked[0] += 1

        r = c.post("/api/play/new", json={"seat": 0, "seed": seed})
        check(r)
        assert set(r.json()["view"]["hands"][0]) == cards_in(r.text)  # the only cards at the start: the hand
        check(c.get("/api/config"))
        v, _ = _play(c, r.json()["view"], role=role, on_response=check)
        check(c.get("/api/play"))
        if v["result"]["verdict_available"]:
            check(c.post("/api/play/verdict", json={}))
        check(c.post("/api/play/deck", json={"deck": "french"}))
        state = _game(c).state
        assert checked[0] > 20
        skat = set(CardSet.from_mask(state.skat_mask()).to_text().split())  # the discards, or the untouched skat
        if state.declarer == 0:
            assert skat <= seen
        else:  # a defender never sees them, and no response before the end named them
            assert state.declarer is not None and not skat & seen


def test_the_others_discards_are_hidden_and_the_found_skat_shown_to_the_declarer() -> None:
    with _client() as c:
        v = c.post("/api/play/new", json={"seat": 0, "seed": 22}).json()["view"]
        v, _ = _play(c, v, role="defend")
        state = _game(c).state
        if state.skat_picked_up:
            disc = [e for e in v["events"] if e["kind"] == "discard"]
            assert len(disc) == 2 and all("card" not in e for e in disc)
            assert all("discards a card" in t for t in v["log"] if "discard" in t)
        v = c.post("/api/play/new", json={"seat": 0, "seed": 3}).json()["view"]
        while not (v["your_turn"] and v["phase"] == "discard"):
            v = (c.post("/api/play/act", json={"action": choose(v)}) if v["your_turn"]
                 else c.post("/api/play/advance", json={})).json()["view"]
        game = _game(c)
        assert sorted(v["skat_found"]) == sorted(game.state.deal.skat.to_text().split())
        assert len(v["hands"][0]) == 12 and v["hands"][1:] == [10, 10]


def test_next_deal_keeps_the_list_and_rotates_the_seats() -> None:
    with _client() as c:
        v = c.post("/api/play/new", json={"seat": 0, "seed": 3, "opponents": ["random", "rule_based"]}).json()["view"]
        assert v["players"] == ["you", "random", "rule_based"]
        v, _ = _play(c, v)
        first = v["list"][0]
        v = c.post("/api/play/new", json={}).json()["view"]
        assert (v["deal_no"], v["seat"], v["over"]) == (2, 1, False)
        assert v["players"] == ["rule_based", "you", "random"]  # left of you is always the first AI
        v, _ = _play(c, v)
        assert v["list"][0] == first and len(v["list"]) == 2
        assert v["totals"] == [first["sf"][k] + v["list"][1]["sf"][k] for k in range(3)]
        # another browser has its own game
        with _client() as other:
            assert other.get("/api/play").json()["view"] is None


def test_deck_names_follow_the_deck() -> None:
    with _client() as c:
        v = c.post("/api/play/new", json={"seat": 0, "seed": 3}).json()["view"]
        v, _ = _play(c, v)
        assert v["deck"] == "german" and any("Eichel" in t or "Schellen" in t for t in v["log"])
        fr = c.post("/api/play/deck", json={"deck": "french"}).json()["view"]
        assert fr["deck"] == "french" and not any("Schellen" in t or "Unter" in t for t in fr["log"])
        assert fr["events"] == v["events"]


class _Sleepy:
    """An agent that thinks ``seconds`` before passing (a test of the time limit)."""

    name = "web_sleepy"

    def __init__(self, seconds: float = 5.0) -> None:
        self.seconds = seconds

    def act(self, obs):
        time.sleep(self.seconds)
        return obs.legal_actions[-1]


def test_a_slow_ai_is_stopped_at_its_time_limit_and_blocks_nobody() -> None:
    import httpx2 as httpx

    from agents.arena.base import register, unregister

    register("web_sleepy", _Sleepy, {"seconds": "how long it thinks"}, defaults={"seconds": 5.0})
    try:
        app = create_app(opponents=["web_sleepy", "rule_based"], time_limit=1.0, wait=0.2)
        with live_server(app) as url:
            with httpx.Client(base_url=url, timeout=20) as c:
                c.post("/api/play/new", json={"seat": 0, "seed": 3}).raise_for_status()
                t0 = time.time()
                r = c.post("/api/play/advance", json={})  # middlehand = the sleepy AI
                assert r.status_code == 202 and r.json()["thinking"]
                lat = []
                for _ in range(3):  # another browser is served while the AI thinks
                    t = time.time()
                    assert httpx.get(url + "/api/config", timeout=5).status_code == 200
                    lat.append(time.time() - t)
                while r.status_code == 202:
                    time.sleep(0.1)
                    r = c.post("/api/play/advance", json={})
                waited = time.time() - t0
                v = r.json()["view"]
        assert max(lat) < 0.5, lat
        assert 0.9 < waited < 8.0, waited  # the 1 s limit, then the pass (slack for a loaded machine)
        err = [e for e in v["events"] if e["kind"] == "error"]
        assert err and "time limit of 1 s" in err[0]["text"] and err[0]["seat"] == 1
        assert v["events"][-1]["kind"] == "pass" and v["events"][-1]["seat"] == 1  # treated as a pass
    finally:
        unregister("web_sleepy")


def test_static_files_ship_and_the_drawings_are_up_to_date() -> None:
    with _client() as c:
        r = c.get("/")
        assert r.status_code == 200 and "/static/app.js" in r.text
        assert c.get("/static/app.js").status_code == 200 and c.get("/static/app.css").status_code == 200
        r = c.get("/static/cards/german/CJ.svg")
        assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg")
    for (deck, name), svg in all_cards().items():
        path = CARDS_DIR / deck / f"{name}.svg" if deck else CARDS_DIR / f"{name}.svg"
        assert path.read_text(encoding="utf-8") == svg + "\n", f"{path} is stale: python -m skatsim_app.web.cards_svg"
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = data["tool"]["setuptools"]["package-data"]["skatsim_app"]
    for f in STATIC.rglob("*"):
        if f.is_file():
            rel = f.relative_to(ROOT / "skatsim_app").as_posix()
            assert any(fnmatch.fnmatch(rel, g) and rel.count("/") == g.count("/") for g in globs), rel
    text = "".join(f.read_text() for f in STATIC.glob("*.*"))
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text  # no CDN


def test_every_deck_is_read_by_its_corner_and_the_four_colour_deck_has_four_colours() -> None:
    """A fanned card shows only its corner: each shipped card has a corner index (rank and
    suit sign) at least a quarter of the card wide, Unter and Ober (Jack and Queen) by
    different letters, and every suit of the German and the four-colour French deck its own
    colour (the two-colour French deck: red and black)."""
    import re

    from skatsim_app.web.cards_svg import W
    from skatsim_app.web.names import DECKS

    assert set(DECKS) == {"german", "french", "french4"}
    for deck in DECKS:
        colours, ranks = {}, {}
        for suit in "CSHD":
            for rank in ("J", "Q", "K", "A", "10", "9", "8", "7"):
                svg = (CARDS_DIR / deck / f"{suit}{rank}.svg").read_text(encoding="utf-8")
                m = re.search(r'<g class="index">.*?font-size="(\d+)" fill="(#[0-9a-f]{6})"[^>]*>([^<]+)</text>', svg)
                assert m, (deck, suit, rank)
                assert int(m.group(1)) >= W / 4, (deck, suit, rank, m.group(1))
                colours.setdefault(suit, set()).add(m.group(2))
                ranks.setdefault(rank, set()).add(m.group(3))
                assert svg.count('class="index"') == 2  # both corners
        assert all(len(c) == 1 for c in colours.values()), colours  # one colour per suit
        n_colours = len({next(iter(c)) for c in colours.values()})
        assert n_colours == (2 if deck == "french" else 4), (deck, colours)
        letters = {r: next(iter(v)) for r, v in ranks.items()}
        assert len(set(letters.values())) == 8, (deck, letters)  # every rank its own index
        assert (letters["J"], letters["Q"]) == (("U", "O") if deck == "german" else ("J", "Q"))


def test_skatsim_serve_prints_its_url_and_serves() -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    p = subprocess.Popen([sys.executable, "-m", "skatsim_app", "serve", "--port", "0", "--no-warmup"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    try:
        line = ""
        t0 = time.time()
        while "http://" not in line and time.time() - t0 < 60:
            line = p.stdout.readline()
            if not line and p.poll() is not None:
                raise AssertionError(f"serve ended: {p.stderr.read()}")
        url = line.split()[2]
        assert url.startswith("http://127.0.0.1:")
        import urllib.request

        with urllib.request.urlopen(url + "api/config", timeout=10) as r:
            assert json.loads(r.read())["default_opponents"] == ["rule_based", "pimc"]
    finally:
        p.terminate()
        p.wait(timeout=10)


def test_serve_refuses_a_bad_replay_path(capsys) -> None:
    from skatsim_app.cli import main

    assert main(["serve", "--replay", "/nonexistent/run", "--no-warmup"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_the_observation_reaches_the_ai_process_whole_and_read_only() -> None:
    import pickle
    from types import MappingProxyType

    import numpy as np

    from skatsim import SkatState
    from skatsim_app.web.seats import _pack, _unpack

    s = SkatState.new_game(seed=3, rules=KONTRA)
    for a in ("18", "yes", "pass", "pass", "pickup"):
        s.apply_action(s.string_to_action(a))
    obs = s.observation(0)
    back = _unpack(pickle.loads(pickle.dumps(_pack(obs))))  # what the pipe to the child carries
    assert type(back) is type(obs)
    for f in ("seat", "phase", "hand", "legal_actions", "bids", "skat", "tricks", "points", "voids"):
        assert getattr(back, f) == getattr(obs, f), f
    assert np.array_equal(back.tensor, obs.tensor) and np.array_equal(back.view, obs.view)
    assert not back.tensor.flags.writeable and not back.view.flags.writeable
    assert set(back.views) == set(obs.views) and isinstance(back.views, MappingProxyType)
    assert all(np.array_equal(back.views[k], obs.views[k]) for k in obs.views)


def test_ramsch_when_everybody_passes() -> None:
    with _client(rules=SkatRules(ramsch=True)) as c:
        for seed in (4, 5):
            v = c.post("/api/play/new", json={"seat": 0, "seed": seed}).json()["view"]
            v, phases = _play(c, v, role="defend")
            if v["result"]["ramsch"]:
                break
        else:
            pytest.fail("no all-pass deal among the seeds: pick another")
        r = v["result"]
        assert r["declarer"] is None and r["explanation"].startswith("Ramsch:") and not r["verdict_available"]
        assert sum(e["kind"] == "card" for e in v["events"]) == 30 and "play" in phases
        assert v["list"][-1]["contract"] == "R" and v["list"][-1]["contract_label"] == "Ramsch"
        assert c.post("/api/play/verdict", json={}).status_code == 409
