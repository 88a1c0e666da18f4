"""``DistilledAgent``: card play by a network distilled from PIMC search.

The network reads what the seat knows at a card decision and gives, for every card, the
fraction of worlds in which that card reaches the mover's side's goal (what PIMC estimates
by solving sampled worlds open-handed, :mod:`agents.players.pimc`) and a policy over the
cards (PIMC's own choice, which carries its tie-breaks). It plays the card of highest
value, the policy breaking near-ties (``value + tie * policy``). It is trained by
:mod:`agents.learn.distil` on :mod:`agents.learn.card_labels` rows.

What the network sees (:func:`encode`), always seat-relative (the mover first, then the
next seat, then the one before: :func:`agents.players.dmc.seat_permutations`) and with the
suits canonical (:data:`CANON`: in a suit game the trump suit's plain cards trade places
with the clubs', so every suit game looks like a clubs game and one network learns all
four from the same data):

- ``flat`` (:data:`N_FLAT` floats): the observation tensor
  (:data:`skatsim.observation.OBS_LAYOUT`), then the cards still unseen by the mover, the
  cards each other seat may still hold (unseen and not shown void), the card the rule-based
  player would play here (the network learns where search differs from it), and the role
  (mover, next seat, previous seat is the declarer);
- ``tokens`` (``int64 (30, 4)``): the cards played so far in order, each as (canonical
  card + 1, who played it relative to the mover, its place in the trick, the trick index);
  0-padded. With ``sequence=True`` a small transformer encoder reads them (the order of
  play: who led what, who signalled), beside the flat features.

Outside suit, grand and null card play (the bidding, the skat, the declaration, Kontra/Re,
Ramsch) the agent is the rule-based player.

The shipped model, ``agents/models/distilled_v2``, is the registry's ``distilled`` (and the
card play of ``learned``); the first one stays loadable as ``distilled:model=distilled_v1``;
a model of your own goes by path::

    skatsim tournament distilled rule_based
    skatsim tournament "distilled:model=runs/distil/model" rule_based
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from numba import njit

from skatsim.kernels import game as K
from skatsim.kernels.observe import OBS_LAYOUT, OBS_SIZE, observe_into
from skatsim.rules import NULL

from ..learn.nets import checkpoint_files, mlp_body, write_checkpoint
from ..learn.nets import lazy_torch as _torch
from . import MODELS_DIR
from .dmc import seat_permutations

if TYPE_CHECKING:
    from skatsim.observation import Observation

__all__ = ["DistilledAgent", "CardModel", "build_net", "encode", "encode_arrays", "encode_observation", "legal_policy",
           "card_scores", "best_cards", "card_network",
           "played_sequence", "CANON", "N_FLAT",
           "MAX_TOKENS", "DEFAULT_TIE", "load_card_model", "save_card_model", "default_model_path", "model_path",
           "SHIPPED", "FORMAT",
           "LAYOUT_VERSION"]

FORMAT = "skatsim.distilled"
#: the decision rule's weight of the policy (``value + tie x policy``), chosen on held-out games
DEFAULT_TIE = 0.1
LAYOUT_VERSION = 1
MAX_TOKENS = 30
_OFF: dict[str, tuple[int, int]] = {}
_p = 0
for _n, _s in OBS_LAYOUT:
    _OFF[_n] = (_p, _s)
    _p += _s
_EXTRA = 32 * 4 + 3
#: Flat features: the observation tensor and the extras (module docstring).
N_FLAT = OBS_SIZE + _EXTRA
_RB_AT = OBS_SIZE + 96  # where the rule-based card's one-hot starts


def _canon() -> np.ndarray:
    """``CANON[g, card]``: the canonical card of ``card`` in game type ``g`` (0..6): in a suit
    game ``g`` the plain cards (7 8 9 Q K 10 A) of suit ``g`` and of clubs trade places."""
    out = np.tile(np.arange(32, dtype=np.int64), (7, 1))
    for g in range(4):
        for r in range(7):
            a, b = g * 8 + r, 3 * 8 + r
            out[g, a], out[g, b] = b, a
    out.setflags(write=False)
    return out


CANON = _canon()

#: Parts of the observation tensor indexed by card (their card blocks are permuted).
_CARD_PARTS = ("hand", "skat", "discard", "ouvert_hand", "played", "trick", "legal")


def _suit_perm() -> np.ndarray:
    """``perm (7, OBS_SIZE)``: the canonical observation of game type ``g`` is ``obs[perm[g]]``:
    every 32-card block and the per-suit voids follow :data:`CANON`; the game one-hot of a suit
    game becomes clubs."""
    perm = np.tile(np.arange(OBS_SIZE, dtype=np.int64), (7, 1))
    for g in range(7):
        inv = np.argsort(CANON[g])  # canonical card -> the real card there
        for name in _CARD_PARTS:
            o, n = _OFF[name]
            blocks = 1 if name == "legal" else n // 32
            for b in range(blocks):
                base = o + 32 * b
                perm[g, base:base + 32] = base + inv
        if g < 4:
            o, n = _OFF["voids"]  # per seat: D H S C trumps
            for s in range(n // 5):
                a, c = o + 5 * s + g, o + 5 * s + 3
                perm[g, a], perm[g, c] = c, a
            o, _ = _OFF["game"]
            perm[g, o + g], perm[g, o + 3] = o + 3, o + g
    perm.setflags(write=False)
    return perm


SUIT_PERM = _suit_perm()
SEAT_PERM = seat_permutations()


@njit(cache=True)
def _encode_one(view, seat, tr_cards, tr_seats, n_tok, rb, suit_perm, seat_perm, canon, tensor, flat,
                tokens) -> None:
    """Features of one position into ``flat`` (N_FLAT) and ``tokens`` (MAX_TOKENS, 4)."""
    observe_into(view, seat, tensor)
    g = view[K.F_GAME]
    if g < 0 or g > 6:
        g = 6
    n = tensor.shape[0]
    for i in range(n):
        flat[i] = tensor[suit_perm[g, seat_perm[seat, i]]]
    hand = view[K.F_HAND0 + seat]
    known = hand
    for q in range(3):
        known |= view[K.F_PLAYED0 + q]
    k = view[K.F_NCARDS]
    for j in range(k):
        known |= np.int64(1) << view[K.F_TRICK0 + j]
    if view[K.F_DECLARER] == seat:
        known |= view[K.F_SKAT]
    known |= view[K.F_SHOWN]
    for c in range(32):
        out = n + canon[g, c]
        unseen = (known >> c) & 1 == 0
        flat[out] = 1.0 if unseen else 0.0
        for r in range(2):
            q = (seat + 1 + r) % 3
            ok = unseen and ((view[K.F_VOID0 + q] >> c) & 1) == 0
            flat[out + 32 * (r + 1)] = 1.0 if ok else 0.0
    for c in range(32):
        flat[n + 96 + c] = 0.0
    if rb >= 0:
        flat[n + 96 + canon[g, rb]] = 1.0
    d = view[K.F_DECLARER]
    for r in range(3):
        flat[n + 128 + r] = 1.0 if d >= 0 and (seat + r) % 3 == d else 0.0
    for t in range(tokens.shape[0]):
        for f in range(4):
            tokens[t, f] = 0
    for t in range(n_tok):
        tokens[t, 0] = canon[g, tr_cards[t]] + 1
        tokens[t, 1] = (tr_seats[t] - seat + 3) % 3
        tokens[t, 2] = t % 3
        tokens[t, 3] = t // 3


@njit(cache=True)
def _encode_many(views, seats, cards, who, n_tok, rb, suit_perm, seat_perm, canon, flat, tokens) -> None:
    tensor = np.empty(suit_perm.shape[1], np.float32)
    for i in range(views.shape[0]):
        _encode_one(views[i], seats[i], cards[i], who[i], n_tok[i], rb[i], suit_perm, seat_perm, canon, tensor,
                    flat[i], tokens[i])


def play_order(seq: Sequence[int], game: int) -> list[int]:
    """The seat that played each card of ``seq`` (cards in the order of play from the first
    trick, forehand leading it), by the trick winners of ``game``.

    >>> from skatsim.cards import parse_card as c
    >>> play_order([c("CA"), c("C7"), c("CJ"), c("D7")], 0)   # the club jack (a trump) takes the trick
    [0, 1, 2, 2]
    """
    from skatsim.rules import trick_winner_pos

    out: list[int] = []
    leader = 0
    for t in range(0, len(seq), 3):
        trick = [int(c) for c in seq[t:t + 3]]
        out += [(leader + j) % 3 for j in range(len(trick))]
        if len(trick) == 3:
            leader = (leader + int(trick_winner_pos(trick[0], trick[1], trick[2], game))) % 3
    return out


def encode(views: np.ndarray, seats: Sequence[int], seqs: Sequence[Sequence[int]],
           players: Sequence[Sequence[int]] | None = None,
           rule_based: Sequence[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(flat float32 (n, N_FLAT), tokens int64 (n, MAX_TOKENS, 4))`` of ``n`` positions: the
    seats' masked views, the seats, the cards played so far in order (``players``: who
    played each; by default from the trick winners, :func:`play_order`) and the rule-based
    player's card at each (``-1``: none)."""
    v = np.ascontiguousarray(views, np.int64)
    if v.ndim == 1:
        v = v[None, :]
    n = len(v)
    cards = np.zeros((n, MAX_TOKENS), np.int64)
    who = np.zeros((n, MAX_TOKENS), np.int64)
    ntok = np.zeros(n, np.int64)
    for i in range(n):
        s = list(seqs[i])[:MAX_TOKENS]
        p = list(players[i]) if players is not None else play_order(s, int(v[i, K.F_GAME]))
        ntok[i] = len(s)
        cards[i, :len(s)] = s
        who[i, :len(s)] = p[:len(s)]
    rb = np.full(n, -1, np.int64) if rule_based is None else np.ascontiguousarray(rule_based, np.int64)
    return encode_arrays(v, np.asarray(seats, np.int64), cards, who, ntok, rb)


def encode_arrays(views: np.ndarray, seats: np.ndarray, cards: np.ndarray, who: np.ndarray, n_tok: np.ndarray,
                  rule_based: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`encode` of positions given as arrays (one compiled call): ``views (n, N_FIELDS)``,
    ``seats (n,)``, the cards played in order and who played each ``(n, MAX_TOKENS)`` of which
    the first ``n_tok[i]`` count, and the rule-based card ``(n,)`` (``-1``: none)."""
    n = len(views)
    flat = np.empty((n, N_FLAT), np.float32)
    tokens = np.empty((n, MAX_TOKENS, 4), np.int64)
    _encode_many(np.ascontiguousarray(views, np.int64), np.ascontiguousarray(seats, np.int64),
                 np.ascontiguousarray(cards, np.int64), np.ascontiguousarray(who, np.int64),
                 np.ascontiguousarray(n_tok, np.int64), np.ascontiguousarray(rule_based, np.int64), SUIT_PERM,
                 SEAT_PERM, CANON, flat, tokens)
    return flat, tokens


def played_sequence(obs: "Observation") -> tuple[list[int], list[int]]:
    """The cards played so far in order, and the seat that played each."""
    seq: list[int] = []
    who: list[int] = []
    for leader, cards, _ in obs.tricks:
        seq += list(cards)
        who += [(leader + j) % 3 for j in range(len(cards))]
    if obs.current_trick:
        lead = obs.trick_leader if obs.trick_leader is not None else 0
        seq += list(obs.current_trick)
        who += [(lead + j) % 3 for j in range(len(obs.current_trick))]
    return seq, who


def encode_observation(obs: "Observation", rule_based: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """:func:`encode` of one observation (its view, seat and the tricks so far)."""
    seq, who = played_sequence(obs)
    return encode(obs.view[None, :], [obs.seat], [seq], [who], [rule_based])


# ----------------------------------------------------------------------------- the network


def build_net(hidden: Sequence[int] = (512, 256), sequence: bool = True, d_model: int = 64, layers: int = 2,
              heads: int = 4) -> Any:
    """The card network: an MLP over the flat features, beside (``sequence``) a transformer
    encoder over the played cards (mean-pooled); a head of 64 outputs: 32 value logits
    (per canonical card) and 32 policy logits."""
    torch = _torch()
    nn = torch.nn

    class CardNet(nn.Module):  # type: ignore[name-defined]  # torch is imported lazily
        def __init__(self) -> None:
            super().__init__()
            self.body, w = mlp_body(N_FLAT, hidden)
            self.sequence = bool(sequence)
            if self.sequence:
                self.card = nn.Embedding(33, d_model)
                self.who = nn.Embedding(3, d_model)
                self.place = nn.Embedding(3, d_model)
                self.trick = nn.Embedding(10, d_model)
                layer = nn.TransformerEncoderLayer(d_model, heads, 2 * d_model, dropout=0.0, batch_first=True)
                self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
                w += d_model
            self.head = nn.Sequential(nn.Linear(w, 256), nn.ReLU(), nn.Linear(256, 64))
            # a skip from the rule-based card's one-hot to the policy logits: training starts
            # at the rule-based player and learns where the search departs from it
            self.rb_policy = nn.Parameter(torch.tensor(3.0))

        def forward(self, flat: Any, tokens: Any) -> Any:
            h = self.body(flat)
            rb = flat[:, _RB_AT:_RB_AT + 32]
            if self.sequence:
                pad = tokens[:, :, 0] == 0
                x = self.card(tokens[:, :, 0]) + self.who(tokens[:, :, 1]) + self.place(tokens[:, :, 2]) \
                    + self.trick(tokens[:, :, 3])
                empty = pad.all(dim=1)
                pad = pad & ~empty[:, None] | (empty[:, None] & (torch.arange(pad.shape[1]) > 0)[None, :])
                z = self.encoder(x, src_key_padding_mask=pad)
                keep = (~pad).unsqueeze(-1).float()
                z = (z * keep).sum(1) / keep.sum(1).clamp(min=1.0)
                h = torch.cat([h, z], dim=1)
            out = self.head(h)
            return torch.cat([out[:, :32], out[:, 32:] + self.rb_policy * rb], dim=1)

    return CardNet()


def legal_policy(logits: np.ndarray, game: int | np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The policy over real cards ``(n, 32)``: the network's canonical policy logits of positions
    of game type ``game`` (one for every row, or one per row), softmaxed over each row's
    ``legal`` cards (bool ``(n, 32)``; 0 elsewhere).

    >>> legal_policy(np.zeros((1, 32)), 0, np.arange(32)[None, :] < 4)[0, :5]
    array([0.25, 0.25, 0.25, 0.25, 0.  ])
    """
    z = np.where(legal, _real(np.asarray(logits, np.float64), game), -np.inf)
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def _real(canonical: np.ndarray, game: int | np.ndarray) -> np.ndarray:
    """Per-real-card columns ``(n, 32)`` of per-canonical-card outputs, each row's game type."""
    canon = CANON[np.broadcast_to(np.asarray(game, np.int64), (len(canonical),))]
    return np.take_along_axis(canonical, canon, axis=1)


def card_scores(values: np.ndarray, logits: np.ndarray, game: int | np.ndarray, legal: np.ndarray,
                tie: float = DEFAULT_TIE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The decision rule on the network's outputs (:meth:`CardModel.outputs`) of ``n``
    positions: per real card ``(n, 32)`` each, the value, the policy over the ``legal`` cards
    (:func:`legal_policy`) and the score ``value + tie x policy`` (``-inf`` where illegal). The
    card played is the score's first maximum, the lowest card among equals
    (:func:`best_cards`); the agent and the batched play-outs of
    :mod:`agents.players.card_playouts` both decide by it.

    >>> v = np.full((1, 32), 0.5, np.float32)
    >>> legal = np.arange(32)[None, :] < 3
    >>> _, pol, score = card_scores(v, np.zeros((1, 32)), 0, legal)
    >>> [round(float(x), 3) for x in score[0, :4]], int(best_cards(score)[0])
    ([0.533, 0.533, 0.533, -inf], 0)
    """
    v = _real(values, game)
    pol = legal_policy(logits, game, legal)
    return v, pol, np.where(legal, v + tie * pol, -np.inf)


def best_cards(scores: np.ndarray) -> np.ndarray:
    """The card each row of :func:`card_scores`' scores plays: its first maximum (the lowest card
    among equal scores)."""
    return np.argmax(scores, axis=1)


class CardModel:
    """A loaded card network with its settings: :meth:`values` of positions."""

    def __init__(self, net: Any, meta: dict[str, Any]) -> None:
        self.net = net.eval()
        self.meta = meta

    def outputs(self, flat: np.ndarray, tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(value probabilities, policy logits)`` per canonical card, ``(n, 32)`` each."""
        torch = _torch()
        with torch.inference_mode():
            out = self.net(torch.from_numpy(flat), torch.from_numpy(tokens)).numpy()
        return 1.0 / (1.0 + np.exp(-out[:, :32])), out[:, 32:]


def save_card_model(net: Any, path: str | Path, config: dict[str, Any]) -> tuple[Path, Path]:
    """Write a card network checkpoint (``<stem>.pt`` + ``<stem>.json``)."""
    meta = {"format": FORMAT, "layout_version": LAYOUT_VERSION, "n_flat": N_FLAT, "max_tokens": MAX_TOKENS,
            **config}
    return write_checkpoint(net, path, meta)


#: The card networks shipped in ``agents/models``, oldest first; the last is the default.
SHIPPED = ("distilled_v1", "distilled_v2")


def default_model_path() -> Path:
    """The shipped model (``agents/models/distilled_v2``).

    >>> default_model_path().name
    'distilled_v2'
    """
    return MODELS_DIR / SHIPPED[-1]


def model_path(name: str | Path | None) -> Path:
    """The checkpoint a model name means: ``None``, ``""`` or ``"distilled"`` the default, a
    shipped name (:data:`SHIPPED`, e.g. ``"distilled_v1"``) its file in ``agents/models``,
    anything else a path (a stem, ``.pt`` or ``.json``).

    >>> model_path("distilled_v1").name, model_path("runs/distil/model").as_posix()
    ('distilled_v1', 'runs/distil/model')
    """
    if not name or str(name) == "distilled":
        return default_model_path()
    return MODELS_DIR / str(name) if str(name) in SHIPPED else Path(name)


def load_card_model(path: str | Path | None = None) -> CardModel:
    """Load a checkpoint (``None``: the shipped default; a shipped name or a path:
    :func:`model_path`); a clear error when it is missing or was written for another layout."""
    pt, js = checkpoint_files(model_path(path))
    if not pt.is_file() or not js.is_file():
        raise ValueError(f"no card-network checkpoint at {pt.with_suffix('')} (need {pt.name} and {js.name})")
    meta = json.loads(js.read_text())
    if meta.get("format") != FORMAT or meta.get("layout_version") != LAYOUT_VERSION or meta.get("n_flat") != N_FLAT:
        raise ValueError(f"{js} is not a {FORMAT} checkpoint of layout {LAYOUT_VERSION} with {N_FLAT} features")
    torch = _torch()
    arch = meta.get("arch", {})
    net = build_net(**arch)
    net.load_state_dict(torch.load(pt, map_location="cpu", weights_only=True))
    return CardModel(net, meta)


_CARD_NETWORKS: dict[str, CardModel] = {}


def card_network(name: str = "") -> CardModel:
    """The card network ``name`` names (``""`` or ``"distilled"``: the shipped one; a shipped
    name or a path, :func:`model_path`), loaded once per process and shared: its users only
    read it, and an agent keeps the name only (a tournament copies its agents for every
    game). Torch is kept on one thread, checked at every call: decisions run on one thread
    (the batches are small), no thread team is started that a worker forked later would
    inherit (see :func:`skatsim.parallel.map_chunks`), and a tournament worker, in which the
    count was found raised after the load, runs its rollouts 4x faster for it."""
    torch = _torch()
    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)
    if name not in _CARD_NETWORKS:
        _CARD_NETWORKS[name] = load_card_model(name or None)
    return _CARD_NETWORKS[name]


# ----------------------------------------------------------------------------- the agent


class DistilledAgent:
    """Card play by the distilled network (module docstring).

    Args:
        model: checkpoint path, a loaded :class:`CardModel`, or ``None``/``""`` for the shipped one.
        tie: weight of the policy's probability added to the value (near-ties go to
            the card the teacher tended to choose).
        endgame: the last ``endgame`` tricks (the current one included) are played by PIMC
            search over ``endgame_worlds`` worlds (every world when there are no more) instead
            of the network; 0 (the default): the network plays every card. Late in the
            game a world solves in microseconds, so a few tricks of search stay within a
            millisecond a decision on average (docs/strength.md, *An endgame search*).
        endgame_worlds: worlds per decision of that search.
        endgame_nodes: search nodes per decision of that search (0: no budget): its worlds
            are solved in batches of 8 until the budget is spent (``pimc``'s ``node_budget``),
            so a late, cheap position gets up to ``endgame_worlds`` worlds and a dear one at
            least 8.
    """

    name = "distilled"

    def __init__(self, model: Any = None, tie: float = DEFAULT_TIE, endgame: int = 0,
                 endgame_worlds: int = 8, endgame_nodes: int = 0) -> None:
        from .pimc import PIMCAgent
        from .rule_based import RuleBasedAgent

        if isinstance(endgame, bool) or not isinstance(endgame, (int, np.integer)) or not 0 <= endgame <= 10:
            raise ValueError(f"endgame must be a number of tricks in 0..10, got {endgame!r}")
        _torch().set_num_threads(1)  # before the load: see card_network
        self.model = model if isinstance(model, CardModel) else load_card_model(model or None)
        self.tie = float(tie)
        self.endgame = int(endgame)
        self._rb = RuleBasedAgent()
        self._search = PIMCAgent(worlds=endgame_worlds, node_budget=endgame_nodes) if self.endgame else None

    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        self._rb.reset(deal_id, seat, rng)
        if self._search is not None:
            self._search.reset(deal_id, seat, rng)

    def _searched(self, obs: "Observation") -> bool:
        """The endgame's decisions: the mover's cards in hand are the tricks left."""
        return self._search is not None and len(obs.hand) <= self.endgame

    @staticmethod
    def _decides(obs: "Observation") -> bool:
        return obs.phase == "play" and obs.game_type is not None and obs.game_type <= NULL

    def _scores(self, obs: "Observation") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        flat, tok = encode_observation(obs, self._rb.peek(obs))
        values, logits = self.model.outputs(flat, tok)
        legal = np.zeros((1, 32), bool)
        legal[0, list(obs.legal_actions)] = True
        v, pol, s = card_scores(values, logits, int(obs.game_type or 0), legal, self.tie)
        return v[0], pol[0], s[0]

    def act(self, obs: "Observation") -> int:
        legal = obs.legal_actions
        if not self._decides(obs):
            return self._rb.act(obs)
        if len(legal) == 1:
            return legal[0]
        if self._searched(obs):
            return self._search.act(obs)  # type: ignore[union-attr]
        _, _, s = self._scores(obs)
        return int(best_cards(s[None, :])[0])

    def action_values(self, obs: "Observation") -> Any:
        """The network's win probability of each legal card (``detail``: the policy)."""
        from ..arena.base import ActionValues

        if not self._decides(obs) or not obs.legal_actions:
            return None
        if self._searched(obs):
            return self._search.action_values(obs)  # type: ignore[union-attr]
        v, pol, s = self._scores(obs)
        legal = obs.legal_actions
        chosen = int(best_cards(s[None, :])[0])
        return ActionValues({c: float(v[c]) for c in legal}, "win probability", chosen=chosen,
                            detail={"policy": {c: float(pol[c]) for c in legal}})

    def __repr__(self) -> str:
        end = "" if self._search is None else (f", endgame={self.endgame}, endgame_worlds={self._search.worlds}"
                                               + (f", endgame_nodes={self._search.node_budget}"
                                                  if self._search.node_budget else ""))
        return f"DistilledAgent(tie={self.tie:g}{end})"

