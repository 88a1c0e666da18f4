// skatsim table: display only. Every rule, every legal move and every word about the game
// comes from the server (skatsim_app/web: play_api.py, replay_api.py); this file draws the
// table view the server sends (table.py builds it, for play and replay alike) and sends clicks.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const PACES = { slow: 1.6, normal: 1, fast: 0.35, instant: 0.03 };
const S = {
  config: null, view: null, deck: params.get("deck") || "german", busy: false, selected: [],
  pace: params.get("fast") === "1" ? "instant" : (localStorage.getItem("skatsim-pace") || "normal"),
  hint: { on: false, data: null, n: -1, agent: localStorage.getItem("skatsim-hint-agent") || "" },
  r: { source: 0, games: [], game: null, data: null, step: 0, view: "all", analysis: null, token: 0 },
};

// ------------------------------------------------------------------ helpers
async function api(method, path, body) {
  const opts = { method, headers: {}, credentials: "same-origin" };
  if (method === "POST") {  // every change is JSON (the server refuses anything else)
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body === undefined ? {} : body);
  }
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) {
    const err = new Error((data && data.error) || `${r.status} ${r.statusText}`);
    err.status = r.status;
    throw err;
  }
  return { status: r.status, data };
}
const sleep = (ms) => new Promise((res) => setTimeout(res, ms * (PACES[S.pace] || 1)));
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};
function card(name, opts = {}) {
  const e = el(opts.button ? "button" : "div", "card" + (opts.size ? " " + opts.size : ""));
  const img = el("img");
  img.src = name ? `/static/cards/${S.deck}/${name}.svg` : "/static/cards/back.svg";
  img.alt = name || "face-down card";
  img.draggable = false;
  e.appendChild(img);
  if (name) e.dataset.card = name;
  return e;
}
/** A seat's cards: a list of card ids face up, or a count face down. */
function fanInto(box, cards, size) {
  box.innerHTML = "";
  if (Array.isArray(cards)) cards.forEach((c) => box.appendChild(card(c, { size })));
  else for (let i = 0; i < cards; i++) box.appendChild(card(null, { size }));
  box.classList.toggle("open", Array.isArray(cards));
}
const count = (h) => (Array.isArray(h) ? h.length : h);
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const signed = (x) => (x > 0 ? "+" : "") + x;
function setError(id, msg) { $(id).textContent = msg || ""; }

// ------------------------------------------------------------------ play: table
function seatAt(v, pos) { return pos === "me" ? v.seat : pos === "left" ? (v.seat + 1) % 3 : (v.seat + 2) % 3; }
function posOf(v, seat) { return seat === v.seat ? "me" : seat === (v.seat + 1) % 3 ? "left" : "right"; }
function shortName(v, seat) { return seat === v.seat ? "you" : posOf(v, seat); }

function lastCall(v, seat) {
  if (v.phase === "bidding") {
    const mine = v.bids.filter((b) => b[0] === seat);
    return mine.length ? mine[mine.length - 1][1] : "";
  }
  if (v.phase === "kontra") {
    const k = v.kontra.filter((b) => b[0] === seat);
    return k.length ? (k[k.length - 1][1] === "pass" ? "—" : cap(k[k.length - 1][1])) : "";
  }
  if (v.passed.includes(seat) && ["skat", "discard", "declare"].includes(v.phase)) return "pass";
  return "";
}

function declarerPoints(v, seat) {
  // the declarer's card points with the skat where the view knows it (the person's own skat)
  const skat = v.declarer === seat && v.skat_points !== null && v.skat_points !== undefined ? v.skat_points : 0;
  return v.points[seat] + skat;
}

function renderSeat(node, v, seat) {
  node.querySelector(".name").textContent = seat === v.seat ? "You" : v.players[seat];
  node.querySelector(".role").textContent = cap(v.positions[seat]);
  node.querySelector(".badge").textContent = v.declarer === seat ? (v.contract ? "Declarer" : "won the bidding") : "";
  const moving = !v.over && v.to_move === seat;
  node.querySelector(".turn").textContent = moving ? (seat === v.seat ? "your turn" : "to move") : "";
  node.querySelector(".bubble").textContent = lastCall(v, seat);
  const show = v.phase === "play" || v.over;
  const pts = declarerPoints(v, seat);
  node.querySelector(".took").textContent = show ? `${pts} points · ${v.tricks_won[seat]} trick` +
    (v.tricks_won[seat] === 1 ? "" : "s") : "";
  node.classList.toggle("to-move", moving);
}

function renderOpp(v, pos) {
  const seat = seatAt(v, pos);
  const node = $(pos === "left" ? "opp-left" : "opp-right");
  renderSeat(node, v, seat);
  // at the end of a deal every hand is shown as dealt
  fanInto(node.querySelector(".fan"), v.over && v.deal ? v.deal.hands[seat] : v.hands[seat], "small");
}

function drawTrick(trickBox, noteBox, tricks, trick, slotOf, label) {
  trickBox.querySelectorAll(".slot").forEach((s) => (s.innerHTML = ""));
  let cards = trick.cards, leader = trick.leader, last = false;
  noteBox.textContent = "";
  if (!cards.length && tricks.length) {
    const t = tricks[tricks.length - 1];
    cards = t.cards; leader = t.leader; last = true;
    noteBox.textContent = label(t, tricks.length);
  }
  trickBox.classList.toggle("last", last);
  trickBox.classList.toggle("empty", !cards.length);
  cards.forEach((c, k) => trickBox.querySelector(slotOf((leader + k) % 3)).appendChild(card(c)));
}

function renderCenter(v) {
  const skat = $("skat");
  skat.innerHTML = "";
  const skatRow = (label, cards) => {
    skat.appendChild(el("div", "label", label));
    fanIntoRow(skat, cards);
  };
  if (v.over && v.deal) {
    const group = (label, cards) => {
      const g = el("div", "skat-group");
      g.appendChild(el("div", "label", label));
      fanIntoRow(g, cards);
      skat.appendChild(g);
    };
    group("the skat", v.deal.skat);
    if (v.deal.discard) group("discarded", v.deal.discard);
  } else if (v.skat_lying) {
    skatRow("skat", 2);
  } else if (v.phase === "discard" && v.skat_found) {
    skatRow("the skat you found", v.skat_found);
  }
  drawTrick($("trick"), $("trick-note"), v.tricks, v.trick, (s) => ".s-" + posOf(v, s),
    (t) => `last trick: ${t.points} points to ${v.names[t.winner]}`);
  if (!(v.phase === "play" || v.over)) { $("trick").classList.add("empty"); $("trick-note").textContent = ""; }
}

function fanIntoRow(box, cards) {
  if (Array.isArray(cards)) {
    cards.forEach((c) => box.appendChild(card(c, { size: "small" })));
  } else {
    for (let i = 0; i < cards; i++) box.appendChild(card(null, { size: "small" }));
  }
}

function bidButtons(v, box) {
  const bids = v.choices.filter((c) => c.kind === "bid");
  v.choices.filter((c) => c.kind !== "bid").forEach((c) => box.appendChild(choiceButton(c)));
  bids.slice(0, 6).forEach((c) => box.appendChild(choiceButton(c)));
  if (bids.length > 6) {
    const sel = el("select", "more");
    sel.appendChild(new Option("higher …", ""));
    bids.slice(6).forEach((c) => sel.appendChild(new Option(c.label, c.action)));
    sel.onchange = () => sel.value && act(sel.value);
    box.appendChild(sel);
  }
}

function choiceButton(c, text) {
  const b = el("button", "choice", text || c.label);
  b.dataset.action = c.action;
  b.title = c.label;
  if (["hold", "pickup", "kontra", "re"].includes(c.kind)) b.classList.add("primary");
  b.onclick = () => act(c.action);
  return b;
}

function declareGrid(v, box) {
  const grid = el("div", "declare-grid");
  const cols = ["game", "schneider", "schwarz", "ouvert"];
  grid.appendChild(el("div"));
  ["game", "schneider", "schwarz", "ouvert"].forEach((h) => grid.appendChild(el("div", "h", h)));
  for (const g of [3, 2, 1, 0, 4, 5]) {
    const mine = v.choices.filter((c) => c.kind === "declare" && c.game === g);
    if (!mine.length) continue;
    grid.appendChild(el("div", "g", mine[0].game_label));
    cols.forEach((col) => {
      const cell = el("div");
      const c = mine.find((m) => (col === "game" ? m.level === "plain" || m.level === "hand" : m.level === col));
      if (c) cell.appendChild(choiceButton(c, col === "game" ? (c.level === "hand" ? "hand" : "declare") : col));
      grid.appendChild(cell);
    });
  }
  box.appendChild(grid);
}

function renderPrompt(v) {
  const prompt = $("prompt"), box = $("choices");
  box.innerHTML = "";
  prompt.textContent = "";
  if (v.over) return;
  if (!v.your_turn) {
    if (v.to_move !== null) prompt.textContent = `${v.names[v.to_move]} is thinking …`;
    return;
  }
  const ph = v.phase;
  if (ph === "bidding") {
    const hold = v.choices.find((c) => c.kind === "hold");
    prompt.textContent = hold ? `${v.bid} is bid to you: hold or pass?` :
      (v.bid ? `The bid is ${v.bid}: bid higher or pass.` : "Your bid (or pass).");
    bidButtons(v, box);
  } else if (ph === "skat") {
    prompt.textContent = `You won the bidding at ${v.bid}: pick up the skat or play hand?`;
    v.choices.forEach((c) => box.appendChild(choiceButton(c)));
  } else if (ph === "discard") {
    prompt.textContent = "Choose two cards to put into the skat.";
    const b = el("button", "primary", "Discard the two cards");
    b.id = "btn-discard";
    b.disabled = S.selected.length !== 2;
    b.onclick = discardSelected;
    box.appendChild(b);
  } else if (ph === "declare") {
    prompt.textContent = `Declare your game (bid ${v.bid}` + (v.skat_picked_up ? ", skat picked up):" : ", hand):");
    declareGrid(v, box);
  } else if (ph === "kontra") {
    prompt.textContent = v.choices.some((c) => c.kind === "re") ? "Kontra was said: Re?" : "Say Kontra?";
    v.choices.forEach((c) => box.appendChild(choiceButton(c)));
  } else if (ph === "play") {
    prompt.textContent = v.trick.cards.length ? "Your card (the raised cards follow suit)." : "Your lead.";
  }
}

function renderHand(v) {
  const hand = $("hand");
  hand.innerHTML = "";
  const cards = v.over && v.deal ? v.deal.hands[v.seat] : v.hands[v.seat];
  const active = v.your_turn && (v.phase === "play" || v.phase === "discard");
  hand.classList.toggle("waiting", !active);
  S.selected = S.selected.filter((c) => cards.includes(c));
  cards.forEach((c) => {
    const b = card(c, { button: true });
    if (active && v.legal_cards.includes(c)) {
      b.classList.add("legal");
      b.onclick = () => (v.phase === "discard" ? toggleDiscard(c) : act(c));
    } else {
      if (active) b.classList.add("illegal");
      b.disabled = true;
    }
    if (S.selected.includes(c)) b.classList.add("selected");
    hand.appendChild(b);
  });
}

function renderSide(v) {
  const box = $("contract");
  box.innerHTML = "";
  if (v.contract) {
    box.appendChild(el("div", "c-name", v.contract_label));
    box.appendChild(el("div", "", `${v.names[v.declarer]} · bid ${v.bid}` +
      (v.skat_picked_up ? " · skat picked up" : " · hand")));
    const k = v.kontra.filter((x) => x[1] !== "pass").map((x) => `${cap(x[1])} (${shortName(v, x[0])})`);
    if (k.length) box.appendChild(el("div", "", k.join(", ")));
  } else if (v.declarer !== null) {
    box.appendChild(el("div", "", `${v.names[v.declarer]} won the bidding at ${v.bid}`));
  } else if (v.game_type === 6) {
    box.appendChild(el("div", "c-name", v.game_label || "Ramsch"));
  } else {
    box.appendChild(el("div", "", v.bid ? `bidding · ${v.bid}` : "bidding"));
  }
  if (v.to_move !== null && !v.over) box.appendChild(el("div", "", `to move: ${v.names[v.to_move]}`));
  box.appendChild(el("div", "hint", `deal ${v.deal_no}` + (v.deal_seed ? ` · seed ${v.deal_seed}` : "") +
    (v.rules.kontra ? " · Kontra/Re" : "")));

  const score = $("score");
  score.innerHTML = "<tr><th></th><th>points</th><th>tricks</th><th>cards</th></tr>";
  ["me", "left", "right"].forEach((pos) => {
    const s = seatAt(v, pos);
    const tr = el("tr");
    const skat = v.declarer === s && v.skat_points !== null && v.skat_points !== undefined ?
      ` (${v.skat_points} skat)` : "";
    [shortName(v, s), `${declarerPoints(v, s)}${skat}`, v.tricks_won[s], count(v.hands[s])]
      .forEach((x) => tr.appendChild(el("td", "", String(x))));
    score.appendChild(tr);
  });

  const auction = $("auction");
  auction.innerHTML = "";
  v.bids.forEach(([s, t]) => auction.appendChild(el("span", "", `${shortName(v, s)}: ${t}`)));
  if (!v.bids.length) auction.textContent = "—";

  const log = $("log");
  log.innerHTML = "";
  v.log.forEach((t) => log.appendChild(el("li", "", t)));
  const last = log.lastElementChild;
  if (last) last.scrollIntoView({ block: "nearest" });

  const list = $("list");
  list.innerHTML = "<tr><th>#</th><th>game</th><th>score</th><th>you</th><th>left</th><th>right</th></tr>";
  v.list.forEach((e) => {
    const tr = el("tr");
    const who = e.declarer === null ? "" : ["you", "left", "right"][e.declarer] + ": ";
    tr.appendChild(el("td", "", String(e.deal_no)));
    tr.appendChild(el("td", "", who + e.contract_label));
    tr.appendChild(el("td", e.won ? "win" : e.declarer === null ? "" : "loss", e.declarer === null ? "" : signed(e.list_score)));
    e.sf.forEach((x) => tr.appendChild(el("td", "", signed(x))));
    list.appendChild(tr);
  });
  if (v.list.length) {
    const tr = el("tr", "total");
    tr.appendChild(el("td", "", "Σ"));
    tr.appendChild(el("td", "", "Seeger-Fabian"));
    tr.appendChild(el("td"));
    v.totals.forEach((x) => tr.appendChild(el("td", "", signed(x))));
    list.appendChild(tr);
  }
}

function renderResult(v) {
  const box = $("result");
  if (!v.over || !v.result) { box.hidden = true; return; }
  box.hidden = false;
  const r = v.result;
  let title;
  if (r.passed_in) title = "Passed in: nobody plays";
  else if (r.ramsch) title = "Ramsch";
  else {
    const d = r.declarer;
    title = `${v.names[d]} ${d === v.seat ? (r.won ? "win" : "lose") : (r.won ? "wins" : "loses")} ${r.contract_label}`;
  }
  $("result-title").textContent = title;
  const t = $("result-table");
  t.innerHTML = "";
  const rows = [];
  if (!r.passed_in && !r.ramsch) {
    rows.push(["bid", r.bid]);
    if (r.contract[0] !== "N") rows.push(["matadors", (r.matadors > 0 ? "with " : "without ") + Math.abs(r.matadors)]);
    rows.push(["multiplier", r.multiplier], ["game value", r.game_value]);
    if (r.overbid) rows.push(["overbid", `charged ${r.charged_value}`]);
    rows.push(["declarer", `${r.declarer_points} points · ${r.declarer_tricks} trick` + (r.declarer_tricks === 1 ? "" : "s")]);
    if (r.kontra) rows.push(["Kontra/Re", r.kontra === 1 ? "Kontra" : "Kontra and Re"]);
    rows.push(["list score", signed(r.list_score)]);
  }
  rows.push(["Seeger-Fabian", ["me", "left", "right"].map((p) => {
    const s = seatAt(v, p);
    return `${shortName(v, s)} ${signed(r.seeger_fabian[s])}`;
  }).join(" · "), true]);
  rows.forEach(([k, x, wide]) => {
    const row = el("div", wide ? "wide" : "");
    row.appendChild(el("span", "", k));
    row.appendChild(el("span", "", String(x)));
    t.appendChild(row);
  });
  $("result-text").textContent = r.explanation;
  $("btn-verdict").hidden = !r.verdict_available;
  $("btn-verdict").disabled = !!v.verdict;
  const vt = $("verdict-text");
  vt.hidden = !v.verdict;
  vt.textContent = v.verdict || "";
}

function renderHints(v) {
  const box = $("hints");
  const h = S.hint;
  $("btn-hint").hidden = !(S.config && S.config.hint_agents && S.config.hint_agents.length) || v.over;
  $("btn-hint").classList.toggle("primary", h.on);
  box.hidden = !(h.on && v.your_turn && !v.over);
  if (box.hidden) return;
  box.innerHTML = "";
  if (!h.data || h.n !== v.n) {
    box.appendChild(el("span", "h-note", "the hint is thinking …"));
    requestHint(v);
    return;
  }
  const d = h.data;
  if (!d.values) { box.appendChild(el("span", "h-note", d.note || "no hint here")); return; }
  const entries = Object.entries(d.values).sort((a, b) => b[1] - a[1]);
  entries.forEach(([a, val]) => {
    const item = el("span", "h-item" + (d.best.includes(a) ? " best" : ""));
    if (d.labels[a] && d.labels[a].card) item.appendChild(card(a, { size: "tiny" }));
    item.appendChild(el("span", "", `${d.labels[a] ? d.labels[a].text : a} ${d.shown[a]}`));
    item.title = d.labels[a] ? d.labels[a].full : a;
    box.appendChild(item);
  });
  box.appendChild(el("span", "h-note", d.note));
}

async function requestHint(v) {
  const h = S.hint;
  if (h.pending === v.n) return;
  h.pending = v.n;
  try {
    const r = await api("POST", "/api/play/hint", { agent: h.agent || undefined, expect: v.n });
    if (S.view && S.view.n === v.n) { h.data = r.data; h.n = v.n; renderHints(S.view); }
  } catch (e) {
    h.data = { values: null, note: e.message }; h.n = v.n;
    if (S.view) renderHints(S.view);
  } finally {
    h.pending = null;
  }
}

function renderPlay() {
  const v = S.view;
  document.body.dataset.state = !v ? "setup" : v.over ? "over" : v.your_turn ? "your-turn" : "waiting";
  document.body.dataset.phase = v ? v.phase : "";
  if (!v) { openSetup(); return; }
  renderOpp(v, "left");
  renderOpp(v, "right");
  renderSeat($("me-panel"), v, v.seat);
  renderCenter(v);
  renderPrompt(v);
  renderHints(v);
  renderHand(v);
  renderSide(v);
  renderResult(v);
}

// ------------------------------------------------------------------ play: moves
function delayAfter(v) {
  const e = v.events[v.events.length - 1];
  if (!e) return 300;
  if (e.kind === "card" && e.trick_won_by !== undefined) return 1300;
  if (e.kind === "card") return 650;
  return 550;
}

async function advanceLoop() {
  while (S.view && !S.view.over && !S.view.your_turn) {
    await sleep(delayAfter(S.view));
    let r;
    try {
      r = await api("POST", "/api/play/advance");
    } catch (e) {
      setError("play-error", e.message);
      const g = await api("GET", "/api/play");
      S.view = g.data.view;
      renderPlay();
      if (e.status !== 409) return;
      continue;
    }
    S.view = r.data.view;
    if (r.status === 202) S.view.thinking = true;
    renderPlay();
  }
}

async function act(action) {
  if (S.busy || !S.view) return;
  S.busy = true;
  setError("play-error", "");
  try {
    const r = await api("POST", "/api/play/act", { action, expect: S.view.n });
    S.selected = [];
    S.view = r.data.view;
    renderPlay();
    await advanceLoop();
  } catch (e) {
    setError("play-error", e.message);
    try { S.view = (await api("GET", "/api/play")).data.view; renderPlay(); } catch (e2) { /* keep */ }
  } finally {
    S.busy = false;
  }
}

function toggleDiscard(c) {
  const i = S.selected.indexOf(c);
  if (i >= 0) S.selected.splice(i, 1);
  else if (S.selected.length < 2) S.selected.push(c);
  renderPrompt(S.view);
  renderHand(S.view);
}

async function discardSelected() {
  if (S.selected.length !== 2 || S.busy) return;
  const [a, b] = S.selected;
  S.busy = true;
  try {
    let r = await api("POST", "/api/play/act", { action: a, expect: S.view.n });
    r = await api("POST", "/api/play/act", { action: b, expect: r.data.view.n });
    S.selected = [];
    S.view = r.data.view;
    renderPlay();
  } catch (e) {
    setError("play-error", e.message);
    S.view = (await api("GET", "/api/play")).data.view;
    renderPlay();
  } finally {
    S.busy = false;
  }
}

async function newDeal(body) {
  if (S.busy) return;
  S.busy = true;
  setError("play-error", "");
  setError("setup-error", "");
  try {
    const r = await api("POST", "/api/play/new", body || {});
    S.view = r.data.view;
    S.selected = [];
    closeSetup();
    renderPlay();
    await advanceLoop();
  } catch (e) {
    setError($("setup").hidden ? "play-error" : "setup-error", e.message);
  } finally {
    S.busy = false;
  }
}

function openSetup() {
  const c = S.config;
  if (!c) return;
  const names = Object.keys(c.agents);
  const fromUrl = (params.get("opponents") || "").split(",").filter(Boolean);
  const current = S.view ? S.view.settings.opponents : (fromUrl.length === 2 ? fromUrl : c.default_opponents);
  [0, 1].forEach((k) => {
    const sel = $("opp" + k);
    sel.innerHTML = "";
    [...new Set([...c.default_opponents, ...names, current[k]])].forEach((s) => sel.appendChild(new Option(s, s)));
    sel.value = current[k];
  });
  if (params.get("seat")) $("seat").value = params.get("seat");
  $("kontra").checked = S.view ? S.view.settings.kontra : c.rules.kontra || params.get("kontra") === "1";
  $("ramsch").checked = S.view ? S.view.settings.ramsch : c.rules.ramsch;
  showAgentDoc();
  $("btn-close-setup").hidden = !S.view;
  $("setup").hidden = false;
  document.body.dataset.setup = "open";
}

function closeSetup() {
  $("setup").hidden = true;
  document.body.dataset.setup = "";
}

function showAgentDoc() {
  const doc = (spec) => { const a = S.config.agents[spec.split(":")[0]] || S.config.agents[spec]; return a ? `${spec}: ${a.doc}` : spec; };
  $("agent-doc").textContent = doc($("opp0").value) + " — " + doc($("opp1").value);
}

function dealFromSetup() {
  const body = {
    opponents: [$("opp0").value, $("opp1").value], seat: Number($("seat").value),
    rotate: $("rotate").checked, kontra: $("kontra").checked, ramsch: $("ramsch").checked, deck: S.deck,
  };
  if (params.get("seed") && !S.view) body.seed = params.get("seed");
  newDeal(body);
}

async function verdict() {
  $("btn-verdict").disabled = true;
  $("verdict-text").hidden = false;
  $("verdict-text").textContent = "the solver is thinking …";
  try {
    const r = await api("POST", "/api/play/verdict");
    S.view = r.data.view;
    renderPlay();
  } catch (e) {
    $("verdict-text").textContent = e.message;
  }
}

// ------------------------------------------------------------------ replay
const POS = () => S.r.data.positions;  // the seats' names, as the server (skatsim.state.SEAT_NAMES) gives them

async function loadGames() {
  const r = S.r;
  const q = new URLSearchParams({ source: r.source, deck: S.deck, agent: $("r-agent").value,
    contract: $("r-contract").value, won: $("r-won").value, limit: 500 });
  try {
    const res = await api("GET", "/api/replay/games?" + q);
    r.games = res.data.games;
    $("r-count").textContent = `${res.data.count} games` + (res.data.count > r.games.length ? ` (first ${r.games.length} shown)` : "");
    const t = $("r-games");
    const idHead = S.config.sources[r.source].kind === "iss" ? "ISS id" : "deal";
    t.innerHTML = `<tr><th>#</th><th>${idHead}</th><th>declarer</th><th>game</th><th>score</th></tr>`;
    r.games.forEach((g) => {
      const tr = el("tr");
      tr.dataset.game = g.i;
      const decl = g.declarer >= 0 ? `${g.position[0].toUpperCase()}: ${g.players[g.declarer]}` : "";
      const id = g.iss_id !== undefined ? `${g.iss_id}` : `${g.deal_id}` + (g.arrangement ? `·${g.arrangement}` : "");
      const score = g.declarer >= 0 ? signed(g.list_score) : "";
      const cells = [[String(g.i + 1), ""], [id, ""], [decl, ""], [g.contract_label, ""],
        [score, g.won === null ? "" : g.won ? "win" : "loss"]];
      cells.forEach(([x, cls]) => {
        const td = el("td", cls, x);
        td.title = x;
        tr.appendChild(td);
      });
      tr.title = `${id} · ${decl} · ${g.contract_label}` + (g.won === null ? "" : g.won ? " · won" : " · lost");
      tr.onclick = () => { document.body.classList.remove("games-open"); openGame(g.i); };
      if (r.game === g.i) tr.classList.add("sel");
      t.appendChild(tr);
    });
  } catch (e) {
    setError("replay-error", e.message);
  }
}

async function openGame(i) {
  const r = S.r;
  r.game = i;
  r.analysis = null;
  r.decisions = null;
  document.querySelectorAll("#r-games tr").forEach((tr) => tr.classList.toggle("sel", Number(tr.dataset.game) === i));
  setError("replay-error", "");
  $("r-empty").textContent = "re-playing the game …";
  document.body.classList.add("replay-empty");
  try {
    const res = await api("GET", `/api/replay/game?source=${r.source}&game=${i}&deck=${S.deck}&view=${r.view}`);
    r.data = res.data;
  } catch (e) {
    $("r-empty").textContent = "";
    setError("replay-error", e.message);
    return;
  }
  document.body.classList.remove("replay-empty");
  const d = r.data;
  $("r-step").max = d.n_moves;
  r.step = d.card_steps.length ? d.card_steps[0] : 0;
  $("r-result").textContent = d.explanation + (d.mismatch.length ? "\n\nThe re-played game differs from the stored row: " +
    d.mismatch.join("; ") : "");
  drawMoves(d.moves, r.step);
  $("r-lost").innerHTML = "<tr><td>the solver is checking every decision …</td></tr>";
  goStep(r.step);
  loadAnalysis(i);
}

async function loadAnalysis(i) {
  const r = S.r;
  try {
    const res = await api("GET", `/api/replay/analysis?source=${r.source}&game=${i}`);
    if (r.game !== i) return;
    r.analysis = res.data;
    const a = res.data, t = $("r-lost");
    t.innerHTML = "";
    if (!a.kind) { t.innerHTML = "<tr><td>no card play to judge (passed in or Ramsch)</td></tr>"; return; }
    $("r-lost-head").textContent = `Lost against best play (${a.unit})`;
    t.innerHTML = `<tr><th></th><th>${a.unit}</th><th>mistakes</th></tr>`;
    [0, 1, 2].forEach((s) => {
      const tr = el("tr");
      const decl = r.data.meta.declarer === s ? " (declarer)" : "";
      [`${cap(POS()[s])} · ${r.data.players[s]}${decl}`, String(a.lost[s]), String(a.mistakes[s])]
        .forEach((x) => tr.appendChild(el("td", "", x)));
      t.appendChild(tr);
    });
    const note = el("tr");
    const td = el("td", "hint", a.note);
    td.colSpan = 3;
    note.appendChild(td);
    t.appendChild(note);
    markLost();
  } catch (e) {
    $("r-lost").innerHTML = "";
    setError("replay-error", e.message);
  }
}

function markLost() {
  const a = S.r.analysis;
  if (!a || !a.steps) return;
  document.querySelectorAll("#r-moves li").forEach((li) => {
    const v = a.steps[li.dataset.n];
    if (v && v.lost > 0) { li.classList.add("lost"); li.dataset.lost = `−${v.lost}`; }
  });
}

function drawMoves(moves, step) {
  // the move list as the chosen view knows it (a seat's view names only what it knew);
  // the current entry is the move about to be made, numbered as the counter counts
  const ol = $("r-moves");
  ol.innerHTML = "";
  moves.forEach((m) => {
    const li = el("li", "phase-" + m.phase + (m.action === null ? " unknown" : ""), m.label);
    li.dataset.n = m.n;
    li.onclick = () => goStep(m.n);
    if (m.n === step) li.classList.add("cur");
    if (!m.card && m.decision && S.config.analysis_agent) li.classList.add("decision");  // judged by an agent
    ol.appendChild(li);
  });
  markLost();
  const cur = ol.querySelector("li.cur");
  if (cur) cur.scrollIntoView({ block: "nearest" });
}

async function goStep(step) {
  const r = S.r;
  if (!r.data) return;
  step = Math.max(0, Math.min(r.data.n_moves, step));
  r.step = step;
  const token = ++r.token;
  $("r-step").value = step;
  $("r-stepinfo").textContent = step < r.data.n_moves ? `move ${step + 1} / ${r.data.n_moves}` : `end · ${r.data.n_moves} moves`;
  let pos;
  try {
    const res = await api("GET", `/api/replay/position?source=${r.source}&game=${r.game}&step=${step}` +
      `&view=${r.view}&deck=${S.deck}`);
    if (token !== r.token) return;
    pos = res.data;
    drawPosition(pos);
    drawMoves(pos.moves, step);
    $("r-move").textContent = pos.next ? `next: ${pos.next}` : "end of the game";
  } catch (e) {
    setError("replay-error", e.message);
    return;
  }
  const move = pos.moves[step];
  const vals = $("r-values");
  vals.innerHTML = "";
  delete vals.dataset.step;
  if (!move) { vals.textContent = ""; return; }
  vals.textContent = "…";
  try {
    const path = move.card ? "values" : "decision";
    const res = await api("GET", `/api/replay/${path}?source=${r.source}&game=${r.game}&step=${step}` +
      `&deck=${S.deck}&view=${r.view}`);
    if (token !== r.token) return;
    if (res.data.hidden) {
      vals.textContent = "The values name the cards of the seat to move: shown in its own view or with all cards.";
    } else if (move.card) drawValues(res.data.values, res.data.labels);
    else drawDecision(res.data);
  } catch (e) {
    vals.textContent = e.message;
  }
}

function drawPosition(p) {
  const d = S.r.data;
  const pos = p.positions;
  [0, 1, 2].forEach((s) => {
    const box = $("r-hand-" + s);
    box.innerHTML = "";
    const label = el("div", "label");
    label.appendChild(el("b", "", `${cap(pos[s])} · ${d.players[s]}`));
    if (p.declarer === s) label.appendChild(el("span", "", p.contract ? "declarer" : "won the bidding"));
    const pts = p.points[s] + (p.declarer === s && p.skat_points !== null ? p.skat_points : 0);
    label.appendChild(el("span", "", `${pts} pts`));
    if (p.to_move === s) label.appendChild(el("span", "turn", "to move"));
    box.appendChild(label);
    box.classList.toggle("to-move", p.to_move === s);
    const cards = el("div", "r-cards");
    const next = p.moves[p.step];
    fanInto(cards, p.hands[s], null);
    if (next && next.card && next.seat === s && next.action) {
      const c = cards.querySelector(`[data-card="${next.action}"]`);
      if (c) c.classList.add("next");
    }
    box.appendChild(cards);
  });
  const skat = $("r-skat");
  skat.innerHTML = "";
  const found = p.skat_found;
  if (Array.isArray(p.skat) && p.skat_picked_up && p.phase !== "skat") {
    skat.appendChild(el("div", "label", p.phase === "discard" ? "skat (being discarded)" : "skat (discarded)"));
  } else {
    skat.appendChild(el("div", "label", "skat"));
  }
  fanIntoRow(skat, Array.isArray(p.skat) && p.skat.length ? p.skat : (found && !p.skat_picked_up ? found : p.skat));
  drawTrick($("r-trick"), $("r-trick-note"), p.tricks, p.trick, (s) => ".r-s" + s,
    (t, n) => `trick ${n}: ${t.points} points to ${pos[t.winner]}`);
  const c = p.contract ? `${d.meta.contract_label || p.contract}` : (p.phase === "bidding" ? "bidding" : "");
  // d.seed is sent only with all cards open (it rebuilds every hand)
  $("r-title").textContent = `game ${S.r.game + 1}` + (c ? ` · ${c}` : "") + (p.bid ? ` · bid ${p.bid}` : "") +
    (d.seed !== null && d.seed !== undefined ? ` · seed ${d.seed}` : "");
}

function drawValues(v, labels) {
  const box = $("r-values");
  box.innerHTML = "";
  $("r-values-head").textContent = "Solver at this card";
  if (!v) { box.textContent = "no solver value here (Ramsch)"; return; }
  box.dataset.step = v.step;
  const played = labels[v.played] || v.played;
  const who = `${cap(POS()[v.mover])} (${S.r.data.players[v.mover]})`;
  const side = v.mover === v.declarer ? "declarer" : "defender";
  Object.entries(v.values).forEach(([c, val]) => {
    const cell = el("div", "v");
    if (v.best_cards.includes(c)) cell.classList.add("best");
    if (c === v.played) cell.classList.add("played");
    if (c === v.played && v.lost > 0) cell.classList.add("lostmove");
    cell.appendChild(card(c, { size: "tiny" }));
    cell.title = labels[c] || c;
    cell.appendChild(el("div", "num", v.shown[c]));
    box.appendChild(cell);
  });
  box.appendChild(el("div", "unit", v.legend));
  const lost = v.lost > 0 ? `${v.lost_text} against the best card.` : "no worse than the best card.";
  box.appendChild(el("div", "summary", `${who}, ${side} (${v.wants}), played ${played}: ${lost}`));
}

function drawDecision(d) {
  const box = $("r-values");
  box.innerHTML = "";
  $("r-values-head").textContent = d.title || "Decision";
  if (!d.values) { box.textContent = d.note || "not analysed"; return; }
  box.dataset.step = d.step;
  Object.entries(d.values).sort((a, b) => b[1] - a[1]).forEach(([a, val]) => {
    const cell = el("div", "v action");
    if (d.best.includes(a)) cell.classList.add("best");
    if (a === d.played) cell.classList.add("played");
    if (a === d.chosen) cell.classList.add("chosen");
    const lab = d.labels[a] || { text: a };
    if (lab.card) cell.appendChild(card(a, { size: "tiny" }));
    cell.appendChild(el("div", "", lab.text));
    cell.title = lab.full || lab.text;
    cell.appendChild(el("div", "num", d.shown[a]));
    box.appendChild(cell);
  });
  box.appendChild(el("div", "unit", d.legend));
  if (d.summary) box.appendChild(el("div", "summary", d.summary));
}

async function openReplay() {
  const c = S.config;
  const sel = $("r-source");
  if (!c.sources.length) {
    $("r-empty").textContent = "No recorded games: start the server with  skatsim serve --replay PATH  " +
      "(a tournament run directory, a games parquet or an ISS file).";
    document.body.classList.add("replay-empty");
    return;
  }
  if (!sel.options.length) {
    document.body.classList.add("replay-empty");
    c.sources.forEach((s, k) => sel.appendChild(new Option(`${s.label} — ${s.games} games`, k)));
    fillAgents();
    await loadGames();
  }
}

function fillAgents() {
  const s = S.config.sources[S.r.source];
  const a = $("r-agent");
  a.innerHTML = "";
  a.appendChild(new Option("any agent", ""));
  s.agents.forEach((x) => a.appendChild(new Option(x, x)));
}

// ------------------------------------------------------------------ wiring
function showScreen(name) {
  document.body.dataset.screen = name;
  document.body.classList.remove("side-open", "games-open");
  $("play").hidden = name !== "play";
  $("replay").hidden = name !== "replay";
  document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t.dataset.screen === name));
  if (name === "replay") openReplay();
}

async function setDeck(deck) {
  S.deck = deck;
  document.querySelectorAll("select.deck").forEach((s) => (s.value = deck));
  if (S.view) {
    try { S.view = (await api("POST", "/api/play/deck", { deck })).data.view; } catch (e) { /* keep */ }
    S.hint.n = -1;
    renderPlay();
  }
  if (S.r.data) { const step = S.r.step; await openGame(S.r.game); goStep(step); loadGames(); }
}

function toggleSide() {
  const open = !document.body.classList.contains("side-open");
  document.body.classList.toggle("side-open", open);
  $("btn-side").setAttribute("aria-expanded", String(open));
}

async function main() {
  S.config = (await api("GET", "/api/config")).data;
  if (!params.get("deck")) S.deck = S.config.deck;
  document.querySelectorAll("select.deck").forEach((s) => {
    s.value = S.deck;
    s.onchange = () => setDeck(s.value);
  });
  $("pace").value = S.pace;
  $("pace").onchange = () => { S.pace = $("pace").value; localStorage.setItem("skatsim-pace", S.pace); };
  const ha = $("hint-agent");
  (S.config.hint_agents || []).forEach((n) => ha.appendChild(new Option(n, n)));
  ha.closest("label").hidden = !(S.config.hint_agents || []).length;
  if (S.hint.agent && (S.config.hint_agents || []).includes(S.hint.agent)) ha.value = S.hint.agent;
  S.hint.agent = ha.value;
  ha.onchange = () => { S.hint.agent = ha.value; S.hint.n = -1; localStorage.setItem("skatsim-hint-agent", ha.value);
    if (S.view) renderHints(S.view); };
  $("btn-hint").onclick = () => { S.hint.on = !S.hint.on; if (S.view) renderHints(S.view); };
  document.querySelectorAll(".tab").forEach((t) => (t.onclick = () => showScreen(t.dataset.screen)));
  $("btn-side").onclick = toggleSide;
  $("btn-games").onclick = () => document.body.classList.toggle("games-open");
  $("btn-deal").onclick = dealFromSetup;
  $("btn-close-setup").onclick = closeSetup;
  $("btn-next").onclick = () => newDeal({ deck: S.deck });
  $("btn-verdict").onclick = verdict;
  $("btn-table").onclick = () => { document.body.classList.remove("side-open"); openSetup(); };
  $("opp0").onchange = showAgentDoc;
  $("opp1").onchange = showAgentDoc;
  $("r-source").onchange = () => { S.r.source = Number($("r-source").value); fillAgents(); loadGames(); };
  ["r-agent", "r-contract", "r-won"].forEach((id) => ($(id).onchange = loadGames));
  $("r-view").onchange = async () => {
    S.r.view = $("r-view").value;
    if (S.r.data) { const step = S.r.step; await openGame(S.r.game); goStep(step); }
  };
  $("r-step").oninput = () => goStep(Number($("r-step").value));
  $("r-first").onclick = () => goStep(0);
  $("r-prev").onclick = () => goStep(S.r.step - 1);
  $("r-next").onclick = () => goStep(S.r.step + 1);
  $("r-last").onclick = () => goStep(S.r.data ? S.r.data.n_moves : 0);
  document.addEventListener("keydown", (e) => {
    if (document.body.dataset.screen !== "replay" || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") goStep(S.r.step + 1);
    if (e.key === "ArrowLeft") goStep(S.r.step - 1);
  });
  S.view = (await api("GET", "/api/play")).data.view;
  renderPlay();
  if (S.view && !S.view.over && !S.view.your_turn) { S.busy = true; try { await advanceLoop(); } finally { S.busy = false; } }
  if (params.get("screen") === "replay") showScreen("replay");
}

main().catch((e) => setError("play-error", e.message));
