// skatsim table: display only. Every rule, every legal move and every word about the game
// comes from the server (skatsim_app/web/server.py); this file draws it and sends clicks.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const FAST = params.get("fast") === "1";
const S = {
  config: null, view: null, deck: params.get("deck") || "german", busy: false, selected: [],
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
const sleep = (ms) => new Promise((res) => setTimeout(res, FAST ? Math.min(ms, 40) : ms));
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
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
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
  if (v.passed.includes(seat) && (v.phase === "skat" || v.phase === "discard" || v.phase === "declare")) return "pass";
  return "";
}

function renderSeatPanel(node, v, seat) {
  node.querySelector(".name").textContent = seat === v.seat ? "You" : v.players[seat];
  node.querySelector(".role").textContent = cap(v.positions[seat]);
  let badge = "";
  if (v.declarer === seat) badge = v.contract ? "Declarer" : "won the bidding";
  node.querySelector(".badge").textContent = badge;
  const call = lastCall(v, seat);
  node.querySelector(".bubble").textContent = call === "yes" ? "yes" : call;
  const showTook = v.phase === "play" || v.over;
  node.querySelector(".took").textContent = showTook ? `${v.points[seat]} points · ${v.tricks_won[seat]} trick${v.tricks_won[seat] === 1 ? "" : "s"}` : "";
  node.classList.toggle("to-move", !v.over && v.to_move === seat);
}

function renderOpp(v, pos) {
  const seat = seatAt(v, pos);
  const node = $(pos === "left" ? "opp-left" : "opp-right");
  renderSeatPanel(node, v, seat);
  const fan = node.querySelector(".fan");
  fan.innerHTML = "";
  const open = v.ouvert_hand && v.declarer === seat;
  fan.classList.toggle("open", !!open);
  if (open) v.ouvert_hand.forEach((c) => fan.appendChild(card(c, { size: "small" })));
  else for (let i = 0; i < v.hand_counts[seat]; i++) fan.appendChild(card(null, { size: "small" }));
}

function renderCenter(v) {
  const skat = $("skat");
  skat.innerHTML = "";
  if (v.skat_lying) {
    skat.appendChild(el("div", "label", "skat"));
    skat.appendChild(card(null, { size: "small" }));
    skat.appendChild(card(null, { size: "small" }));
  } else if (v.phase === "discard" && v.skat) {
    skat.appendChild(el("div", "label", "the skat you found"));
    v.skat.forEach((c) => skat.appendChild(card(c, { size: "small" })));
  } else if (v.discard && v.phase !== "discard") {
    skat.appendChild(el("div", "label", "your skat"));
    v.discard.forEach((c) => skat.appendChild(card(c, { size: "small" })));
  }
  const trick = $("trick");
  trick.querySelectorAll(".slot").forEach((s) => (s.innerHTML = ""));
  let cards = v.trick.cards, leader = v.trick.leader, last = false;
  const note = $("trick-note");
  note.textContent = "";
  if (!cards.length && v.tricks.length && (v.phase === "play" || v.over)) {
    const t = v.tricks[v.tricks.length - 1];
    cards = t.cards; leader = t.leader; last = true;
    note.textContent = `last trick: ${t.points} points to ${v.names[t.winner]}`;
  }
  trick.classList.toggle("last", last);
  cards.forEach((c, k) => {
    const seat = (leader + k) % 3;
    trick.querySelector(".s-" + posOf(v, seat)).appendChild(card(c));
  });
}

function bidButtons(v, box) {
  const bids = v.choices.filter((c) => c.kind === "bid");
  const rest = v.choices.filter((c) => c.kind !== "bid");
  rest.forEach((c) => box.appendChild(choiceButton(c)));
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
  if (c.kind === "hold" || c.kind === "pickup" || c.kind === "kontra" || c.kind === "re") b.classList.add("primary");
  b.onclick = () => act(c.action);
  return b;
}

function declareGrid(v, box) {
  const grid = el("div", "declare-grid");
  const cols = ["game", "schneider", "schwarz", "ouvert"];
  grid.appendChild(el("div"));
  ["game", "schneider announced", "schwarz announced", "ouvert"].forEach((h) => grid.appendChild(el("div", "h", h)));
  grid.appendChild(el("div"));
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
    grid.appendChild(el("div"));
  }
  box.appendChild(grid);
}

function renderPrompt(v) {
  const prompt = $("prompt"), box = $("choices");
  box.innerHTML = "";
  if (v.over) { prompt.textContent = "The deal is over."; return; }
  if (!v.your_turn) {
    const who = v.to_move === null ? "" : v.names[v.to_move];
    prompt.textContent = v.thinking || who ? `${who} is thinking …` : "";
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
    prompt.textContent = "Choose two cards to put into the skat (the skat you found is in the middle).";
    const b = el("button", "primary", "Discard the two cards");
    b.id = "btn-discard";
    b.disabled = S.selected.length !== 2;
    b.onclick = discardSelected;
    box.appendChild(b);
  } else if (ph === "declare") {
    prompt.textContent = `Declare your game (bid ${v.bid}` + (v.skat_picked_up ? ", skat picked up)" : ", hand)") + ":";
    declareGrid(v, box);
  } else if (ph === "kontra") {
    prompt.textContent = v.choices.some((c) => c.kind === "re") ? "Kontra was said: Re?" : "Say Kontra?";
    v.choices.forEach((c) => box.appendChild(choiceButton(c)));
  } else if (ph === "play") {
    prompt.textContent = v.trick.cards.length ? "Your card (follow suit; the highlighted cards are legal)." :
      "Your lead.";
  }
}

function renderHand(v) {
  const hand = $("hand");
  hand.innerHTML = "";
  const active = v.your_turn && (v.phase === "play" || v.phase === "discard");
  hand.classList.toggle("waiting", !active);
  S.selected = S.selected.filter((c) => v.hand.includes(c));
  v.hand.forEach((c) => {
    const b = card(c, { button: true });
    if (active) {
      if (v.legal_cards.includes(c)) {
        b.classList.add("legal");
        b.onclick = () => (v.phase === "discard" ? toggleDiscard(c) : act(c));
      } else {
        b.classList.add("illegal");
        b.disabled = true;
      }
    } else {
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
    box.appendChild(el("div", "c-name", "Ramsch"));
  } else {
    box.appendChild(el("div", "", v.bid ? `bidding · ${v.bid}` : "bidding"));
  }
  box.appendChild(el("div", "hint", `deal ${v.deal_no}` + (v.deal_seed ? ` · seed ${v.deal_seed}` : "") +
    (v.rules.kontra ? " · Kontra/Re" : "")));

  const score = $("score");
  score.innerHTML = "<tr><th></th><th>points</th><th>tricks</th><th>cards</th></tr>";
  ["me", "left", "right"].forEach((pos) => {
    const s = seatAt(v, pos);
    const tr = el("tr");
    [v.names[s], v.points[s], v.tricks_won[s], v.hand_counts[s]].forEach((x) => tr.appendChild(el("td", "", String(x))));
    score.appendChild(tr);
  });

  const auction = $("auction");
  auction.innerHTML = "";
  v.bids.forEach(([s, t]) => auction.appendChild(el("span", "", `${shortName(v, s)}: ${t}`)));
  if (!v.bids.length) auction.textContent = "—";

  const log = $("log");
  log.innerHTML = "";
  v.log.forEach((t) => log.appendChild(el("li", "", t)));
  log.parentElement.scrollTop = log.parentElement.scrollHeight;

  const list = $("list");
  list.innerHTML = "<tr><th>#</th><th>game</th><th>score</th><th>you</th><th>left</th><th>right</th></tr>";
  v.list.forEach((e) => {
    const tr = el("tr");
    const who = e.declarer === null ? "" : ["you", "left", "right"][e.declarer] + ": ";
    const score = e.declarer === null ? "" : (e.list_score > 0 ? "+" : "") + e.list_score;
    tr.appendChild(el("td", "", String(e.deal_no)));
    tr.appendChild(el("td", "", who + e.contract_label));
    tr.appendChild(el("td", e.won ? "win" : e.declarer === null ? "" : "loss", score));
    e.sf.forEach((x) => tr.appendChild(el("td", "", (x > 0 ? "+" : "") + x)));
    list.appendChild(tr);
  });
  if (v.list.length) {
    const tr = el("tr", "total");
    tr.appendChild(el("td", "", "Σ"));
    tr.appendChild(el("td", "", "Seeger-Fabian"));
    tr.appendChild(el("td"));
    v.totals.forEach((x) => tr.appendChild(el("td", "", (x > 0 ? "+" : "") + x)));
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
    if (r.overbid) rows.push(["overbid", `yes: charged ${r.charged_value}`]);
    rows.push(["declarer's card points", `${r.declarer_points} (${r.declarer_tricks} tricks)`]);
    if (r.kontra) rows.push(["Kontra/Re", r.kontra === 1 ? "Kontra" : "Kontra and Re"]);
    rows.push(["list score", (r.list_score > 0 ? "+" : "") + r.list_score]);
  }
  rows.push(["Seeger-Fabian", ["me", "left", "right"].map((p) => {
    const s = seatAt(v, p);
    return `${shortName(v, s)} ${r.seeger_fabian[s] > 0 ? "+" : ""}${r.seeger_fabian[s]}`;
  }).join(" · ")]);
  rows.forEach(([k, x]) => {
    const tr = el("tr");
    tr.appendChild(el("td", "", k));
    tr.appendChild(el("td", "", String(x)));
    t.appendChild(tr);
  });
  $("result-text").textContent = r.explanation;
  $("btn-verdict").hidden = !r.verdict_available;
  $("btn-verdict").disabled = !!v.verdict;
  const vt = $("verdict-text");
  vt.hidden = !v.verdict;
  vt.textContent = v.verdict || "";
}

function renderPlay() {
  const v = S.view;
  document.body.dataset.state = !v ? "setup" : v.over ? "over" : v.your_turn ? "your-turn" : "waiting";
  document.body.dataset.phase = v ? v.phase : "";
  if (!v) { openSetup(); return; }
  renderOpp(v, "left");
  renderOpp(v, "right");
  renderSeatPanel($("me-panel"), v, v.seat);
  renderCenter(v);
  renderPrompt(v);
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
    $("setup").hidden = true;
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
  const specs = [...new Set([...c.default_opponents, ...names])];
  const fromUrl = (params.get("opponents") || "").split(",").filter(Boolean);
  const current = S.view ? S.view.settings.opponents : (fromUrl.length === 2 ? fromUrl : c.default_opponents);
  [0, 1].forEach((k) => {
    const sel = $("opp" + k);
    sel.innerHTML = "";
    [...new Set([...specs, current[k]])].forEach((s) => sel.appendChild(new Option(s, s)));
    sel.value = current[k];
  });
  if (params.get("seat")) $("seat").value = params.get("seat");
  $("kontra").checked = S.view ? S.view.settings.kontra : c.rules.kontra || params.get("kontra") === "1";
  $("ramsch").checked = S.view ? S.view.settings.ramsch : c.rules.ramsch;
  showAgentDoc();
  $("setup").hidden = false;
  $("result").hidden = true;
}

function showAgentDoc() {
  const doc = (spec) => { const a = S.config.agents[spec.split(":")[0]]; return a ? `${spec}: ${a.doc}` : spec; };
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
    t.innerHTML = `<tr><th>#</th><th>${idHead}</th><th>declarer</th><th>game</th><th></th><th>score</th></tr>`;
    r.games.forEach((g) => {
      const tr = el("tr");
      tr.dataset.game = g.i;
      const decl = g.declarer >= 0 ? `${["F", "M", "R"][g.declarer]}: ${g.players[g.declarer]}` : "";
      const id = g.iss_id !== undefined ? `${g.iss_id}` : `${g.deal_id}` + (g.arrangement ? `·${g.arrangement}` : "");
      const cls = ["", "", "agent", "", g.won ? "win" : "loss", ""];
      [String(g.i + 1), id, decl, g.contract_label, g.won === null ? "" : g.won ? "won" : "lost",
        g.declarer >= 0 ? (g.list_score > 0 ? "+" : "") + g.list_score : ""].forEach((x, k) => {
        const td = el("td", cls[k], x);
        if (k === 2) td.title = decl;
        tr.appendChild(td);
      });
      tr.onclick = () => openGame(g.i);
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
  document.querySelectorAll("#r-games tr").forEach((tr) => tr.classList.toggle("sel", Number(tr.dataset.game) === i));
  setError("replay-error", "");
  $("r-empty").textContent = "re-playing the game …";
  $("r-empty").hidden = false;
  try {
    const res = await api("GET", `/api/replay/game?source=${r.source}&game=${i}&deck=${S.deck}&view=${r.view}`);
    r.data = res.data;
  } catch (e) {
    $("r-empty").textContent = "";
    setError("replay-error", e.message);
    return;
  }
  $("r-empty").hidden = true;
  const d = r.data;
  $("r-step").max = d.n_moves;
  r.step = d.card_steps.length ? d.card_steps[0] : 0;
  $("r-result").textContent = d.explanation + (d.mismatch.length ? "\n\nThe re-played game differs from the stored row: " +
    d.mismatch.join("; ") : "");
  drawMoves(d.moves, r.step);
  $("r-lost").innerHTML = "<tr><td>the solver is checking every card …</td></tr>";
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
    const unit = a.kind === "null" ? "games thrown" : "points";
    t.innerHTML = `<tr><th></th><th>${unit}</th><th>mistakes</th></tr>`;
    [0, 1, 2].forEach((s) => {
      const tr = el("tr");
      const decl = r.data.meta.declarer === s ? " (declarer)" : "";
      [`${["F", "M", "R"][s]} ${r.data.players[s]}${decl}`, String(a.lost[s]), String(a.mistakes[s])]
        .forEach((x) => tr.appendChild(el("td", "", x)));
      t.appendChild(tr);
    });
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
  // the move list as the chosen view knows it (a seat's view names only what it knew)
  const ol = $("r-moves");
  ol.innerHTML = "";
  moves.forEach((m) => {
    const li = el("li", "phase-" + m.phase + (m.action === null ? " unknown" : ""), m.label);
    li.dataset.n = m.n;
    li.onclick = () => goStep(m.n);
    if (m.n === step) li.classList.add("cur");
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
  $("r-stepinfo").textContent = `${step} / ${r.data.n_moves}`;
  document.querySelectorAll("#r-moves li").forEach((li) => li.classList.toggle("cur", Number(li.dataset.n) === step));
  const cur = document.querySelector("#r-moves li.cur");
  if (cur) cur.scrollIntoView({ block: "nearest" });
  try {
    const res = await api("GET", `/api/replay/position?source=${r.source}&game=${r.game}&step=${step}` +
      `&view=${r.view}&deck=${S.deck}`);
    if (token !== r.token) return;
    drawPosition(res.data);
    drawMoves(res.data.moves, step);
    $("r-move").textContent = res.data.next ? `next: ${res.data.next}` : "end of the game";
  } catch (e) {
    setError("replay-error", e.message);
  }
  const move = r.data.moves[step];
  const vals = $("r-values");
  vals.innerHTML = "";
  delete vals.dataset.step;
  if (move && move.card) {
    vals.textContent = "…";
    try {
      const res = await api("GET", `/api/replay/values?source=${r.source}&game=${r.game}&step=${step}` +
        `&deck=${S.deck}&view=${r.view}`);
      if (token !== r.token) return;
      if (res.data.hidden) vals.textContent = "the solver's values name the cards of the seat to move: " +
        "shown in its own view or with all cards";
      else drawValues(res.data.values, res.data.labels);
    } catch (e) {
      vals.textContent = e.message;
    }
  } else {
    vals.textContent = move ? "not a card decision" : "";
  }
}

function drawPosition(p) {
  const d = S.r.data;
  [0, 1, 2].forEach((s) => {
    const box = $("r-hand-" + s);
    box.innerHTML = "";
    const label = el("div", "label");
    const b = el("b", "", `${cap(["forehand", "middlehand", "rearhand"][s])} · ${d.players[s]}`);
    label.appendChild(b);
    if (p.declarer === s) label.appendChild(document.createTextNode(p.contract ? "  · declarer" : "  · won the bidding"));
    label.appendChild(document.createTextNode(`  · ${p.points[s]} pts`));
    box.appendChild(label);
    box.classList.toggle("to-move", p.to_move === s);
    const h = p.hands[s];
    if (Array.isArray(h)) {
      const next = p.moves[p.step];
      h.forEach((c) => {
        const e = card(c);
        if (next && next.card && next.seat === s && next.action === c) e.classList.add("next");
        box.appendChild(e);
      });
    } else {
      for (let i = 0; i < h; i++) box.appendChild(card(null, { size: "tiny" }));
    }
  });
  const skat = $("r-skat");
  skat.innerHTML = "";
  skat.appendChild(el("div", "label", p.skat_picked_up && p.phase !== "discard" ? "skat (discarded)" : "skat"));
  if (p.skat) p.skat.forEach((c) => skat.appendChild(card(c, { size: "small" })));
  else { skat.appendChild(card(null, { size: "small" })); skat.appendChild(card(null, { size: "small" })); }
  const trick = $("r-trick");
  trick.querySelectorAll(".slot").forEach((s) => (s.innerHTML = ""));
  let cards = p.trick.cards, leader = p.trick.leader, last = false;
  const note = $("r-trick-note");
  note.textContent = "";
  if (!cards.length && p.tricks.length) {
    const t = p.tricks[p.tricks.length - 1];
    cards = t.cards; leader = t.leader; last = true;
    note.textContent = `trick ${p.tricks.length}: ${t.points} points to ${["forehand", "middlehand", "rearhand"][t.winner]}`;
  }
  trick.classList.toggle("last", last);
  cards.forEach((c, k) => trick.querySelector(".r-s" + ((leader + k) % 3)).appendChild(card(c)));
  const c = p.contract ? `${d.meta.contract_label || p.contract}` : (p.phase === "bidding" ? "bidding" : "");
  // d.seed is sent only with all cards open (it rebuilds every hand)
  $("r-title").textContent = `game ${S.r.game + 1} · ${c}` + (p.bid ? ` · bid ${p.bid}` : "") +
    (d.seed !== null && d.seed !== undefined ? ` · seed ${d.seed}` : "");
}

function drawValues(v, labels) {
  const box = $("r-values");
  box.innerHTML = "";
  if (!v) { box.textContent = "no solver value here (Ramsch, or not a card decision)"; return; }
  box.dataset.step = v.step;
  const played = labels[v.played] || v.played;
  const who = S.r.data.players[v.mover];
  const side = v.mover === v.declarer ? "declarer" : "defender";
  const unit = v.kind === "null" ? "" : " pts";
  Object.entries(v.values).forEach(([c, val]) => {
    const cell = el("div", "v");
    if (v.best_cards.includes(c)) cell.classList.add("best");
    if (c === v.played) cell.classList.add("played");
    if (c === v.played && v.lost > 0) cell.classList.add("lostmove");
    cell.appendChild(card(c, { size: "tiny" }));
    cell.title = labels[c] || c;
    const shown = v.kind === "null" ? (val ? "null won" : "lost") : String(val);
    cell.appendChild(el("div", "num", shown));
    box.appendChild(cell);
  });
  let text;
  if (v.kind === "null") {
    text = v.lost > 0 ? `${who} (${side}) played ${played} and threw the game away.` :
      `${who} (${side}) played ${played}: no worse than the best card.`;
  } else {
    text = `Values: the declarer's card points with best play after each card. ${who} (${side}, ` +
      `${side === "declarer" ? "wants the most" : "wants the fewest"}) played ${played}: ` +
      (v.lost > 0 ? `${v.lost} points lost against the best card.` : "best play.");
  }
  box.appendChild(el("div", "summary", text));
}

async function openReplay() {
  const c = S.config;
  const sel = $("r-source");
  if (!c.sources.length) {
    $("r-empty").textContent = "No recorded games: start the server with  skatsim serve --replay PATH  " +
      "(a tournament run directory, a games parquet or an ISS file).";
    return;
  }
  if (!sel.options.length) {
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
  $("play").hidden = name !== "play";
  $("replay").hidden = name !== "replay";
  document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t.dataset.screen === name));
  if (name === "replay") openReplay();
}

async function setDeck(deck) {
  S.deck = deck;
  document.querySelectorAll("input[name=deck]").forEach((i) => (i.checked = i.value === deck));
  if (S.view) {
    try { S.view = (await api("POST", "/api/play/deck", { deck })).data.view; } catch (e) { /* keep */ }
    renderPlay();
  }
  if (S.r.data) { const step = S.r.step; await openGame(S.r.game); goStep(step); loadGames(); }
}

async function main() {
  S.config = (await api("GET", "/api/config")).data;
  if (!params.get("deck")) S.deck = S.config.deck;
  document.querySelectorAll("input[name=deck]").forEach((i) => {
    i.checked = i.value === S.deck;
    i.onchange = () => setDeck(i.value);
  });
  document.querySelectorAll(".tab").forEach((t) => (t.onclick = () => showScreen(t.dataset.screen)));
  $("btn-deal").onclick = dealFromSetup;
  $("btn-next").onclick = () => newDeal({ deck: S.deck });
  $("btn-verdict").onclick = verdict;
  $("btn-table").onclick = openSetup;
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
