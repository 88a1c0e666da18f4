"""The rules object: ISkO by default, house variants as options (ISKO.md §16).

>>> SkatRules()
SkatRules(ramsch=False, kontra=False)
>>> SkatRules(ramsch=True).version
'isko-1999+ramsch/skatsim-1'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

__all__ = ["SkatRules", "RULES_VERSION", "ISKO"]

#: Bumped whenever the engine's rule behaviour changes; stored in every result and record.
RULES_VERSION = "isko-1999/skatsim-1"

OPT_RAMSCH = 1
OPT_KONTRA = 2
_OPTION_NAMES = ("ramsch", "kontra")


@dataclass(frozen=True)
class SkatRules:
    """Rule options. The default is the International Skat Order (ISkO).

    Attributes:
        ramsch: when all three pass, play Ramsch instead of a passed-in game (house
            rule: jacks are the only trumps, everyone plays alone, the skat goes to the
            winner of the last trick, the player(s) with the most card points score minus
            those points).
        kontra: after the declaration the defenders (in seat order) may say Kontra, which
            doubles the list score; the declarer may answer Re, doubling it again.
    """

    ramsch: bool = False
    kontra: bool = False

    def __post_init__(self) -> None:
        for name in _OPTION_NAMES:
            value = getattr(self, name)
            if isinstance(value, np.bool_):  # numpy's bool is a bool; store the Python one
                object.__setattr__(self, name, bool(value))
            elif not isinstance(value, bool):
                raise TypeError(f"rule option {name!r} must be True or False, got "
                                f"{type(value).__name__} {value!r}")

    @property
    def flags(self) -> int:
        """Bit set for the kernels: 1 Ramsch, 2 Kontra/Re."""
        return (OPT_RAMSCH if self.ramsch else 0) | (OPT_KONTRA if self.kontra else 0)

    @classmethod
    def from_flags(cls, flags: int) -> "SkatRules":
        """Inverse of :attr:`flags`.

        >>> SkatRules.from_flags(3)
        SkatRules(ramsch=True, kontra=True)
        """
        return cls(ramsch=bool(flags & OPT_RAMSCH), kontra=bool(flags & OPT_KONTRA))

    @property
    def version(self) -> str:
        """Rules version string: the engine version plus the variants in force."""
        base, engine = RULES_VERSION.split("/")
        extra = "".join(f"+{n}" for n, on in (("ramsch", self.ramsch), ("kontra", self.kontra)) if on)
        return f"{base}{extra}/{engine}"

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-ready dict (stored in results, records and ``df.attrs``).

        >>> SkatRules(kontra=True).to_dict()
        {'ramsch': False, 'kontra': True}
        """
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "SkatRules":
        """Inverse of :meth:`to_dict`; missing options take their default, unknown names
        and values that are not booleans are refused.

        >>> SkatRules.from_dict({"ramsch": True})
        SkatRules(ramsch=True, kontra=False)
        >>> SkatRules.from_dict({"ramsch": "false"})
        Traceback (most recent call last):
        ...
        TypeError: rule option 'ramsch' must be True or False, got str 'false'
        """
        if not isinstance(d, dict):
            raise TypeError(f"rules must be a dict of options, got {type(d).__name__} {d!r}")
        unknown = set(d) - set(_OPTION_NAMES)
        if unknown:
            raise ValueError(f"unknown rule options {sorted(map(str, unknown))}; known: {', '.join(_OPTION_NAMES)}")
        return cls(**d)


ISKO = SkatRules()
