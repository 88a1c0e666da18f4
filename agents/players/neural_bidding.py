"""Neural bidding: a small torch network that values every candidate contract of a hand,
and ``NeuralBidderAgent``, which bids, takes the skat or plays hand, discards and
declares by its predictions (card play delegated).

Features (:data:`FEATURE_LAYOUT`, version :data:`LAYOUT_VERSION`; float32, in order):

==============  ====  ===============================================================
part            size  meaning
==============  ====  ===============================================================
cards           32    the ten cards (card id = index, :mod:`skatsim.cards`)
seat            3     one-hot: 0 forehand, 1 middlehand, 2 rearhand
bid             1     highest bid so far / 264 (0: none)
passed          2     the next seat (seat + 1) / the previous seat (seat + 2) has passed
seat_bids       2     highest value the next / previous seat named or held, / 264
suit_len        4     plain (non-jack) cards per suit D H S C, / 7
trumps          4     trumps in a D H S C game (jacks + suit), / 11
jacks           1     jacks held, / 4
matadors        5     matadors (with or without) of the ten cards in D H S C G, / 11
aces_tens       2     aces, tens held, / 4
points          1     card points held, / 60
==============  ====  ===============================================================

The ``bid`` / ``passed`` / ``seat_bids`` block is the bidding so far. What it means is the
checkpoint's ``context``:

- ``"bid_level"`` (the shipped model): labels conditioned on the auction
  (``condition="auction"`` in :mod:`agents.learn.bidding_data`); ``bid`` is the bid at which
  the seat would win the auction against rule-based opponents, the rest is zero. The agent
  asks "what is each contract worth if I win at ``b``?" with ``bid = b / 264``.
- ``"auction"``: labels from uniformly dealt worlds, which do not depend on the block;
  training randomises it (``context_augment``) so the network ignores it, and the agent
  fills in the real bidding so far (room for human records, ``source="iss"``).

Outputs: per contract of :data:`CONTRACTS` (``D H S C G N`` after a
pickup, ``DH ... NH`` hand) a win-probability logit and the expected list score at the
contract's own value / 100 (``2 x 12`` numbers).

Checkpoints: ``<name>.pt`` (``state_dict``, loaded with ``torch.load(weights_only=True)``)
and ``<name>.json`` (layout version, feature layout, contracts, sizes, data hash, the
training config and metrics). :func:`load_model` refuses a checkpoint whose layout does
not match this module's.

The agent's expected score of contract ``c`` at bid ``b`` (Seeger-Fabian, relative to
the defenders): ``p (v + 50) - (1 - p) (2 v + 50 + 2 loss_penalty)``, with an overbid
(``v < b``) counted as lost at the bid rounded up to the base; ``p`` from the network,
``v`` from the cards. A hand game's value is averaged over the 231 possible skats (they
change the matadors). Picking up is worth what the declarer makes of the skat he finds:
the mean over ``skats`` sampled skats of the best game after the discard (each game's
rule-based discard plan, the kept ten valued by the hand-game heads), not the best fixed
contract, which ignores that the game is chosen after seeing the skat. It bids / holds
``b`` while ``max(best hand game, pickup) + aggressiveness >= 0``.

``loss_penalty`` (default :data:`agents.arena.base.DUPLICATE_LOSS_PENALTY`, 20): in a duplicate
tournament a player's opponents are, on average over the seat arrangements, half partners
of his own agent and half the other agent, so the two defenders' +40 of a lost game cost
the declarer's agent 40 in relative terms, i.e. 20 per defender.
"""

from __future__ import annotations

import functools
import itertools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from numba import njit, prange

from skatsim.actions import BID_BASE, DECLARE_BASE, HAND, HOLD, PASS, PICKUP
from skatsim.cards import CARD_POINTS
from skatsim.contracts import BID_VALUES, DECLARATIONS, Contract
from skatsim.kernels import game as G
from skatsim.kernels.heuristic import greedy_discard, params_array
from skatsim.kernels.threads import kernel
from skatsim.rules import GAME_LETTERS as _ALL_GAME_LETTERS
from skatsim.rules import NULL
from skatsim.scoring import matadors_many, matadors_of
from skatsim.valuation import HAND as HAND_FLAG
from skatsim.valuation import expected_sf_array, game_value, game_value_array

from ..arena.base import DUPLICATE_LOSS_PENALTY
from ..learn.nets import checkpoint_files, dense_rows, mlp_body, write_checkpoint
from ..learn.nets import lazy_torch as _torch
from . import MODELS_DIR
from .calibration import calibrated_array, parse_calibration

if TYPE_CHECKING:
    from skatsim.observation import Observation

__all__ = ["LAYOUT_VERSION", "FEATURE_LAYOUT", "N_FEATURES", "N_CONTRACTS", "encode_features", "BiddingNet",
           "save_checkpoint", "load_model", "default_model_path", "NeuralBidderAgent", "CheckpointError",
           "contract_scores", "CONTRACTS", "CONTRACT_GAME", "CONTRACT_HAND", "GAME_LETTERS", "discard_for"]

#: The letters of the games a declarer can choose (the rules' letters less Ramsch's).
GAME_LETTERS: tuple[str, ...] = tuple(_ALL_GAME_LETTERS[:6])
#: The candidate contracts (ISS tokens): six after a pickup, then six hand games.
CONTRACTS: tuple[str, ...] = tuple(GAME_LETTERS) + tuple(g + "H" for g in GAME_LETTERS)
CONTRACT_GAME: tuple[int, ...] = tuple(range(6)) * 2
CONTRACT_HAND: tuple[bool, ...] = (False,) * 6 + (True,) * 6
_RB_PARAMS = params_array()


def discard_for(twelve: int, game: int) -> int:
    """The two cards (a mask) the rule-based player's greedy plan discards from ``twelve``
    for ``game`` (``kernels.heuristic.greedy_discard``, applied twice)."""
    c1 = int(greedy_discard(int(twelve), int(game), _RB_PARAMS))
    c2 = int(greedy_discard(int(twelve) & ~(1 << c1), int(game), _RB_PARAMS))
    return (1 << c1) | (1 << c2)


LAYOUT_VERSION = 1
FEATURE_LAYOUT: tuple[tuple[str, int], ...] = (
    ("cards", 32), ("seat", 3), ("bid", 1), ("passed", 2), ("seat_bids", 2), ("suit_len", 4), ("trumps", 4),
    ("jacks", 1), ("matadors", 5), ("aces_tens", 2), ("points", 1))
N_FEATURES = sum(n for _, n in FEATURE_LAYOUT)
N_CONTRACTS = len(CONTRACTS)
_OFF = {}
_pos = 0
for _name, _n in FEATURE_LAYOUT:
    _OFF[_name] = _pos
    _pos += _n
CONTEXT = slice(_OFF["bid"], _OFF["bid"] + 5)  # the bidding-so-far block

_TOP = 264.0


@njit(cache=True)
def _encode_kernel(h, s, out):
    n = h.shape[0]
    for i in range(n):
        m = h[i]
        for c in range(32):
            out[i, c] = (m >> c) & 1
        out[i, 32 + s[i]] = 1.0
        jacks = ((m >> 7) & 1) + ((m >> 15) & 1) + ((m >> 23) & 1) + ((m >> 31) & 1)
        pts = 0
        for c in range(32):
            if (m >> c) & 1:
                pts += _PTS_I[c]
        for u in range(4):
            plain = 0
            for r in range(7):
                plain += (m >> (8 * u + r)) & 1
            out[i, _O_SUIT + u] = plain / 7.0
            out[i, _O_TRUMPS + u] = (plain + jacks) / 11.0
        out[i, _O_JACKS] = jacks / 4.0
        for g in range(5):
            mat = matadors_of(m, g)
            out[i, _O_MAT + g] = (mat if mat > 0 else -mat) / 11.0
        out[i, _O_AT] = (((m >> 6) & 1) + ((m >> 14) & 1) + ((m >> 22) & 1) + ((m >> 30) & 1)) / 4.0
        out[i, _O_AT + 1] = (((m >> 5) & 1) + ((m >> 13) & 1) + ((m >> 21) & 1) + ((m >> 29) & 1)) / 4.0
        out[i, _O_PTS] = pts / 60.0


_PTS_I = np.array(CARD_POINTS, dtype=np.int64)
_O_SUIT, _O_TRUMPS, _O_JACKS, _O_MAT, _O_AT, _O_PTS = (_OFF["suit_len"], _OFF["trumps"], _OFF["jacks"],
                                                       _OFF["matadors"], _OFF["aces_tens"], _OFF["points"])


def encode_features(hands: Any, seats: Any, context: Any = None) -> np.ndarray:
    """``float32 (n, N_FEATURES)`` for card masks ``hands`` held in ``seats`` (compiled).

    ``context``: ``None`` (no bidding yet) or ``(n, 5)``: bid / 264, next passed, previous
    passed, next's bid / 264, previous's bid / 264 (the ``bid passed seat_bids`` block).
    """
    h = np.ascontiguousarray(np.asarray(hands, dtype=np.int64).reshape(-1))
    s = np.asarray(seats, dtype=np.int64).reshape(-1)
    if s.shape[0] == 1 and h.shape[0] > 1:
        s = np.full(h.shape[0], s[0])
    if s.shape[0] != h.shape[0] or ((s < 0) | (s > 2)).any():
        raise ValueError("seats must be 0, 1 or 2, one per hand (or one for all)")
    out = np.zeros((h.shape[0], N_FEATURES), np.float32)
    _encode_kernel(h, np.ascontiguousarray(s), out)
    if context is not None:
        out[:, CONTEXT] = np.asarray(context, np.float32).reshape(h.shape[0], 5)
    return out


def bid_context(bid: int) -> np.ndarray:
    """The bidding block of a ``"bid_level"`` checkpoint: winning the auction at ``bid``."""
    return np.array([bid / _TOP, 0, 0, 0, 0], np.float32)


def context_of(view: np.ndarray, seat: int) -> np.ndarray:
    """The bidding block (5 floats) of ``seat`` from a masked state vector."""
    nxt, prv = (seat + 1) % 3, (seat + 2) % 3
    passed = int(view[G.F_PASSED])
    return np.array([view[G.F_BID] / _TOP, (passed >> nxt) & 1, (passed >> prv) & 1,
                     view[G.F_BIDVAL0 + nxt] / _TOP, view[G.F_BIDVAL0 + prv] / _TOP], np.float32)


# ----------------------------------------------------------------------------- the network


class CheckpointError(ValueError):
    """A checkpoint that does not fit this code (layout, version, contracts, sizes)."""


def BiddingNet(hidden: tuple[int, ...] = (256, 256), dropout: float = 0.0) -> Any:
    """The network: an MLP ``N_FEATURES -> hidden ... -> 2 x N_CONTRACTS`` (ReLU).

    ``forward(x)`` returns ``(logits, e_list / 100)``, each ``(n, N_CONTRACTS)``."""
    nn = _torch().nn

    class _Net(nn.Module):  # type: ignore[name-defined]  # torch is imported lazily
        def __init__(self) -> None:
            super().__init__()
            self.body, d = mlp_body(N_FEATURES, hidden, dropout)
            self.head = nn.Linear(d, 2 * N_CONTRACTS)
            self.hidden = tuple(hidden)

        def forward(self, x: Any) -> tuple[Any, Any]:
            y = self.head(self.body(x))
            return y[:, :N_CONTRACTS], y[:, N_CONTRACTS:]

    return _Net()


def _meta_base(hidden: tuple[int, ...]) -> dict[str, Any]:
    return {"format": "skatsim.neural_bidding", "layout_version": LAYOUT_VERSION,
            "feature_layout": [list(p) for p in FEATURE_LAYOUT], "contracts": list(CONTRACTS),
            "outputs": ["win_logit", "e_list_over_100"], "hidden": list(hidden)}


def save_checkpoint(net: Any, path: str | Path, **meta: Any) -> tuple[Path, Path]:
    """Write ``<path>.pt`` (state_dict) and ``<path>.json`` (layout + ``meta``)."""
    cfg = _meta_base(tuple(net.hidden))
    cfg.update(meta)
    return write_checkpoint(net, path, cfg)


def default_model_path() -> Path:
    """The model shipped with the package (``agents/models/bidding_v2``)."""
    return MODELS_DIR / "bidding_v2"


@njit(cache=True, parallel=True)
def _heads_rows(h, p, e):
    """Win probabilities (sigmoid of the clipped logits) and expected list scores x 100."""
    nc = p.shape[1]
    one = np.float32(1.0)
    for i in prange(h.shape[0]):
        for j in range(nc):
            lg = min(max(h[i, j], np.float32(-30.0)), np.float32(30.0))
            p[i, j] = one / (one + np.exp(-lg))
            e[i, j] = h[i, nc + j] * np.float32(100.0)


class _Model:
    """A loaded bidding network: torch for batches, a numpy copy for the agent."""

    def __init__(self, net: Any, meta: dict[str, Any]) -> None:
        self.net = net.eval()
        self.meta = meta
        sd = net.state_dict()
        self._w = [(sd[k].numpy().astype(np.float32), sd[k.replace("weight", "bias")].numpy().astype(np.float32))
                   for k in sd if k.endswith("weight")]
        self._wt = [(np.ascontiguousarray(w.T), np.ascontiguousarray(b)) for w, b in self._w]
        for pair in self._w + self._wt:
            for a in pair:
                a.setflags(write=False)

    def __deepcopy__(self, memo: dict) -> "_Model":
        # read-only: copies of an agent (a tournament's per-game copies, the agent API test's
        # copy at every decision) share the network instead of copying its weights
        return self

    def predict(self, x: np.ndarray, *, batch: int = 65536) -> tuple[np.ndarray, np.ndarray]:
        """``(p_win, e_list)`` per row and contract (torch, batched)."""
        torch = _torch()
        ps, es = [], []
        with torch.inference_mode():
            for a in range(0, len(x), batch):
                lg, e = self.net(torch.from_numpy(np.ascontiguousarray(x[a:a + batch])))
                ps.append(torch.sigmoid(lg).numpy())
                es.append((e * 100.0).numpy())
        if not ps:
            return np.zeros((0, N_CONTRACTS), np.float32), np.zeros((0, N_CONTRACTS), np.float32)
        return np.concatenate(ps), np.concatenate(es)

    def predict_rows(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(p_win, e_list)`` per row, compiled, each row computed by the same arithmetic
        whatever the batch (BLAS results depend on the batch size): what the agent uses, so
        its decisions one at a time (``act``) and in batches (``act_batch``) are the same."""
        h = np.ascontiguousarray(x, dtype=np.float32)
        last = len(self._wt) - 1
        for i, (wt, b) in enumerate(self._wt):
            out = np.empty((h.shape[0], wt.shape[1]), np.float32)
            kernel(dense_rows)(h, wt, b, i < last, out)
            h = out
        p = np.empty((h.shape[0], N_CONTRACTS), np.float32)
        e = np.empty((h.shape[0], N_CONTRACTS), np.float32)
        kernel(_heads_rows)(h, p, e)
        return p, e

    def predict_np(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The same in numpy (small batches: no torch overhead, thread-free)."""
        h = x
        for i, (w, b) in enumerate(self._w):
            h = h @ w.T + b
            if i < len(self._w) - 1:
                np.maximum(h, 0, out=h)
        lg = np.clip(h[:, :N_CONTRACTS], -30, 30)
        return 1.0 / (1.0 + np.exp(-lg)), h[:, N_CONTRACTS:] * 100.0


_CACHE: dict[str, _Model] = {}


def load_model(path: str | Path | None = None) -> _Model:
    """Load a checkpoint (``.pt`` + ``.json``; default: the shipped model). Raises
    :class:`CheckpointError` when its feature layout, version or contracts differ."""
    torch = _torch()
    pt, js = checkpoint_files(path if path is not None else default_model_path())
    p = pt.with_suffix("")
    key = str(p.resolve())
    if key in _CACHE:
        return _CACHE[key]
    if not js.exists() or not pt.exists():
        raise FileNotFoundError(f"a bidding checkpoint is {p}.pt + {p}.json; missing: "
                                + ", ".join(str(f) for f in (pt, js) if not f.exists()))
    meta = json.loads(js.read_text())
    want = _meta_base(tuple(meta.get("hidden", ())))
    for k in ("format", "layout_version", "feature_layout", "contracts"):
        if meta.get(k) != want[k]:
            raise CheckpointError(
                f"checkpoint {js} does not match this code's bidding features: {k} is {meta.get(k)!r}, "
                f"this code expects {want[k]!r}. Retrain with skatsim train-bidding or use a "
                f"matching skatsim version.")
    net = BiddingNet(tuple(meta["hidden"]))
    sd = torch.load(pt, weights_only=True, map_location="cpu")
    try:
        net.load_state_dict(sd)
    except RuntimeError as e:
        raise CheckpointError(f"checkpoint {pt} does not fit its config {js}: {e}") from None
    m = _Model(net, meta)
    _CACHE[key] = m
    return m


# ----------------------------------------------------------------------------- scoring


def _mats12(cards: np.ndarray) -> np.ndarray:
    """|matadors| per game (5 columns) of 12-card masks."""
    cards = np.ascontiguousarray(cards, np.int64)
    return np.stack([np.abs(matadors_many(cards, g)) for g in range(5)], axis=1)


_SKAT_PAIRS: dict[int, np.ndarray] = {}


def _skats(hand: int) -> np.ndarray:
    """The 231 possible skats (masks) for a ten-card hand."""
    unseen = [c for c in range(32) if not (hand >> c) & 1]
    return np.array([(1 << a) | (1 << b) for a, b in itertools.combinations(unseen, 2)], np.int64)


@functools.lru_cache(maxsize=4096)
def _skat_mats(hand: int) -> np.ndarray:
    m = _mats12(hand | _skats(hand))
    m.setflags(write=False)
    return m


def _game_sf(p: Any, game: int, mats: Any, hand_game: bool, bid: int, penalty: float) -> np.ndarray:
    """Expected relative SF (:func:`skatsim.valuation.expected_sf`) of ``game`` won with
    probabilities ``p`` (an array) whose matadors are ``mats`` (one per entry; unused in
    null), hand or not: the value follows from them; a null below the bid is not declarable
    (``-inf``)."""
    p = np.ascontiguousarray(p, np.float64).ravel()
    flags = HAND_FLAG if hand_game else 0
    if game == NULL:
        v = int(game_value(NULL, flags, 0))
        if v < bid:
            return np.full(p.shape, -np.inf)
        values = np.full(p.shape, v, np.int64)
    else:
        m = np.ascontiguousarray(np.broadcast_to(np.asarray(mats, np.int64), p.shape))
        no = np.zeros(p.shape, np.bool_)
        values = game_value_array(game, flags, m, no, no)
    return expected_sf_array(p, values, game, flags, bid, penalty)


def contract_scores(p: np.ndarray, hand: int, bid: int, penalty: float, twelve: int | None = None,
                    contracts: tuple[int, ...] = tuple(range(N_CONTRACTS))) -> np.ndarray:
    """Expected relative SF per contract (``-inf`` where not declarable) at ``bid``.

    ``hand`` ten cards; without ``twelve`` the skat is unknown (averaged over the 231
    skats); with ``twelve`` (after a pickup) the matadors are known."""
    if twelve is None:
        mats = _skat_mats(int(hand))  # (231, 5): the matadors with each possible skat
    else:
        mats = _mats12(np.array([twelve], np.int64))
    k = len(mats)
    out = np.full(N_CONTRACTS, -np.inf)
    for i in contracts:
        g, hg = CONTRACT_GAME[i], CONTRACT_HAND[i]
        if g == NULL:
            out[i] = float(_game_sf(np.full(1, p[i]), g, None, hg, bid, penalty)[0])
            continue
        out[i] = float(_game_sf(np.full(k, p[i]), g, mats[:, g], hg, bid, penalty).mean())
    return out


class _Info:
    """What the network's decisions read of an observation: from a typed
    :class:`~skatsim.observation.Observation` (``act``) or from its tensor and legal mask
    (``act_batch``); the two give the same values."""

    __slots__ = ("hand", "seat", "bid", "phase", "legal", "picked", "discard", "ctx")

    def __init__(self, hand: int, seat: int, bid: int, phase: str, legal: Sequence[int], picked: bool, discard: int,
                 ctx: np.ndarray | None) -> None:
        self.hand, self.seat, self.bid, self.phase = hand, seat, bid, phase
        self.legal, self.picked, self.discard, self.ctx = legal, picked, discard, ctx

    @classmethod
    def of_obs(cls, obs: "Observation") -> "_Info":
        return cls(obs.hand.mask, obs.seat, obs.bid, obs.phase, obs.legal_actions, obs.skat_picked_up,
                   obs.discard.mask if obs.discard is not None else 0, context_of(obs.view, obs.seat))

    @classmethod
    def coerce(cls, obs: Any) -> "_Info":
        return obs if isinstance(obs, _Info) else cls.of_obs(obs)

    @classmethod
    def of_tensor(cls, t: np.ndarray, mask: np.ndarray, by_bid: bool = True) -> "_Info":
        from skatsim.observation import OBS_OFFSETS as O

        def bits(part: str) -> int:
            return int(sum(1 << int(i) for i in np.flatnonzero(t[O[part]] > 0)))

        seat = int(np.argmax(t[O["seat"]]))
        lvl = int(np.argmax(t[O["bid_level"]]))
        bid = BID_VALUES[lvl - 1] if lvl else 0
        phase = G.PHASE_NAMES[int(np.argmax(t[O["phase"]]))]
        ctx = None
        if not by_bid:  # context_of(view, seat) from the tensor's public bidding parts
            nxt, prv = (seat + 1) % 3, (seat + 2) % 3
            passed, sb = t[O["passed"]], t[O["seat_bids"]]
            ctx = np.array([bid / _TOP, passed[nxt], passed[prv], sb[nxt], sb[prv]], np.float32)
        return cls(bits("hand"), seat, bid, phase, np.flatnonzero(mask).tolist(), bool(t[O["flags"]][4] > 0),
                   bits("discard"), ctx)


class _Calibrated:
    """A bidding network whose win probabilities go through a calibration
    (:func:`agents.players.calibration.calibrated_array`, per contract's game)."""

    def __init__(self, model: Any, cal: Any) -> None:
        self.model, self.cal = model, cal
        self.meta = model.meta
        self._games = np.array([CONTRACT_GAME[i] for i in range(N_CONTRACTS)])

    def __deepcopy__(self, memo: dict) -> "_Calibrated":
        return self  # read-only, as the network it wraps

    def predict_rows(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p, e = self.model.predict_rows(x)
        return calibrated_array(p, self._games[None, :], self.cal).astype(np.float32), e


# ----------------------------------------------------------------------------- the agent


_CARD_PLAY = ("rule_based", "pimc")
_DISCARD = ("rule_based", "plans", "model")


class NeuralBidderAgent:
    """Bidding, skat, discard and declaration by the bidding network; card play (and
    Kontra/Re) by a delegate.

    Args:
        model: checkpoint path (``.pt`` / ``.json`` / stem), a loaded model, or ``None``
            for the shipped one.
        card_play: ``"rule_based"`` (:class:`agents.players.rule_based.RuleBasedAgent`) or
            ``"pimc"`` (:class:`agents.players.pimc.PIMCAgent`, ``pimc_worlds`` worlds).
        aggressiveness: Seeger-Fabian points added to the expected score before the
            ``>= 0`` test of bidding (positive: bid more).
        loss_penalty: what a lost game costs per defender in relative points (default: the
            duplicate-tournament cost, :data:`agents.arena.base.DUPLICATE_LOSS_PENALTY`).
        discard: ``"rule_based"`` (the rule-based player's discard, by the card-play
            delegate, which discards like it in both modes; the network then declares),
            ``"plans"`` (each game's rule-based greedy discard plan, the game
            chosen by the network's hand-game heads on the kept ten) or ``"model"`` (every
            pair of cards x every game, scored by those heads). The heads were trained on
            hand games, whose skat is unknown, so they do not see the points a discard puts
            in the skat: both model-scored options discard worse than the rule-based player
            (README, Neural bidding).
        pimc_worlds: worlds per card decision with ``card_play="pimc"``.
        skats: skats sampled to value a pickup (bidding, skat decision).
        calibration: the network's win probabilities mapped to what the card player wins
            (:mod:`agents.players.calibration`: ``"a,b;a,b;a,b"`` for suit, grand and null,
            fitted on games that card player played; ``"none"``: as the network says).
    """

    name = "neural_bidder"

    def __init__(self, model: Any = None, card_play: str = "rule_based", aggressiveness: float = 0.0,
                 loss_penalty: float = DUPLICATE_LOSS_PENALTY, discard: str = "rule_based", pimc_worlds: int = 32,
                 skats: int = 32, calibration: str = "none") -> None:
        if card_play not in _CARD_PLAY:
            raise ValueError(f"card_play must be one of {_CARD_PLAY}, got {card_play!r}")
        if discard not in _DISCARD:
            raise ValueError(f"discard must be one of {_DISCARD}, got {discard!r}")
        for k, v in (("aggressiveness", aggressiveness), ("loss_penalty", loss_penalty)):
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise TypeError(f"{k} must be a number, got {v!r}")
        self.model = model if isinstance(model, (_Model, _Calibrated)) else load_model(model or None)
        cal = parse_calibration(calibration)
        if cal is not None:
            self.model = _Calibrated(self.model, cal)
        self.card_play = card_play
        self.aggressiveness = float(aggressiveness)
        self.loss_penalty = float(loss_penalty)
        self.discard = discard
        if isinstance(skats, bool) or not isinstance(skats, (int, np.integer)) or not 1 <= skats <= 231:
            raise ValueError(f"skats must be an int in 1..231, got {skats!r}")
        self.skats = int(skats)
        self.by_bid = self.model.meta.get("context") == "bid_level"
        if card_play == "pimc":
            from .pimc import PIMCAgent

            self._delegate: Any = PIMCAgent(worlds=int(pimc_worlds))
        else:
            from .rule_based import RuleBasedAgent

            self._delegate = RuleBasedAgent()
        self._cache: dict[tuple[int, int, bytes], np.ndarray] = {}
        #: one record per declaration: the game, hand or not, the bid, the network's (calibrated)
        #: win probability of the ten cards that play and the expected score it declared for
        self.declarations: list[dict[str, Any]] = []
        self._pick: dict[tuple[int, int, int], float] = {}
        self._plans: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    # ------------------------------------------------------------------ protocol
    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        self.declarations = []
        self._cache = {}
        self._pick = {}
        self._plans = {}
        self._delegate.reset(deal_id, seat, rng)

    def observe(self, seat: int, action: int) -> None:
        f = getattr(self._delegate, "observe", None)
        if f is not None:
            f(seat, action)

    def act(self, obs: "Observation") -> int:
        a = self._run(self._decide(_Info.of_obs(obs)))
        return int(self._delegate.act(obs)) if a is None else a

    def act_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> np.ndarray:
        """The network's decisions (bidding, skat, declaration; the discard unless
        ``discard="rule_based"``) for a batch of observation tensors, with every network
        evaluation of the batch in one compiled call; ``-1`` for the decisions of the
        delegate (card play, Kontra/Re, the rule-based discard), which
        :func:`agents.arena.vecplay.play_boards` then asks through :meth:`act`. The same actions
        as :meth:`act` on the same observations."""
        k = len(observations)
        out = np.full(k, -1, dtype=np.int64)
        gens: dict[int, Any] = {}
        pending: dict[int, np.ndarray] = {}
        for j in range(k):
            g = self._decide(_Info.of_tensor(observations[j], legal_masks[j], self.by_bid))
            try:
                pending[j] = next(g)
                gens[j] = g
            except StopIteration as stop:
                out[j] = -1 if stop.value is None else stop.value
        while pending:
            keys = list(pending)
            sizes = [len(pending[j]) for j in keys]
            p, e = self.model.predict_rows(np.concatenate([pending[j] for j in keys]))
            pending = {}
            at = 0
            for j, m in zip(keys, sizes):
                try:
                    pending[j] = gens[j].send((p[at:at + m], e[at:at + m]))
                except StopIteration as stop:
                    out[j] = -1 if stop.value is None else stop.value
                    del gens[j]
                at += m
        if len(self._cache) > 100_000 or len(self._pick) > 100_000:  # the batch instance is never reset
            self._cache, self._pick, self._plans, self.declarations = {}, {}, {}, []
        return out

    def _run(self, gen: Any) -> Any:
        """Drive a decision generator, evaluating each network request at once."""
        try:
            x = next(gen)
            while True:
                x = gen.send(self.model.predict_rows(x))
        except StopIteration as stop:
            return stop.value

    def _decide(self, info: "_Info") -> Any:
        """Generator of one decision: yields feature rows, receives ``(p, e)``, returns the
        action (``None``: the delegate decides)."""
        legal = info.legal
        if len(legal) == 1:
            return legal[0]
        ph = info.phase
        if ph == "bidding":
            return (yield from self._bid(info, legal))
        if ph == "skat":
            return (yield from self._skat(info, legal))
        if ph == "discard":
            if self.discard == "rule_based":
                return None
            return (yield from self._discard(info, legal))
        if ph == "declare":
            return (yield from self._declare(info, legal))
        return None

    # ------------------------------------------------------------------ evaluation
    def predict(self, hand: int, seat: int, context: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(p_win, e_list)`` per contract for ``hand`` in ``seat``."""
        return self._run(self._predict(hand, seat, context))

    def _predict(self, hand: int, seat: int, context: np.ndarray | None = None) -> Any:
        ctx = np.zeros(5, np.float32) if context is None else np.asarray(context, np.float32)
        key = (int(hand), int(seat), ctx.tobytes())
        if key not in self._cache:
            x = encode_features([hand], [seat], ctx[None, :])
            p, e = yield x
            self._cache[key] = np.stack([p[0], e[0]])
        r = self._cache[key]
        return r[0], r[1]

    def context(self, obs: Any, bid: int) -> np.ndarray:
        """The bidding block for a decision at ``bid`` (see the module docstring)."""
        if self.by_bid:
            return bid_context(bid)
        ctx = obs.ctx if isinstance(obs, _Info) else context_of(obs.view, obs.seat)
        assert ctx is not None  # auction models always carry the context
        return ctx

    def scores(self, obs: Any, bid: int) -> np.ndarray:
        """Expected relative SF per contract of the dealt ten cards at ``bid``."""
        return self._run(self._scores(_Info.coerce(obs), bid))

    def _scores(self, info: "_Info", bid: int) -> Any:
        p, _ = yield from self._predict(info.hand, info.seat, self.context(info, bid))
        return contract_scores(p, info.hand, bid, self.loss_penalty)

    def _skat_plans(self, hand: int, seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For ``skats`` sampled skats (seeded by the hand) and each game: the ten cards
        kept after the rule-based discard plan, and the twelve cards' matadors."""
        key = (int(hand), int(seat))
        if key not in self._plans:
            sk = _skats(int(hand))
            if self.skats < len(sk):
                sk = np.random.default_rng([int(hand) & 0xFFFFFFFF, int(hand) >> 32, 7]).choice(sk, self.skats,
                                                                                                 replace=False)
            twelve = int(hand) | sk
            kept = np.array([[t & ~discard_for(int(t), g) for g in range(6)] for t in twelve], np.int64)
            self._plans[key] = (sk, kept, _mats12(twelve))
        return self._plans[key]

    def pickup_value(self, obs: Any, bid: int) -> float:
        """Expected relative SF of picking up at ``bid``: the mean over sampled skats of
        the best game after its discard (the kept ten valued by the hand-game heads)."""
        return self._run(self._pickup_value(_Info.coerce(obs), bid))

    def _pickup_value(self, info: "_Info", bid: int) -> Any:
        key = (info.hand, info.seat, int(bid))
        if key in self._pick:
            return self._pick[key]
        _, kept, mats = self._skat_plans(info.hand, info.seat)
        k = len(kept)
        ctx = np.repeat(self.context(info, bid)[None, :], kept.size, axis=0)
        p, _ = yield encode_features(kept.reshape(-1), [info.seat], ctx)
        p = p.reshape(k, 6, N_CONTRACTS)
        best = np.full(k, -np.inf)
        for g in range(6):  # the hand-game head of game g values the ten kept for g
            sg = _game_sf(p[:, g, 6 + g], g, mats[:, g] if g != NULL else None, False, bid, self.loss_penalty)
            best = np.maximum(best, sg)
        v = float(best.mean())
        self._pick[key] = v
        return v

    def value(self, obs: Any, bid: int) -> float:
        """What winning the auction at ``bid`` is worth: the best hand game or the pickup."""
        return self._run(self._value(_Info.coerce(obs), bid))

    def _value(self, info: "_Info", bid: int) -> Any:
        sc = yield from self._scores(info, bid)
        pv = yield from self._pickup_value(info, bid)
        return max(float(sc[6:].max()), pv)

    def max_bid(self, obs: Any) -> int:
        """The highest bid the predictions justify (0: none)."""
        info = _Info.coerce(obs)
        top = 0
        for b in BID_VALUES:
            if self.value(info, b) + self.aggressiveness >= 0:
                top = b
            elif b > 24:
                break
        return top

    # ------------------------------------------------------------------ decisions
    def _bid(self, info: "_Info", legal: Sequence[int]) -> Any:
        bids = [a for a in legal if BID_BASE <= a < PASS]
        if bids:
            nxt = min(bids)
            b = BID_VALUES[nxt - BID_BASE]
            ok = (yield from self._value(info, b)) + self.aggressiveness >= 0
            return nxt if ok else PASS
        if HOLD in legal:
            ok = (yield from self._value(info, info.bid)) + self.aggressiveness >= 0
            return HOLD if ok else PASS
        return PASS if PASS in legal else legal[0]

    def _skat(self, info: "_Info", legal: Sequence[int]) -> Any:
        best_hand = float((yield from self._scores(info, info.bid))[6:].max())
        pv = yield from self._pickup_value(info, info.bid)
        return HAND if HAND in legal and best_hand > pv else PICKUP

    def _after_pickup(self, cards: int, seat: int, twelve: int, bid: int, ctx: np.ndarray,
                      first: int = -1) -> Any:
        """Best ``(game, discard mask, score)`` of twelve cards (``cards`` held now; ``first``:
        the card already discarded, or -1) (a decision generator).

        ``discard="plans"``: each game with its own rule-based discard plan
        (:func:`discard_for`); ``"model"``: every pair of cards for every
        game."""
        if self.discard == "plans":
            cand = [(g, discard_for(twelve, g)) for g in range(6)]
            if first >= 0:
                cand = [(g, pr) for g, pr in cand if (pr >> first) & 1]
        else:
            cand = []
        if not cand:  # "model", or no plan of any game began with the card already gone
            held = [c for c in range(32) if (cards >> c) & 1]
            pairs = ([(1 << first) | (1 << c) for c in held] if first >= 0 else
                     [(1 << a) | (1 << b) for a, b in itertools.combinations(held, 2)])
            cand = [(g, pr) for g in range(6) for pr in pairs]
        pairs = sorted({pr for _, pr in cand})
        row = {pr: i for i, pr in enumerate(pairs)}
        tens = np.array([twelve & ~pr for pr in pairs], np.int64)
        x = encode_features(tens, [seat], np.repeat(ctx[None, :], len(tens), axis=0))
        p, _ = yield x
        mats = _mats12(np.array([twelve], np.int64))[0]
        best = (cand[0][0], cand[0][1], -np.inf)
        for g, pr in cand:  # the hand-game head values the ten cards that will play
            sc = float(_game_sf(p[row[pr], 6 + g:7 + g], g, mats[g:g + 1] if g != NULL else None, False, bid,
                                self.loss_penalty)[0])
            if sc > best[2]:
                best = (g, pr, sc)
        return best

    def _discard(self, info: "_Info", legal: Sequence[int]) -> Any:
        cards = info.hand
        gone = info.discard
        twelve = cards | gone
        first = (gone & -gone).bit_length() - 1 if gone else -1
        _, pair, _ = yield from self._after_pickup(cards, info.seat, twelve, info.bid, self.context(info, info.bid),
                                                   first)
        for c in sorted(legal):
            if (pair >> c) & 1:
                return c
        return legal[0]  # pragma: no cover - the pair holds a legal card

    def _declare(self, info: "_Info", legal: Sequence[int]) -> Any:
        options = {}
        for a in legal:
            c = Contract.from_code(DECLARATIONS[a - DECLARE_BASE])
            if c.ouvert or c.schneider_announced:
                continue
            options[c.game] = a
        if not options:
            return None
        hand_game = not info.picked
        if hand_game:
            p, _ = yield from self._predict(info.hand, info.seat, self.context(info, info.bid))
            sc = (yield from self._scores(info, info.bid))[6:]
        else:
            cards = info.hand
            twelve = cards | info.discard
            p, _ = yield from self._predict(cards, info.seat, self.context(info, info.bid))
            mats = _mats12(np.array([twelve], np.int64))[0]
            sc = np.full(6, -np.inf)
            for g in range(6):
                sc[g] = float(_game_sf(p[6 + g:7 + g], g, mats[g:g + 1] if g != NULL else None, False, info.bid,
                                       self.loss_penalty)[0])
        best = max(options, key=lambda g: (sc[g], -g))
        self.declarations.append({"seat": info.seat, "game": int(best), "hand": hand_game, "bid": int(info.bid),
                                  "p": float(p[6 + best]), "score": float(sc[best])})
        return options[best]

    def action_values(self, obs: "Observation") -> Any:
        """The network's expected Seeger-Fabian score of each choice (``None`` in the phases it
        leaves to its delegate): in the bidding, going on (the next bid, or holding) is worth
        the best contract at that bid plus ``aggressiveness``, passing 0; at the skat, the best
        hand game and the pickup; at the declaration, each game's score."""
        from ..arena.base import ActionValues

        info = _Info.of_obs(obs)
        legal = list(obs.legal_actions)
        if not legal:
            return None
        vals: dict[int, float] = {}
        if info.phase == "bidding":
            bids = [a for a in legal if BID_BASE <= a < PASS]
            go = min(bids) if bids else (HOLD if HOLD in legal else None)
            if go is None:
                return None
            b = BID_VALUES[go - BID_BASE] if bids else info.bid
            vals[go] = self.value(info, b) + self.aggressiveness
            if PASS in legal:
                vals[PASS] = 0.0
        elif info.phase == "skat":
            if HAND in legal:
                vals[HAND] = float(self.scores(info, info.bid)[6:].max())
            if PICKUP in legal:
                vals[PICKUP] = self.pickup_value(info, info.bid)
        elif info.phase == "declare":
            if info.picked:
                p, _ = self.predict(info.hand, info.seat, self.context(info, info.bid))
                mats = _mats12(np.array([info.hand | info.discard], np.int64))[0]
                sc = [float(_game_sf(p[6 + g:7 + g], g, mats[g:g + 1] if g != NULL else None, False, info.bid,
                                     self.loss_penalty)[0]) for g in range(6)]
            else:
                sc = list(self.scores(info, info.bid)[6:])
            for a in legal:
                c = Contract.from_code(DECLARATIONS[a - DECLARE_BASE])
                if not (c.ouvert or c.schneider_announced) and np.isfinite(sc[c.game]):
                    vals[a] = float(sc[c.game])
        else:
            return None
        if not vals:
            return None
        n = len(self.declarations)
        chosen = self._run(self._decide(info))
        del self.declarations[n:]
        return ActionValues(vals, "SF points", chosen=chosen)

    def card_play_key(self) -> tuple[str, str, str] | None:
        """The card-play delegate's :meth:`card_play_key` (the network never plays a card)."""
        f = getattr(self._delegate, "card_play_key", None)
        return None if f is None else f()

    def __repr__(self) -> str:
        return (f"NeuralBidderAgent(card_play={self.card_play!r}, aggressiveness={self.aggressiveness:g}, "
                f"discard={self.discard!r})")
