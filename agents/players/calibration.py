"""Calibration of win probabilities to the card player that will play the game.

An evaluation made under one card player (rule-based play-outs, open-hand solves) says
``p``; the card player that actually plays the contract wins it with another probability.
A calibration maps one to the other per class of game, as a logistic line in the logit:
``p' = logistic(a + b logit(p))``, with ``(a, b)`` for suit games, grand and null. It is fitted
on games that card player played (:func:`fit_calibration`), and written as text in agent
specs: ``"a0,b0;a1,b1;a2,b2"`` (``"none"``: the identity).

>>> cal = parse_calibration("(0.5,1;0,1;0,1)")
>>> round(calibrated(0.5, 0, cal), 3), calibrated(0.5, 4, cal)
(0.622, 0.5)
>>> calibrated(0.9, 0, None)
0.9
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from skatsim.rules import GRAND

__all__ = ["parse_calibration", "checked_calibration", "calibrated", "calibrated_array", "game_class",
           "fit_calibration", "format_calibration", "Calibration"]

Calibration = tuple[tuple[float, float], tuple[float, float], tuple[float, float]]
_EPS = 1e-3


def game_class(game: int) -> int:
    """0 suit games, 1 grand, 2 null."""
    return 0 if game < GRAND else (1 if game == GRAND else 2)


def parse_calibration(text: str | None) -> Calibration | None:
    """``None`` for ``"none"``/empty, else the three ``(a, b)`` pairs (``ValueError`` naming the form)."""
    t = _body(text)
    if t in ("", "none"):
        return None
    try:
        parts = [tuple(float(x) for x in p.split(",")) for p in t.split(";")]
    except ValueError:
        parts = []
    if len(parts) != 3 or any(len(p) != 2 or not all(np.isfinite(p)) for p in parts):
        raise ValueError(f"a calibration is 'none' or three 'a,b' pairs '(a0,b0;a1,b1;a2,b2)' (suit, grand, null), "
                         f"got {text!r}")
    return ((parts[0][0], parts[0][1]), (parts[1][0], parts[1][1]), (parts[2][0], parts[2][1]))


def _body(text: str | None) -> str:
    t = "" if text is None else str(text).strip()
    return t[1:-1] if t.startswith("(") and t.endswith(")") else t


def checked_calibration(text: str | None) -> str:
    """``text`` checked by :func:`parse_calibration` and given back as written, in the
    parenthesised form (``"none"`` for none): no digit is lost, unlike :func:`format_calibration`.

    >>> checked_calibration("0.33612345,1;0,1;0,1.5"), checked_calibration(None)
    ('(0.33612345,1;0,1;0,1.5)', 'none')
    """
    return "none" if parse_calibration(text) is None else f"({_body(text)})"


def format_calibration(cal: Calibration | None) -> str:
    """The text form of a calibration."""
    return "none" if cal is None else "(" + ";".join(f"{a:.4g},{b:.4g}" for a, b in cal) + ")"


def calibrated_array(p: np.ndarray, games: Sequence[int] | np.ndarray, cal: Calibration | None) -> np.ndarray:
    """:func:`calibrated` of probabilities ``p`` whose games are ``games`` (broadcast)."""
    p = np.asarray(p, np.float64)
    if cal is None:
        return p
    g = np.broadcast_to(np.asarray(games), p.shape)
    a = np.choose(np.vectorize(game_class)(g), [cal[0][0], cal[1][0], cal[2][0]])
    b = np.choose(np.vectorize(game_class)(g), [cal[0][1], cal[1][1], cal[2][1]])
    x = np.clip(p, _EPS, 1 - _EPS)
    return 1.0 / (1.0 + np.exp(-(a + b * np.log(x / (1 - x)))))


def calibrated(p: float, game: int, cal: Calibration | None) -> float:
    """``p`` of a ``game`` mapped through the calibration (the identity for ``None``)."""
    if cal is None:
        return float(p)
    a, b = cal[game_class(game)]
    x = min(max(float(p), _EPS), 1 - _EPS)
    return float(1.0 / (1.0 + np.exp(-(a + b * np.log(x / (1 - x))))))


def fit_calibration(p: np.ndarray, games: np.ndarray, won: np.ndarray, min_games: int = 30) -> Calibration:
    """Fit ``(a, b)`` per class by logistic regression of ``won`` on ``logit(p)`` (Newton's
    method, a weak prior towards the identity); a class with fewer than ``min_games`` games
    keeps the identity.

    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 4000)
    >>> won = rng.uniform(size=4000) < 1 / (1 + np.exp(-(1.0 + np.log(p / (1 - p)))))
    >>> (a, b), _, _ = fit_calibration(p, np.zeros(4000, int), won)
    >>> round(a, 1), round(b, 1)
    (1.0, 1.0)
    """
    p = np.clip(np.asarray(p, np.float64), _EPS, 1 - _EPS)
    cls = np.vectorize(game_class)(np.asarray(games))
    won = np.asarray(won, np.float64)
    out = []
    for c in range(3):
        m = cls == c
        if m.sum() < min_games:
            out.append((0.0, 1.0))
            continue
        x = np.log(p[m] / (1 - p[m]))
        X = np.stack([np.ones_like(x), x], axis=1)
        w = np.array([0.0, 1.0])
        prior = np.diag([1e-2, 1e-2])
        for _ in range(50):
            z = X @ w
            q = 1 / (1 + np.exp(-z))
            g = X.T @ (won[m] - q) - prior @ (w - [0.0, 1.0])
            H = -(X.T * (q * (1 - q))) @ X - prior
            step = np.linalg.solve(H, g)
            w = w - step
            if np.abs(step).max() < 1e-8:
                break
        out.append((float(w[0]), float(w[1])))
    return (out[0], out[1], out[2])

