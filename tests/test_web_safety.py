"""Attacks on the web table (``skatsim serve``), each of which must fail: code from a request
(an importable ``module:function`` as an opponent, a checkpoint path as a parameter), and
the other findings of ``browser-pass-1``'s safety part as they are fixed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from skatsim_app.web import create_app  # noqa: E402
from skatsim_app.web.offer import AgentOffer, browser_params  # noqa: E402
from web_helpers import SMALL_ANALYSIS, client  # noqa: E402


def _client(**options):
    options.setdefault("opponents", ["random", "random"])
    options.setdefault("agent_mode", "thread")
    return client(create_app(**options))


@pytest.fixture
def marker_module(tmp_path: Path, monkeypatch):
    """A module on the Python path whose import (or whose ``Bot``'s call) writes a file: had
    the server imported or called anything a request named, the file would exist."""
    hit = tmp_path / "PWNED"
    (tmp_path / "skatsim_pwn_marker.py").write_text(
        f"open({str(hit)!r}, 'w').write('imported')\n"
        "class Bot:\n"
        "    name = 'bot'\n"
        "    def __init__(self, **kw):\n"
        f"        open({str(hit)!r}, 'w').write('called')\n"
        "    def act(self, obs):\n"
        "        return obs.legal_actions[0]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield hit
    sys.modules.pop("skatsim_pwn_marker", None)


def test_the_reported_command_injection_is_refused(tmp_path: Path) -> None:
    """browser-pass-1, problem 1: this request ran ``touch`` through ``os.system``."""
    target = tmp_path / "PWNED"
    with _client() as c:
        r = c.post("/api/play/new", json={"opponents": [f"os:system:command=touch {target}", "rule_based"]})
        assert 400 <= r.status_code < 500 and "unknown agent 'os'" in r.json()["error"]
        assert not target.exists()
        assert c.get("/api/play").json()["view"] is None


@pytest.mark.parametrize("opponent", [
    "skatsim_pwn_marker:Bot",
    "skatsim_pwn_marker:Bot:x=1",
    "skatsim_pwn_marker.sub:Bot",
    "agents.pimc:PIMCAgent",                     # a real agent class by import path: still not by request
    "agents.random_agent:RandomAgent",
    "agents.players.pimc:PIMCAgent",
    "builtins:eval:source=1",
    "subprocess:run:args=true",
    "os.path:exists:path=/etc/passwd",
    "importlib:import_module:name=skatsim_pwn_marker",
    {"name": "skatsim_pwn_marker:Bot"},
    {"name": "os:system", "params": {"command": "true"}},
    ["skatsim_pwn_marker:Bot"],
    "dmc:model=/etc/passwd",                     # a checkpoint path is the operator's only
    "dmc:model=agents/models/dmc_v2",
    "neural_bidder:model=/etc/passwd",
    {"name": "neural_bidder", "params": {"model": "/etc/passwd"}},
    "pimc:tt_bits=30",                           # the solver's memory: the operator's only
    "pimc:log=true",
    "rule_based:bid_threshold=2",                # out of the agent's range
    "pimc:worlds=nan",
    "pimc:worlds=inf",
    "pimc:worlds=0",
    "pimc:rule=skatsim_pwn_marker",              # not one of its choices
    "pimc:__class__=1",
    "random:x=1",
    "x" * 5000,
])
def test_no_opponent_is_imported_called_or_opened_from_a_request(marker_module: Path, opponent) -> None:
    modules = set(sys.modules)
    with _client() as c:
        r = c.post("/api/play/new", json={"opponents": [opponent, "random"]})
        assert r.status_code == 400, r.text
        assert len(r.json()["error"]) < 400  # a short excerpt of the input at most
        assert c.get("/api/play").json()["view"] is None
    assert not marker_module.exists()
    assert "skatsim_pwn_marker" not in sys.modules and not {m for m in set(sys.modules) - modules
                                                            if m.startswith(("skatsim_pwn", "subprocess"))}


def test_the_operator_adds_agents_by_name_and_the_page_lists_them(marker_module: Path) -> None:
    with _client(agents={"mine": "skatsim_pwn_marker:Bot", "strong": "pimc:worlds=64"},
                 opponents=["mine", "pimc:worlds=8"]) as c:
        assert marker_module.read_text() == "imported"  # resolved at start-up, by the operator
        config = c.get("/api/config").json()
        agents = config["agents"]
        assert {"mine", "strong", "pimc", "rule_based"} <= set(agents)
        assert config["default_opponents"] == ["mine", "pimc:worlds=8"]
        assert agents["mine"]["operator"] and agents["mine"]["params"] == {}
        assert "model" not in agents["dmc"]["params"] and "tt_bits" not in agents["pimc"]["params"]
        assert agents["pimc"]["params"]["rule"] == {"default": "wins", "doc": agents["pimc"]["params"]["rule"]["doc"],
                                                    "kind": "choice", "choices": ["wins", "points"]}
        v = c.post("/api/play/new", json={"opponents": ["mine", "strong"], "seat": 0, "seed": 1}).json()["view"]
        assert v["players"] == ["you", "mine", "strong"] and v["settings"]["opponents"] == ["mine", "strong"]
        assert marker_module.read_text() == "called"
        # an operator's agent takes no parameters from a request; a registry agent takes checked ones
        assert c.post("/api/play/new", json={"opponents": ["mine:x=1", "random"]}).status_code == 400
        v = c.post("/api/play/new", json={"opponents": [{"name": "pimc", "params": {"worlds": 4, "rule": "points"}},
                                                        "rule_based:no_null=1"]}).json()["view"]
        assert v["settings"]["opponents"] == ["pimc:rule=points,worlds=4", "rule_based:no_null=1"]


def test_the_offer_refuses_to_shadow_a_registry_name() -> None:
    with pytest.raises(ValueError, match="registry agent already"):
        AgentOffer({"pimc": "random"})
    with pytest.raises(ValueError, match="letters, digits"):
        AgentOffer({"a:b": "random"})


def test_no_free_text_parameter_is_settable_from_the_browser() -> None:
    """Every parameter a request may set is a bool, a range-checked number or a choice."""
    from agents import list_agents

    for name in list_agents():
        for k, p in browser_params(name).items():
            assert p["kind"] in ("bool", "number", "choice"), (name, k)
            if isinstance(p["default"], str):
                assert p["kind"] == "choice" and "/" not in "".join(map(str, p["choices"])), (name, k)


# ----------------------------------------------------------------------------- cross-site use


def _no_session(c) -> None:
    assert not c.app.state.web.sessions and "skatsim_session" not in c.cookies


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                                          None, "application/jsonp", "text/json"])
def test_a_change_not_sent_as_json_is_refused(content_type) -> None:
    """A cross-site form or "simple" request cannot send application/json; it was accepted."""
    with _client() as c:
        headers = {"content-type": content_type} if content_type else {}
        r = c.post("/api/play/new", content=b'{"seat": 0}', headers=headers)
        assert r.status_code == 415 and "application/json" in r.json()["error"]
        _no_session(c)
        assert c.post("/api/play/new", json={"seat": 0}, headers={"content-type": "application/json; charset=utf-8"}
                      ).status_code == 200


@pytest.mark.parametrize("origin", ["http://evil.example", "https://evil.example", "null", "http://127.0.0.1:9999",
                                    "http://localhost:8765", "file://", "http://127.0.0.1:8765.evil.example"])
def test_a_request_from_another_origin_is_refused(origin: str) -> None:
    with _client() as c:
        r = c.post("/api/play/new", json={"seat": 0}, headers={"origin": origin})
        assert r.status_code == 403 and "cross-site" in r.json()["error"]
        _no_session(c)
        assert c.get("/api/config", headers={"origin": origin}).status_code == 403
        assert c.post("/api/play/new", json={"seat": 0}, headers={"origin": "http://127.0.0.1:8765"}).status_code == 200


@pytest.mark.parametrize("host", ["evil.example:8765", "evil.example", "127.0.0.1.nip.io:8765", "", "localhost.:8765",
                                  "127.0.0.1:9999", "10.0.0.1:8765"])
def test_a_request_for_another_host_is_refused(host: str) -> None:
    """DNS rebinding: a page whose own name points at 127.0.0.1 sends that name as Host."""
    with _client(port=8765) as c:
        r = c.get("/api/config", headers={"host": host})
        assert r.status_code == 403 and "answers to" in r.json()["error"]
        r = c.post("/api/play/new", json={"seat": 0}, headers={"host": host})
        assert r.status_code == 403
        _no_session(c)
        assert c.get("/", headers={"host": host}).status_code == 403
        for good in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765"):
            assert c.get("/api/config", headers={"host": good}).status_code == 200


def test_the_host_policy_of_each_bind() -> None:
    from skatsim_app.web.guard import HostPolicy

    lo = HostPolicy("127.0.0.1", 80)
    assert lo.allows("localhost") and lo.allows("127.0.0.1:80") and not lo.allows("evil.example")
    six = HostPolicy("::1", 8000)
    assert six.allows("[::1]:8000") and six.allows("localhost:8000") and not six.allows("[::1]:8001")
    lan = HostPolicy("192.168.1.20", 8765, extra=["skat.example.org"])
    assert lan.allows("192.168.1.20:8765") and not lan.allows("localhost:8765") and not lan.allows("evil.example:8765")
    assert lan.allows("skat.example.org") and lan.allows("SKAT.example.org:443")  # a reverse proxy's name
    anywhere = HostPolicy("0.0.0.0", 8765)
    assert anywhere.allows("10.1.2.3:8765") and anywhere.allows("[fe80::1]:8765") and not anywhere.allows("evil:8765")


def test_serve_refuses_a_public_address_without_public(capsys) -> None:
    from skatsim_app.cli import main

    for host in ("0.0.0.0", "::", "192.168.1.20", "myhost"):
        assert main(["serve", "--host", host, "--no-warmup"]) == 2
        assert "--public" in capsys.readouterr().err


def test_a_body_over_the_limit_is_refused_before_it_is_read() -> None:
    from skatsim_app.web.guard import MAX_BODY

    big = b'{"action": "' + b"x" * (20 * MAX_BODY) + b'"}'
    with _client() as c:
        r = c.post("/api/play/new", content=big, headers={"content-type": "application/json"})
        assert r.status_code == 413 and len(r.content) < 200
        _no_session(c)

        def stream():  # no Content-Length: a chunked body, counted as it arrives
            for k in range(0, len(big), 4096):
                yield big[k:k + 4096]

        r = c.post("/api/play/new", content=stream(), headers={"content-type": "application/json"})
        assert r.status_code == 413 and len(r.content) < 200
        _no_session(c)


# ----------------------------------------------------------------------------- hidden information


@pytest.mark.parametrize("seed,role", [(734_526_190_881_203, "declare"), (92_180_455_617_002, "defend")])
def test_the_deal_seed_is_sent_only_after_the_deal(seed: int, role: str) -> None:
    """browser-pass-1, problem 2: the seed rebuilds every hand and the skat."""
    from web_helpers import choose

    with _client() as c:
        r = c.post("/api/play/new", json={"seat": 0, "seed": seed})
        v = r.json()["view"]
        deal_seed = str(c.app.state.web.sessions[c.cookies["skatsim_session"]].game.deal_seed)
        responses = [r]
        while not v["over"]:
            if v["your_turn"]:
                r = c.post("/api/play/act", json={"action": choose(v, role), "expect": v["n"]})
            else:
                r = c.post("/api/play/advance", json={})
            responses.append(r)
            responses.append(c.get("/api/play"))
            v = r.json()["view"]
        for r in responses[:-2]:
            if not r.json()["view"]["over"]:
                assert r.json()["view"]["deal_seed"] is None and deal_seed not in r.text
        assert v["deal_seed"] == deal_seed and v["list"][0]["seed"] == deal_seed
        # the next deal: the last one's seed in the list, the new one's nowhere
        r = c.post("/api/play/new", json={})
        new_seed = str(c.app.state.web.sessions[c.cookies["skatsim_session"]].game.deal_seed)
        assert r.json()["view"]["deal_seed"] is None and new_seed not in r.text and deal_seed in r.text


@pytest.fixture(scope="module")
def replay_client(tmp_path_factory):
    from agents.arena.tournament import run_tournament

    here = Path(__file__).parent
    run = tmp_path_factory.mktemp("safety") / "run"
    run_tournament(["rule_based", "random"], 1, seed=8, parallel="processes", out=run, progress=False)
    app = create_app(replay=[str(run), str(here / "data" / "iss_records.txt")], opponents=["random", "random"],
                     agent_mode="thread", analysis_agent=SMALL_ANALYSIS)
    with client(app) as c:
        yield c


def _replayed(c, source: int, game: int):
    from skatsim_app.web.replay import GameMoves  # noqa: F401 - the type of what the server holds

    src = c.app.state.web.sources[source]
    if game in src.moves:
        return src.moves[game]
    fn, args = src.job(game)
    return fn(*args)[0]


# tournament games (each seat's view of a played-out deal) and ISS games with a shown hand,
# a grand ouvert, a null ouvert, a lost schwarz announcement and a resignation
@pytest.mark.parametrize("source,game", [(0, 0), (0, 3), (1, 2), (1, 3), (1, 4), (1, 7), (1, 9), (1, 14)])
def test_a_replay_seat_view_names_only_cards_that_seat_knew(replay_client, source: int, game: int) -> None:
    """browser-pass-1, problem 9: every response of a replay in a seat's view, at every step,
    names only cards that seat had seen by then (and never the deal seed)."""
    from skatsim.cards import card_name
    from web_helpers import cards_in, visible_cards

    c = replay_client
    moves = _replayed(c, source, game)
    n = len(moves.actions)
    q = f"source={source}&game={game}"
    for seat in range(3):
        r = c.get(f"/api/replay/game?{q}&view={seat}")
        assert r.status_code == 200 and r.json()["seed"] is None
        assert cards_in(r.text) <= visible_cards(moves.state(0).observation(seat)), (seat, r.text[:300])
        seen: set[str] = set()
        for step in range(n + 1):
            s = moves.state() if step == n else moves.state(step)
            seen |= visible_cards(s.observation(seat))
            # a card played is on the table for all (a resignation ends the game mid-trick)
            seen |= {card_name(a) for _, a, ph in s.phase_history() if ph == "play"}
            for path in ("position", "values"):
                if path == "values" and step == n:
                    continue
                r = c.get(f"/api/replay/{path}?{q}&step={step}&view={seat}")
                assert r.status_code == 200, r.text
                named = cards_in(r.text)
                assert named <= seen, (seat, step, path, sorted(named - seen), r.text[:400])
                if moves.seed is not None:
                    assert str(moves.seed) not in r.text
        # with all cards open the same requests do name the others' cards
    r = c.get(f"/api/replay/position?{q}&step=0&view=all")
    assert len(cards_in(r.text)) == 32


# ----------------------------------------------------------------------------- sessions and limits


def test_only_a_new_deal_makes_a_session_and_none_is_dropped_while_in_use() -> None:
    """browser-pass-1, problem 5: 40 cookie-less GET /api/config dropped a game in progress."""
    with _client(max_sessions=2) as c:
        v = c.post("/api/play/new", json={"seat": 0, "seed": 5}).json()["view"]
        web = c.app.state.web
        mine = c.cookies["skatsim_session"]
        other = client(c.app)
        for path in ("/api/config", "/api/play", "/api/replay/games", "/", "/api/nothing") * 10:
            other.get(path)
        for path in ("/api/play/act", "/api/play/advance", "/api/play/deck", "/api/play/verdict"):
            assert other.post(path, json={}).status_code in (400, 404)
        assert list(web.sessions) == [mine] and "skatsim_session" not in other.cookies
        assert other.get("/api/play").json() == {"view": None}
        assert c.get("/api/play").json()["view"] == v
        # a second table fits; a third is refused while both are in use (nothing dropped)
        assert other.post("/api/play/new", json={"seed": 1}).status_code == 200
        third = client(c.app)
        r = third.post("/api/play/new", json={"seed": 2})
        assert r.status_code == 503 and "limit" in r.json()["error"] and "skatsim_session" not in third.cookies
        assert len(web.sessions) == 2 and c.get("/api/play").json()["view"] == v


def test_sessions_expire_when_idle() -> None:
    with _client(session_idle=60.0) as c:
        c.post("/api/play/new", json={"seed": 5})
        web = c.app.state.web
        (sess,) = web.sessions.values()
        assert c.get("/api/play").json()["view"] is not None
        sess.used -= 61  # a minute without a request
        assert c.get("/api/play").json()["view"] is None and not web.sessions


@pytest.mark.parametrize("body", [b"[" * 100_000, b'{"a":' * 5000 + b"1" + b"}" * 5000, b"[" * 16_000])
def test_deep_nesting_is_a_json_4xx(body: bytes) -> None:
    """browser-pass-1, problem 6: '[' x 100000 was a plain-text 500 (a RecursionError)."""
    with _client() as c:
        r = c.post("/api/play/new", content=body, headers={"content-type": "application/json"})
        assert 400 <= r.status_code < 500 and "error" in r.json() and len(r.content) < 300
        _no_session(c)


def test_no_error_echoes_more_than_an_excerpt() -> None:
    """browser-pass-1, problem 6: a 20 MB action came back in a 20 MB reply."""
    junk = "Z" * 15_000
    with _client() as c:
        c.post("/api/play/new", json={"seat": 0, "seed": 5})
        for r in (c.post("/api/play/act", json={"action": junk}),
                  c.post("/api/play/act", json={"action": "pass", junk: 1}),
                  c.post("/api/play/act", json={"action": "pass", "expect": junk}),
                  c.post("/api/play/new", json={"deck": junk}),
                  c.post("/api/play/new", json={"opponents": [junk, junk]}),
                  c.post("/api/play/new", json={"seat": junk}),
                  c.post("/api/play/new", json={"seed": "9" * 10_000}),
                  c.post("/api/play/new", content=b'{"seed": ' + b"9" * 10_000 + b"}",
                         headers={"content-type": "application/json"}),
                  c.post("/api/play/deck", json={"deck": junk}),
                  c.get(f"/api/replay/games?source={junk}"),
                  c.get(f"/api/{junk}"),
                  c.delete(f"/api/play/{junk}")):
            assert 400 <= r.status_code < 500 and len(r.content) < 600, (r.status_code, len(r.content))
            assert junk[:100] not in r.text and "9" * 100 not in r.text


def _fingerprint(web) -> list:
    out = []
    for sid, s in web.sessions.items():
        g = s.game
        out.append((sid, s.deal_no, s.seat, s.rotate, s.settings, len(s.scores), s.verdict,
                    None if g is None else (len(g.state.history()), g.deal_seed, g.over)))
    return out


def test_fuzzed_requests_never_5xx_and_an_error_changes_nothing() -> None:
    """Random methods, paths, bodies, headers and cookies (hypothesis): never a 5xx, always
    JSON on /api/, and a 4xx leaves every session as it was."""
    from urllib.parse import quote

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    app = create_app(opponents=["random", "random"], agent_mode="thread", max_sessions=1000,
                     replay=[str(Path(__file__).parent / "data" / "iss_records.txt")])
    paths = ["/", "/api/config", "/api/play", "/api/play/new", "/api/play/act", "/api/play/advance",
             "/api/play/deck", "/api/play/verdict", "/api/replay/sources", "/api/replay/games", "/api/replay/game",
             "/api/replay/position", "/api/replay/values", "/api/replay/analysis", "/static/app.js",
             "/static/../server.py", "/api/", "/api/play/new/x"]
    json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
                               | st.text(max_size=30) | st.sampled_from(["18", "pass", "yes", "CJ", "pickup", "GH",
                                                                          "german", "french", "rule_based", "random"]),
                               lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
                                   st.sampled_from(["action", "expect", "seat", "seed", "deck", "opponents",
                                                    "rotate", "kontra", "ramsch", "x"]) | st.text(max_size=8),
                                   kids, max_size=5), max_leaves=12)
    bodies = st.one_of(st.none(), st.binary(max_size=200), json_values.map(lambda v: __import__("json").dumps(v)))
    queries = st.dictionaries(st.sampled_from(["source", "game", "step", "view", "deck", "agent", "contract", "won",
                                               "offset", "limit"]),
                              st.sampled_from(["0", "1", "2", "-1", "all", "99999", "x", "1e3", "", "german", "yes"])
                              | st.text(max_size=10), max_size=5)

    with client(app) as c:
        web = app.state.web
        c.post("/api/play/new", json={"seat": 0, "seed": 11}).raise_for_status()
        good = c.cookies["skatsim_session"]
        c.cookies.clear()

        @settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
        @given(method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]),
               path=st.sampled_from(paths) | st.text(max_size=20).map(lambda s: "/api/" + quote(s)),
               query=queries, body=bodies,
               ctype=st.sampled_from(["application/json", "text/plain", None, "application/json; charset=utf-8"]),
               cookie=st.sampled_from([None, "good", "junk"]), origin=st.sampled_from([None, "same", "evil"]))
        def one(method, path, query, body, ctype, cookie, origin) -> None:
            headers = {}
            if ctype:
                headers["content-type"] = ctype
            if origin:
                headers["origin"] = "http://127.0.0.1:8765" if origin == "same" else "http://evil.example"
            cookies = {"skatsim_session": good if cookie == "good" else "x" * 32} if cookie else {}
            before = _fingerprint(web)
            c.cookies.clear()
            for k, v in cookies.items():
                c.cookies.set(k, v)
            r = c.request(method, path, params=query, content=body, headers=headers)
            c.cookies.clear()
            assert r.status_code < 500, (method, path, query, body, r.status_code, r.text[:300])
            if path.startswith("/api/") and r.status_code >= 400 and method != "HEAD":
                assert isinstance(r.json()["error"], str)
            if r.status_code >= 400:
                assert _fingerprint(web) == before, (method, path, body, r.status_code, r.text[:200])

        one()
