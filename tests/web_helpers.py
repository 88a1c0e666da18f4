"""Helpers of the web table's tests: a live server in a thread, a scripted player, card ids
in a response."""

from __future__ import annotations

import re
import socket
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

CARD_RE = re.compile(r"(?<![A-Za-z0-9])([CSHD](?:10|[789QKAJ]))(?![A-Za-z0-9])")


def cards_in(text: str) -> set[str]:
    """Every card name (``CJ``, ``S10`` ...) a response's text mentions."""
    return set(CARD_RE.findall(text))


def visible_cards(obs: Any) -> set[str]:
    """The cards an observation lets its seat see now (own hand, a seen skat, own discards,
    an ouvert hand, the tricks and the trick on the table)."""
    from skatsim.cards import card_name

    out = {card_name(c) for c in obs.hand.ids()}
    for cs in (obs.skat, obs.discard, obs.ouvert_hand):
        if cs is not None:
            out |= {card_name(c) for c in cs.ids()}
    for _, cards, _ in obs.tricks:
        out |= {card_name(c) for c in cards}
    out |= {card_name(c) for c in obs.current_trick}
    return out


def choose(view: dict[str, Any], role: str = "declare", level: str | None = None) -> str:
    """A scripted player's move: ``role="declare"`` bids (lowest bid, or holds) up to 30 and
    picks up, ``"defend"`` passes and says Kontra; Re when offered; the first legal card;
    the first legal declaration (of ``level``, e.g. ``"schneider"``, when given)."""
    ch = {c["action"]: c for c in view["choices"]}
    ph = view["phase"]
    if ph == "bidding":
        if role == "declare":
            if "yes" in ch:
                return "yes"
            bids = [c["action"] for c in view["choices"] if c["kind"] == "bid"]
            if bids and int(bids[0]) <= 30:
                return bids[0]
        return "pass"
    if ph == "skat":
        return "hand" if level else "pickup"
    if ph == "kontra":
        for word in ("kontra", "re"):
            if word in ch:
                return word
        return "pass"
    if ph in ("discard", "play"):
        return view["legal_cards"][0]
    if ph == "declare" and level:
        return next(c["action"] for c in view["choices"] if c.get("level") == level)
    return view["choices"][0]["action"]


#: Where the tests' TestClient says it talks to (a loopback origin the server accepts).
BASE_URL = "http://127.0.0.1:8765"


def client(app: Any) -> Any:
    """A Starlette TestClient of ``app`` on :data:`BASE_URL` (use it as a context manager)."""
    from starlette.testclient import TestClient

    return TestClient(app, base_url=BASE_URL)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def live_server(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free loopback port in a thread; yields the base URL."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    t0 = time.time()
    while not server.started:
        if time.time() - t0 > 20 or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
