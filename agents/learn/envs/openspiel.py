"""skatsim's exact ISkO Skat as an OpenSpiel game (``pip install "skatsim[crosscheck]"``:
``open-spiel``).

Importing this module registers the game ``"skatsim"`` with ``pyspiel.register_game``, so
OpenSpiel's algorithms, evaluation and bots run on it unchanged (its built-in ``skat`` is a
simplified game: no numeric auction, no skat exchange)::

    import pyspiel
    import agents.learn.envs.openspiel  # noqa: F401  (registers "skatsim")
    game = pyspiel.load_game("skatsim")                         # ISkO, zero-sum returns
    game = pyspiel.load_game("skatsim(returns=sf,kontra=true)")  # Seeger-Fabian, Kontra/Re

- **Chance**: the deal is 32 chance nodes, one card each in dealing order (3 to each seat,
  2 to the skat, 4 each, 3 each: :data:`skatsim.deal.DEAL_TARGETS`), uniform over the cards
  still in the pack; the chance outcome is the card id.
- **Players** 0, 1, 2 are forehand, middlehand, rearhand; the actions are skatsim's 130
  (:mod:`skatsim.actions`: cards 0..31, bids, pass, yes, pickup, hand, declarations, Kontra,
  Re); the rules are :class:`skatsim.SkatState`'s, move by move.
- **Returns** (parameter ``returns``): ``zero_sum`` (default: the declarer's list score,
  each defender minus half of it, as OpenSpiel's ``skat``), ``sf`` (Seeger-Fabian points,
  general-sum) or ``list`` (:meth:`skatsim.SkatState.returns`); ``ramsch`` and ``kontra``
  switch on the rules options.
- **Observation** (``observation_string`` / ``observation_tensor``): skatsim's observation
  of the seat, the 574 floats of :data:`skatsim.observation.OBS_LAYOUT` (during the deal:
  the seat and the cards it has been dealt so far).
- **Information state** (perfect recall, ``information_state_string`` / ``_tensor``): the
  seat, its dealt hand, the skat if it picked it up, the hand an ouvert declarer showed, and
  every action so far in order, the others' discards hidden. The tensor is
  ``3 + 32 + 32 + 32 + 168 x 131`` floats (:data:`INFO_STATE_SIZE`; 131: the action, or
  "hidden").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from skatsim.actions import NUM_ACTIONS, PICKUP, action_to_string
from skatsim.cards import CardSet, card_name
from skatsim.deal import DEAL_TARGETS, deal_from_order
from skatsim.kernels.simulate import MAX_ACTIONS
from skatsim.observation import OBS_OFFSETS, OBS_SIZE
from skatsim.options import SkatRules
from skatsim.state import RETURN_KINDS, SkatState

__all__ = ["GAME_NAME", "SkatsimGame", "SkatsimState", "INFO_STATE_SIZE"]

GAME_NAME = "skatsim"
_PARAMS = {"returns": "zero_sum", "ramsch": False, "kontra": False}
#: The perfect-recall tensor: seat, dealt hand, skat seen, ouvert hand, the action history.
INFO_STATE_SIZE = 3 + 32 + 32 + 32 + MAX_ACTIONS * (NUM_ACTIONS + 1)
_HIDDEN = NUM_ACTIONS  # the history column of an action the seat did not see
#: The largest list score: grand ouvert with four matadors, schneider and schwarz (24 x 11).
_MAX_VALUE = 264


def _game_type(utility: Any = pyspiel.GameType.Utility.ZERO_SUM) -> Any:
    return pyspiel.GameType(
        short_name=GAME_NAME, long_name="Skat (ISkO, skatsim)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility, reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=3, min_num_players=3,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=_PARAMS)


_GAME_TYPE = _game_type()


class SkatsimGame(pyspiel.Game):
    """The game (see the module docstring); made by ``pyspiel.load_game("skatsim(...)")``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_PARAMS, **(params or {})}
        if p["returns"] not in RETURN_KINDS:
            raise ValueError(f"returns must be one of {RETURN_KINDS}, got {p['returns']!r}")
        self.rules = SkatRules(ramsch=bool(p["ramsch"]), kontra=bool(p["kontra"]))
        self.returns_kind = str(p["returns"])
        value = _MAX_VALUE * (4 if self.rules.kontra else 1)
        zero_sum = self.returns_kind == "zero_sum"
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=32, num_players=3,
            min_utility=float(-2 * value - (0 if zero_sum else 50)), max_utility=float(value + 50),
            utility_sum=0.0 if zero_sum else None, max_game_length=MAX_ACTIONS)
        kind = _game_type(pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM)
        super().__init__(kind, info, p)

    def new_initial_state(self) -> "SkatsimState":
        return SkatsimState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> "SkatsimObserver":
        return SkatsimObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class SkatsimState(pyspiel.State):
    """A deal in progress, then a :class:`skatsim.SkatState` (:attr:`skat`)."""

    def __init__(self, game: SkatsimGame) -> None:
        super().__init__(game)
        self._rules, self._kind = game.rules, game.returns_kind
        self.dealt: list[int] = []  # the cards in dealing order, while dealing
        self.skat: SkatState | None = None

    # -- the OpenSpiel API
    def current_player(self) -> int:
        if self.skat is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.skat.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return self.skat.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        assert self.skat is not None
        return list(self.skat.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = sorted(set(range(32)) - set(self.dealt))
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        if self.skat is None:
            self.dealt.append(int(action))
            if len(self.dealt) == 32:
                self.skat = SkatState.new_game(deal=deal_from_order(self.dealt), rules=self._rules)
        else:
            self.skat.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_name(action)}"
        return action_to_string(action)

    def is_terminal(self) -> bool:
        return self.skat is not None and self.skat.is_terminal()

    def returns(self) -> list[float]:
        return [0.0, 0.0, 0.0] if self.skat is None else self.skat.returns(self._kind)

    def __str__(self) -> str:
        if self.skat is None:
            return "dealing: " + " ".join(card_name(c) for c in self.dealt)
        return str(self.skat)

    # -- what a seat has seen
    def dealt_hand(self, seat: int) -> int:
        """The mask of the cards dealt to ``seat`` so far."""
        return sum(1 << c for i, c in enumerate(self.dealt) if DEAL_TARGETS[i] == seat)


class SkatsimObserver:
    """OpenSpiel's Python observer: ``tensor``, named views ``dict``, ``set_from`` and
    ``string_from``; perfect recall gives the information state, else the observation."""

    def __init__(self, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("skatsim's observer gives one seat's view (public and its private information)")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        if self.perfect_recall:
            pieces = [("seat", 3, (3,)), ("hand", 32, (32,)), ("skat", 32, (32,)), ("ouvert_hand", 32, (32,)),
                      ("history", MAX_ACTIONS * (NUM_ACTIONS + 1), (MAX_ACTIONS, NUM_ACTIONS + 1))]
            self.tensor = np.zeros(INFO_STATE_SIZE, np.float32)
            self.dict, pos = {}, 0
            for name, size, shape in pieces:
                self.dict[name] = self.tensor[pos:pos + size].reshape(shape)
                pos += size
        else:
            self.tensor = np.zeros(OBS_SIZE, np.float32)
            self.dict = {name: self.tensor[sl] for name, sl in OBS_OFFSETS.items()}

    # the information state: what the seat saw, in order
    @staticmethod
    def _events(state: SkatsimState, seat: int) -> tuple[int, int, int, list[tuple[int, int | None]]]:
        """(dealt hand, skat seen, ouvert hand shown, [(actor, action or None if hidden)])."""
        s = state.skat
        if s is None:
            return state.dealt_hand(seat), 0, 0, []
        seen = 0
        moves: list[tuple[int, int | None]] = []
        for p, a, ph in s.phase_history():
            moves.append((p, a if ph != "discard" or p == seat else None))
            if a == PICKUP and p == seat:
                seen = s.deal.skat.mask
        c, d, shown = s.contract, s.declarer, 0
        if c is not None and c.ouvert and d is not None:  # the hand he showed when he declared
            shown = s.deal.hands[d].mask | (s.deal.skat.mask if s.skat_picked_up else 0)
            shown &= ~sum(1 << a for _, a, ph in s.phase_history() if ph == "discard")
        return s.deal.hands[seat].mask, seen, shown, moves

    def set_from(self, state: SkatsimState, player: int) -> None:
        self.tensor.fill(0.0)
        if not self.perfect_recall:
            if state.skat is not None:
                self.tensor[:] = state.skat.observation_tensor(player)
            else:
                self.dict["seat"][player] = 1.0
                self.dict["hand"][CardSet.from_mask(state.dealt_hand(player)).ids()] = 1.0
            return
        hand, seen, shown, moves = self._events(state, player)
        self.dict["seat"][player] = 1.0
        for name, mask in (("hand", hand), ("skat", seen), ("ouvert_hand", shown)):
            self.dict[name][CardSet.from_mask(mask).ids()] = 1.0
        for i, (_, a) in enumerate(moves):
            self.dict["history"][i, _HIDDEN if a is None else a] = 1.0

    def string_from(self, state: SkatsimState, player: int) -> str:
        if not self.perfect_recall:
            if state.skat is not None:
                return state.skat.observation_string(player)
            return f"seat {player} | dealing | hand {CardSet.from_mask(state.dealt_hand(player))}"
        hand, seen, shown, moves = self._events(state, player)
        parts = [f"seat {player}", f"hand {CardSet.from_mask(hand).to_text()}"]
        if seen:
            parts.append(f"skat {CardSet.from_mask(seen).to_text()}")
        if shown:
            parts.append(f"ouvert {CardSet.from_mask(shown).to_text()}")
        parts.append(" ".join(f"{p}:{'?' if a is None else action_to_string(a)}" for p, a in moves))
        return " | ".join(parts)


pyspiel.register_game(_GAME_TYPE, SkatsimGame)
