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

#: The server's default analysis agent at the smallest search sizes: the tests that walk every
#: step of a replay check what a response names, not how good its values are (the default's
#: sizes cost minutes per deal there).
SMALL_ANALYSIS = ("compose:bidding=neural_bidder,discard=skat_search(worlds=1,final_worlds=0,finalists=1),"
                  "declare=skat_search(worlds=1,final_worlds=0,finalists=1),card_play=pimc(worlds=2)")


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


#: JavaScript run in the page: what is wrong with the layout now. Every visible text (each
#: line box of each text node) and every visible card must lie inside the window, no text
#: may be drawn over another text or over a card it is not part of, and the page must not
#: scroll sideways. Content a scroll box scrolls out of view counts as not shown; content a
#: box with ``overflow: hidden`` cuts off counts as outside (except text an ellipsis ends).
LAYOUT_JS = r"""
const vw = window.innerWidth, vh = window.innerHeight, tol = 1;
const problems = [];
const shown = (el) => {
  for (let a = el; a; a = a.parentElement) {
    const cs = getComputedStyle(a);
    if (cs.display === "none" || cs.visibility === "hidden" || Number(cs.opacity) === 0) return false;
  }
  return el.getClientRects().length > 0;
};
const describe = (el) => el.id ? "#" + el.id : (el.className ? el.tagName.toLowerCase() + "." +
  String(el.className).trim().split(/\s+/).join(".") : el.tagName.toLowerCase());
const path = (el) => { const out = []; for (let a = el; a && a !== document.body && out.length < 4; a = a.parentElement) out.push(describe(a)); return out.join(" < "); };
function visible(el, r) {
  // el: the element whose content the box is (a text's parent: its own overflow clips it)
  let x0 = r.left, y0 = r.top, x1 = r.right, y1 = r.bottom, cut = false;
  for (let a = el; a && a !== document.documentElement; a = a.parentElement) {
    const cs = getComputedStyle(a);
    if (cs.overflowX !== "visible" || cs.overflowY !== "visible") {
      const ar = a.getBoundingClientRect();
      const scrolls = /auto|scroll/.test(cs.overflowX + cs.overflowY);
      const ellipsis = cs.textOverflow === "ellipsis";
      if (!scrolls && !ellipsis && (x0 < ar.left - tol || y0 < ar.top - tol || x1 > ar.right + tol || y1 > ar.bottom + tol)) cut = a;
      x0 = Math.max(x0, ar.left); y0 = Math.max(y0, ar.top); x1 = Math.min(x1, ar.right); y1 = Math.min(y1, ar.bottom);
    }
  }
  return { box: x1 - x0 > 1 && y1 - y0 > 1 ? { x0, y0, x1, y1 } : null, cut };
}
const texts = [], cards = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const n = walker.currentNode;
  const el = n.parentElement;
  if (!n.textContent.trim() || !el || ["SCRIPT", "STYLE", "OPTION", "TITLE"].includes(el.tagName) || !shown(el)) continue;
  const range = document.createRange();
  range.selectNodeContents(n);
  for (const r of range.getClientRects()) {
    if (r.width < 1 || r.height < 1) continue;
    const v = visible(el, r);
    const what = `text ${JSON.stringify(n.textContent.trim().slice(0, 40))} in ${path(el)}`;
    if (v.cut) problems.push(`${what} is cut off by ${describe(v.cut)}`);
    if (v.box) texts.push({ el, node: n, b: v.box, what });
  }
}
document.querySelectorAll(".card img").forEach((img) => {
  if (!shown(img)) return;
  const v = visible(img.parentElement, img.getBoundingClientRect());
  const what = `card ${img.alt} in ${path(img.parentElement)}`;
  if (v.cut) problems.push(`${what} is cut off by ${describe(v.cut)}`);
  if (v.box) cards.push({ el: img.parentElement, b: v.box, what });
});
for (const t of [...texts, ...cards]) {
  const b = t.b;
  if (b.x0 < -tol || b.y0 < -tol || b.x1 > vw + tol || b.y1 > vh + tol)
    problems.push(`${t.what} is outside the window (${Math.round(b.x0)},${Math.round(b.y0)}-${Math.round(b.x1)},${Math.round(b.y1)} of ${vw}x${vh})`);
}
const overlap = (a, b) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > 2 && Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > 2;
for (let i = 0; i < texts.length; i++) {
  for (let j = i + 1; j < texts.length; j++) {
    if (texts[i].node !== texts[j].node && overlap(texts[i].b, texts[j].b)) problems.push(`${texts[i].what} overlaps ${texts[j].what}`);
  }
  for (const c of cards) {
    if (!c.el.contains(texts[i].el) && overlap(texts[i].b, c.b)) problems.push(`${texts[i].what} is drawn over ${c.what}`);
  }
}
const se = document.scrollingElement;
if (se.scrollWidth > vw + tol) problems.push(`the page scrolls sideways (${se.scrollWidth} > ${vw})`);
return { problems: problems.slice(0, 20), texts: texts.length, cards: cards.length };
"""
