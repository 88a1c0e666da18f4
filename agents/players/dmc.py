"""Deep Monte-Carlo (DMC) Skat player: a Q network over the 130 actions, learned by self-play.

The network reads the 574-float observation tensor (:data:`skatsim.observation.OBS_LAYOUT`)
turned seat-relative (:func:`canonical`: every per-seat block rotated so that the observer
comes first, the next seat second; the absolute seat one-hot is kept, it says who leads and
who bids) and gives ``Q(observation, a)`` for every action ``a`` in one forward pass, in
Seeger-Fabian points / 100 of the observing seat (the Monte-Carlo return it was trained on,
:mod:`agents.learn.dmc`). The agent plays the legal action of highest Q in the phases
its model learned (``meta["phases"]``: card play only, or every phase) and hands the
others to a delegate (the rule-based player, the neural bidder or PIMC), so hybrids are one
parameter away:

>>> from agents import make_agent
>>> a = make_agent("dmc")                                   # the shipped model
>>> sorted(a.model.meta["phases"])[:1]
['play']
>>> from agents.arena.play import play_game
>>> play_game(["dmc", "rule_based", "rule_based"], seed=3).is_terminal()
True

``make_agent("dmc", declarer_play="pimc")`` (PIMC as declarer, learned defence) and
``make_agent("dmc", early="neural_bidder")`` are such hybrids. Decisions are the same one
at a time (:meth:`DMCAgent.act`) and in batches (:meth:`DMCAgent.act_batch`): the agent
evaluates the network row by row in compiled code (no BLAS, whose results depend on the
batch), well under a millisecond per decision on one core.

Checkpoints are ``<stem>.pt`` (a torch ``state_dict``, loaded with ``weights_only=True``)
and ``<stem>.json`` (the layout, the hidden sizes, the learned phases and the training
record): :func:`save_checkpoint`, :func:`load_model`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from numba import njit, prange

from skatsim.actions import NUM_ACTIONS
from skatsim.kernels.observe import O_DECLARER, O_PHASE, O_SEAT, OBS_LAYOUT, OBS_OFFSETS, OBS_SIZE
from skatsim.layout import PH_DONE, PHASE_NAMES

from ..learn.nets import checkpoint_files, dense_row, mlp_body, write_checkpoint
from ..learn.nets import lazy_torch as _torch
from . import MODELS_DIR

if TYPE_CHECKING:
    from skatsim.observation import Observation

__all__ = ["DMCAgent", "DMCModel", "DMCNet", "CheckpointError", "canonical", "seat_permutations",
           "save_checkpoint", "load_model", "default_model_path", "PHASES", "FORMAT", "LAYOUT_VERSION",
           "rule_based_actions", "phase_of_rows", "role_of_rows"]

FORMAT = "skatsim.dmc"
LAYOUT_VERSION = 1
#: Phase names in the order of the observation's ``phase`` one-hot (the core's, less ``done``).
PHASES: tuple[str, ...] = PHASE_NAMES[:PH_DONE]
#: Every phase a model can learn.
ALL_PHASES = PHASES
#: Observation parts with one entry (or one block) per absolute seat: rotated seat-relative.
_PER_SEAT = ("to_move", "seat_bids", "passed", "declarer", "played", "voids", "trick_leader", "points", "tricks_won")


def seat_permutations() -> np.ndarray:
    """``perm (3, 574)``: the seat-relative observation of seat ``s`` is ``obs[perm[s]]``.

    In each per-seat part (``to_move``, ``seat_bids``, ``passed``, ``declarer``, ``played``,
    ``voids``, ``trick_leader``, ``points``, ``tricks_won``) block ``r`` of the result is the
    block of seat ``(s + r) % 3``: the observer, then the next seat, then the one before.

    >>> p = seat_permutations()
    >>> o = O_DECLARER
    >>> p[1, o:o + 3].tolist() == [o + 1, o + 2, o]
    True
    """
    perm = np.tile(np.arange(OBS_SIZE, dtype=np.int64), (3, 1))
    for name in _PER_SEAT:
        part = OBS_OFFSETS[name]
        o, b = part.start, (part.stop - part.start) // 3
        for s in range(3):
            for r in range(3):
                src = (s + r) % 3
                perm[s, o + r * b:o + (r + 1) * b] = np.arange(o + src * b, o + (src + 1) * b)
    perm.setflags(write=False)
    return perm


PERM = seat_permutations()


def canonical(obs: np.ndarray) -> np.ndarray:
    """Seat-relative observations ``(k, 574) float32`` of observation tensors ``(k, 574)``
    (each row rotated by its own seat one-hot; see :func:`seat_permutations`)."""
    x = np.ascontiguousarray(obs, dtype=np.float32)
    if x.ndim == 1:
        x = x[None, :]
    out = np.empty_like(x)
    _canon_rows(x, PERM, out)
    return out


@njit(cache=True, parallel=True)
def _canon_rows(x, perm, out) -> None:
    for i in prange(x.shape[0]):
        s = 0
        if x[i, O_SEAT + 1] > 0:
            s = 1
        elif x[i, O_SEAT + 2] > 0:
            s = 2
        p = perm[s]
        for j in range(x.shape[1]):
            out[i, j] = x[i, p[j]]


def phase_of_rows(obs: np.ndarray) -> np.ndarray:
    """Phase index (into :data:`PHASES`; 6 = done) of each observation row."""
    x = np.asarray(obs)
    return np.argmax(x[:, O_PHASE:O_PHASE + 7], axis=1)


def role_of_rows(obs: np.ndarray) -> np.ndarray:
    """Role of the observer per observation row: 0 declarer, 1 the defender after the
    declarer (the declarer's next seat), 2 the defender before him, -1 no declarer yet."""
    x = np.asarray(obs)
    seat = np.argmax(x[:, O_SEAT:O_SEAT + 3], axis=1)
    dec = x[:, O_DECLARER:O_DECLARER + 3]
    has = dec.max(axis=1) > 0
    d = np.argmax(dec, axis=1)
    return np.where(has, (seat - d) % 3, -1)


# ----------------------------------------------------------------------------- the network


class CheckpointError(ValueError):
    """A checkpoint that does not fit this code (format, layout, sizes), or is missing."""


def DMCNet(hidden: Sequence[int] = (512, 256, 256)) -> Any:
    """The Q network: an MLP ``574 -> hidden ... -> 130`` (ReLU) on seat-relative
    observations (:func:`canonical`); outputs Q in Seeger-Fabian points / 100."""
    nn = _torch().nn

    class _Net(nn.Module):  # type: ignore[name-defined]  # torch is imported lazily
        def __init__(self) -> None:
            super().__init__()
            self.body, d = mlp_body(OBS_SIZE, hidden)
            self.head = nn.Linear(d, NUM_ACTIONS)
            self.hidden = tuple(int(k) for k in hidden)

        def forward(self, x: Any) -> Any:
            return self.head(self.body(x))

    return _Net()


def default_model_path() -> Path:
    """The model shipped with the package (``agents/models/dmc_v2``: card play learned from open-hand solver
    labels; ``dmc_v1``, by Monte-Carlo returns, and ``dmc_all_v1``, every phase, ship too)."""
    return MODELS_DIR / "dmc_v2"


def save_checkpoint(net: Any, path: str | Path, *, phases: Sequence[str], **meta: Any) -> tuple[Path, Path]:
    """Write ``<path>.pt`` (the ``state_dict``) and ``<path>.json`` (layout, hidden sizes,
    learned ``phases`` and ``meta``); returns both paths."""
    bad = [p for p in phases if p not in ALL_PHASES]
    if bad or not phases:
        raise ValueError(f"phases must be a non-empty subset of {ALL_PHASES}, got {list(phases)!r}")
    cfg = {"format": FORMAT, "layout_version": LAYOUT_VERSION, "obs_layout": [list(x) for x in OBS_LAYOUT],
           "num_actions": NUM_ACTIONS, "hidden": list(net.hidden), "phases": [x for x in ALL_PHASES if x in phases],
           "q_unit": "seeger_fabian/100"}
    cfg.update(meta)
    return write_checkpoint(net, path, cfg)


def load_net(path: str | Path) -> tuple[Any, dict[str, Any]]:
    """``(net, meta)`` of a checkpoint (torch ``weights_only=True``)."""
    torch = _torch()
    pt, js = checkpoint_files(path)
    if not pt.is_file() or not js.is_file():
        raise CheckpointError(f"no DMC checkpoint at {pt.with_suffix('')} (needs {pt.name} and {js.name})")
    try:
        meta = json.loads(js.read_text())
    except json.JSONDecodeError as e:
        raise CheckpointError(f"{js} is not valid JSON: {e}") from None
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"{js} is not a DMC checkpoint (format {meta.get('format')!r}, expected {FORMAT!r})")
    if meta.get("layout_version") != LAYOUT_VERSION or meta.get("obs_layout") != [list(x) for x in OBS_LAYOUT]:
        raise CheckpointError(f"{js} was made for another observation layout (version {meta.get('layout_version')})")
    if meta.get("num_actions") != NUM_ACTIONS:
        raise CheckpointError(f"{js} has {meta.get('num_actions')} actions, this code {NUM_ACTIONS}")
    net = DMCNet(tuple(meta["hidden"]))
    try:
        net.load_state_dict(torch.load(pt, map_location="cpu", weights_only=True))
    except (RuntimeError, KeyError) as e:
        raise CheckpointError(f"{pt} does not fit the network of {js.name}: {e}") from None
    return net.eval(), meta


@njit(cache=True, parallel=True)
def _q_rows(x, perm, seat, w0, b0, w1, b1, w2, b2, w3, b3, nl, out) -> None:
    """Q rows of a network of up to 3 hidden layers (``nl`` layers in all), each row by the
    same arithmetic whatever the batch; ``x`` raw observations, rotated by ``perm[seat]``."""
    # The layers are written out one by one on purpose (a twin per layer): numba takes no list
    # of weight arrays of different shapes, so the depth is a fixed unroll up to 4 layers.
    for i in prange(x.shape[0]):
        h = np.empty(x.shape[1], np.float32)
        p = perm[seat[i]]
        for j in range(x.shape[1]):
            h[j] = x[i, p[j]]
        a = np.empty(w0.shape[1], np.float32)
        dense_row(h, w0, b0, nl > 1, a)
        if nl == 1:
            out[i] = a
            continue
        c = np.empty(w1.shape[1], np.float32)
        dense_row(a, w1, b1, nl > 2, c)
        if nl == 2:
            out[i] = c
            continue
        d = np.empty(w2.shape[1], np.float32)
        dense_row(c, w2, b2, nl > 3, d)
        if nl == 3:
            out[i] = d
            continue
        e = np.empty(w3.shape[1], np.float32)
        dense_row(d, w3, b3, False, e)
        out[i] = e


class DMCModel:
    """A loaded Q network: torch for training and big batches, compiled rows for the agent."""

    def __init__(self, net: Any, meta: dict[str, Any]) -> None:
        self.net = net.eval()
        self.meta = meta
        self.phases = tuple(meta.get("phases", ()))
        self.refresh()

    def __deepcopy__(self, memo: dict) -> "DMCModel":
        # copies of an agent (a tournament's per-game copies, the agent API test's copy at every
        # decision) share the network: a trainer's refresh() reaches every copy
        return self

    def refresh(self) -> None:
        """Copy the network's current weights into the compiled evaluator."""
        sd = self.net.state_dict()
        ws = [(np.ascontiguousarray(sd[k].detach().cpu().numpy().T.astype(np.float32)),
               np.ascontiguousarray(sd[k.replace("weight", "bias")].detach().cpu().numpy().astype(np.float32)))
              for k in sd if k.endswith("weight")]
        if not 1 <= len(ws) <= 4:
            raise CheckpointError(f"the compiled evaluator takes 0..3 hidden layers, got {len(ws) - 1}")
        self._nl = len(ws)
        dummy = (np.zeros((1, 1), np.float32), np.zeros(1, np.float32))
        self._w = ws + [dummy] * (4 - len(ws))

    def q_rows(self, obs: np.ndarray) -> np.ndarray:
        """``Q (k, 130) float32`` of raw observation tensors ``(k, 574)``, row by row (compiled)."""
        x = np.ascontiguousarray(obs, dtype=np.float32)
        if x.ndim == 1:
            x = x[None, :]
        seat = np.argmax(x[:, O_SEAT:O_SEAT + 3], axis=1).astype(np.int64)
        out = np.empty((x.shape[0], NUM_ACTIONS), np.float32)
        (w0, b0), (w1, b1), (w2, b2), (w3, b3) = self._w
        _q_rows(x, PERM, seat, w0, b0, w1, b1, w2, b2, w3, b3, self._nl, out)
        return out

    def q_torch(self, obs: np.ndarray) -> np.ndarray:
        """The same Q through torch (batched; BLAS results may differ in the last bits)."""
        torch = _torch()
        with torch.inference_mode():
            return self.net(torch.from_numpy(canonical(obs))).numpy()


_MODELS: dict[str, DMCModel] = {}


def load_model(path: str | Path | None = None) -> DMCModel:
    """The model at ``path`` (stem, ``.pt`` or ``.json``; default the shipped one), cached."""
    pt, _ = checkpoint_files(path if path else default_model_path())
    p = pt.with_suffix("")
    key = f"{p.resolve()}@{pt.stat().st_mtime_ns if pt.is_file() else 0}"  # a rewritten file is reloaded
    if key not in _MODELS:
        net, meta = load_net(p)
        _MODELS[key] = DMCModel(net, meta)
    return _MODELS[key]


def greedy(q: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The legal action of highest Q per row (the lowest id among equals)."""
    return np.argmax(np.where(legal, q, -np.inf), axis=1)


# ----------------------------------------------------------------------------- training helper


def rule_based_actions(env: Any, phases: Sequence[str], policy: Any = "rule_based",
                       out: np.ndarray | None = None) -> np.ndarray:
    """The rule-based player's action in every game of a :class:`skatsim.vec.VecEnv` whose
    mover is in one of ``phases`` (-1 elsewhere), from the mover's masked view and seat
    stream (as ``simulate`` plays it: the stream is advanced in the environment), in one
    compiled call (:meth:`skatsim.vec.VecEnv.policy_actions`). ``policy``: the rule-based
    entry (``("rule_based", {...})`` for other parameters)."""
    return env.policy_actions(policy, phases, out)


# ----------------------------------------------------------------------------- the agent

_EARLY = ("auto", "model", "rule_based", "neural_bidder")
_PLAY_INDEX = PHASES.index("play")
_PLAY = ("model", "rule_based", "pimc")


class DMCAgent:
    """The DMC player (see the module docstring).

    Args:
        model: checkpoint path (stem, ``.pt`` or ``.json``) or a :class:`DMCModel`; ``""``
            / ``None``: the shipped ``agents/models/dmc_v2``.
        early: who takes the decisions before the card play (bidding, skat, discard,
            declaration) and Kontra/Re: ``"auto"`` (the model where it learned the phase,
            else the rule-based player), ``"model"``, ``"rule_based"`` or ``"neural_bidder"``.
        declarer_play: card play as declarer: ``"model"``, ``"rule_based"`` or ``"pimc"``.
        defender_play: card play as defender (and in Ramsch): the same choices.
        pimc_worlds: worlds per card decision of a PIMC delegate.
        trust: ``>= 0``: a card the model chooses is played only if its Q exceeds that of the
            rule-based player's card by more than ``trust`` Seeger-Fabian points, else the
            rule-based card (a guard against the noise of the Q estimates; ``-1``: off).
    """

    name = "dmc"

    def __init__(self, model: Any = None, early: str = "auto", declarer_play: str = "model",
                 defender_play: str = "model", pimc_worlds: int = 32, trust: float = -1.0) -> None:
        if early not in _EARLY:
            raise ValueError(f"early must be one of {_EARLY}, got {early!r}")
        for k, v in (("declarer_play", declarer_play), ("defender_play", defender_play)):
            if v not in _PLAY:
                raise ValueError(f"{k} must be one of {_PLAY}, got {v!r}")
        self.model = model if isinstance(model, DMCModel) else load_model(model or None)
        learned = set(self.model.phases)
        if "play" not in learned and "model" in (declarer_play, defender_play):
            raise ValueError("this model did not learn the card play; give declarer_play and defender_play")
        # who decides per phase index (PHASES order) for declarer (0) / defenders (1)
        who = []
        for ph in PHASES[:5]:
            w = early
            if early == "auto":
                w = "model" if ph in learned else "rule_based"
            elif early == "model" and ph not in learned and ph != "kontra":
                raise ValueError(f"early='model' but this model did not learn the {ph} phase "
                                 f"(it learned {sorted(learned)})")
            if w == "model" and ph not in learned:
                w = "rule_based"  # Kontra/Re of a model trained without it
            who.append((w, w))
        who.append((declarer_play, defender_play))
        self._who = who
        self.trust = float(trust)
        self._delegates: dict[str, Any] = {}
        names = {x for pair in who for x in pair} - {"model"}
        if self.trust >= 0:
            names.add("rule_based")
        for name in names:
            if name == "rule_based":
                from .rule_based import RuleBasedAgent

                self._delegates[name] = RuleBasedAgent()
            elif name == "neural_bidder":
                from .neural_bidding import NeuralBidderAgent

                self._delegates[name] = NeuralBidderAgent()
            else:
                from .pimc import PIMCAgent

                self._delegates[name] = PIMCAgent(worlds=int(pimc_worlds))
        self._model_table = np.array([[w[0] == "model", w[1] == "model"] for w in who] + [[False, False]],
                                     dtype=np.bool_)

    # ------------------------------------------------------------------ protocol
    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        for d in self._delegates.values():
            d.reset(deal_id, seat, rng)

    def observe(self, seat: int, action: int) -> None:
        for d in self._delegates.values():
            f = getattr(d, "observe", None)
            if f is not None:
                f(seat, action)

    def _by_model(self, obs: np.ndarray) -> np.ndarray:
        ph = phase_of_rows(obs)
        role = role_of_rows(obs)
        return self._model_table[ph, (role > 0).astype(np.int64) | (role < 0)]

    def act(self, obs: "Observation") -> int:
        x = np.asarray(obs.tensor, dtype=np.float32)[None, :]
        if self._by_model(x)[0]:
            legal = np.zeros((1, NUM_ACTIONS), np.bool_)
            legal[0, list(obs.legal_actions)] = True
            q = self.model.q_rows(x)
            a = int(greedy(q, legal)[0])
            if self.trust >= 0 and phase_of_rows(x)[0] == _PLAY_INDEX:
                b = int(self._delegates["rule_based"].act(obs))
                if b != a and q[0, a] - q[0, b] <= self.trust / 100.0:
                    return b
            return a
        ph = PHASES[int(phase_of_rows(x)[0])]
        role = int(role_of_rows(x)[0])
        name = self._who[PHASES.index(ph)][0 if role == 0 else 1]
        return int(self._delegates[name].act(obs))

    def act_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> np.ndarray:
        """The model's decisions for a batch of observation tensors and legal masks (the
        same as :meth:`act`), ``-1`` for those of a delegate (asked through :meth:`act`)."""
        x = np.asarray(observations, dtype=np.float32)
        out = np.full(len(x), -1, dtype=np.int64)
        m = self._by_model(x)
        if self.trust >= 0:  # the rule-based card needs the typed observation: act() decides
            m &= phase_of_rows(x) != _PLAY_INDEX
        if m.any():
            idx = np.flatnonzero(m)
            out[idx] = greedy(self.model.q_rows(x[idx]), np.asarray(legal_masks, dtype=np.bool_)[idx])
        return out
