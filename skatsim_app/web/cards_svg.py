"""Our own card drawings as SVG: German suits (Prague pattern's spirit) and French suits,
in two colours and in four.

Every card is drawn here from plain shapes (no fetched art): the suit symbols (acorn,
leaf, heart, bell for the German deck; club, spade, heart, diamond for the French one),
pip layouts for 7 to 10, the two-pip Daus of the German deck, and a full-length figure for
Unter/Ober/König (jack/queen/king) in the single-figure style of the Bohemian cards. The
corner index is large (a third of the card's width: the rank letter in its suit's colour,
the suit sign below it), so a fanned card is read by its corner at hand size
(:data:`SUIT_COLOURS`; the four-colour deck ``french4`` is the Skat tournament deck's). The
files in ``static/cards/`` are the output of :func:`write_cards`; a test checks that they
are up to date (``python -m skatsim_app.web.cards_svg`` rewrites them).

>>> svg = card_svg("CJ", "german")
>>> svg.startswith("<svg") and ">U<" in svg and "acorn" in svg
True
>>> len(all_cards()), ("", "back") in all_cards()      # 3 decks x 32 cards and the back
(97, True)
"""

from __future__ import annotations

import os
from pathlib import Path

from skatsim.cards import ACE, JACK, KING, QUEEN, card_name, card_rank, card_suit

from .names import DECKS, RANK_INDEX

__all__ = ["W", "H", "card_svg", "back_svg", "all_cards", "write_cards", "CARDS_DIR", "SUIT_COLOURS"]

#: Card size in SVG units (the 2:3 shape of a Skat card).
W, H = 240, 360
#: Where the drawings ship (``skatsim_app/web/static/cards``).
CARDS_DIR = Path(__file__).parent / "static" / "cards"

_INK = "#2b2118"
# ----------------------------------------------------------------------------- suit symbols
# Each symbol is drawn in a box of about -50..50 around (0, 0).


def _heart(flat: bool) -> str:
    body = ('<path d="M0,40 C-30,16 -48,-2 -48,-20 C-48,-37 -36,-46 -24,-46 C-12,-46 -4,-38 0,-28 '
            'C4,-38 12,-46 24,-46 C36,-46 48,-37 48,-20 C48,-2 30,16 0,40 Z" fill="#d3202e" '
            f'stroke="{"#8a0f18" if not flat else "#a3141f"}" stroke-width="3"/>')
    if flat:
        return f'<g class="heart">{body}</g>'
    shine = '<path d="M-30,-30 C-26,-38 -16,-40 -10,-34" fill="none" stroke="#ffb3b8" stroke-width="5" ' \
            'stroke-linecap="round"/>'
    return f'<g class="heart">{body}{shine}</g>'


def _bezier(p: tuple[tuple[float, float], ...], t: float) -> tuple[float, float]:
    a, b, c, d = p
    u = 1 - t
    return (u ** 3 * a[0] + 3 * u * u * t * b[0] + 3 * u * t * t * c[0] + t ** 3 * d[0],
            u ** 3 * a[1] + 3 * u * u * t * b[1] + 3 * u * t * t * c[1] + t ** 3 * d[1])


def _serrated_leaf(teeth: int = 18, depth: float = 3.5) -> str:
    """The outline of the Grün leaf: a heart-shaped leaf pointed at the top whose edge is
    cut into small teeth (what tells it from a French spade at a glance)."""
    import math

    half = (((0, -48), (16, -32), (46, -14), (46, 8)), ((46, 8), (46, 28), (26, 36), (6, 26)))
    line = [_bezier(seg, k / 40) for seg in half for k in range(40)] + [half[-1][3]]
    length = [0.0]
    for a, b in zip(line, line[1:]):
        length.append(length[-1] + math.dist(a, b))
    pts, j, n = [], 0, 2 * teeth
    for k in range(n + 1):
        target = length[-1] * k / n
        while j < len(line) - 2 and length[j + 1] < target:
            j += 1
        (x0, y0), (x1, y1) = line[j], line[j + 1]
        t = (target - length[j]) / max(length[j + 1] - length[j], 1e-9)
        dx, dy = x1 - x0, y1 - y0
        norm = math.hypot(dx, dy) or 1.0
        off = depth if k % 2 == 1 and 1 < k < n - 1 else 0.0
        pts.append((x0 + t * dx + dy / norm * off, y0 + t * dy - dx / norm * off))
    right = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
    left = " ".join(f"{-x:.1f},{y:.1f}" for x, y in reversed(pts))
    return f"M{right} L{left} Z"


_LEAF_PATH = _serrated_leaf()


def _leaf() -> str:
    # Grün (Laub): a toothed leaf pointed at the top, a curved stem below, veins drawn in.
    stem = '<path d="M0,22 C2,34 6,42 14,49" fill="none" stroke="#134d1d" stroke-width="6" stroke-linecap="round"/>'
    leaf = (f'<path d="{_LEAF_PATH}" fill="#3a9a44" stroke="#134d1d" stroke-width="2.5" '
            'stroke-linejoin="round"/>')
    veins = ('<path d="M0,-40 L0,24 M0,-20 L-17,-8 M0,-20 L17,-8 M0,-3 L-27,8 M0,-3 L27,8 M0,12 L-20,22 '
             'M0,12 L20,22" fill="none" stroke="#b6e6ad" stroke-width="2.4" stroke-linecap="round"/>')
    return f'<g class="leaf">{stem}{leaf}{veins}</g>'


def _acorn() -> str:
    # Eichel: the nut below, the scaly cap above, a short stem on top.
    stem = '<path d="M0,-26 C0,-36 4,-42 10,-48" fill="none" stroke="#4a3012" stroke-width="6" stroke-linecap="round"/>'
    nut = ('<path d="M-22,-4 C-24,22 -12,44 0,48 C12,44 24,22 22,-4 Z" fill="#d9a53f" stroke="#6b4515" '
           'stroke-width="3"/>')
    shine = '<path d="M-12,6 C-13,20 -8,32 -3,38" fill="none" stroke="#f6dc95" stroke-width="4" stroke-linecap="round"/>'
    cap = ('<path d="M-30,-2 C-32,-22 -16,-30 0,-30 C16,-30 32,-22 30,-2 C20,4 -20,4 -30,-2 Z" fill="#6e4a1c" '
           'stroke="#3b240a" stroke-width="3"/>')
    scales = ('<path d="M-22,-16 L-14,-6 M-10,-24 L0,-6 M4,-26 L14,-6 M18,-20 L24,-8 M-24,-8 L-16,-22 '
              'M-8,-6 L4,-26 M8,-6 L18,-22" fill="none" stroke="#a57a3c" stroke-width="2"/>')
    return f'<g class="acorn">{stem}{nut}{shine}{cap}{scales}</g>'


def _bell() -> str:
    # Schellen: a round golden hawk bell with a red band, a loop on top and a slit below.
    loop = '<circle cx="0" cy="-36" r="8" fill="none" stroke="#7a5400" stroke-width="4"/>'
    body = '<circle cx="0" cy="4" r="34" fill="#f1c232" stroke="#7a5400" stroke-width="3"/>'
    band = ('<path d="M-33,-6 C-12,-12 12,-12 33,-6 L34,6 C12,0 -12,0 -34,6 Z" fill="#c8202b" '
            'stroke="#7a1016" stroke-width="1.5"/>')
    slit = ('<path d="M-16,22 L16,22" stroke="#5a3c00" stroke-width="4" stroke-linecap="round"/>'
            '<circle cx="-17" cy="22" r="4" fill="#5a3c00"/><circle cx="17" cy="22" r="4" fill="#5a3c00"/>'
            '<path d="M0,22 L0,36" stroke="#5a3c00" stroke-width="3"/>')
    shine = '<path d="M-20,-18 C-14,-26 -4,-28 4,-26" fill="none" stroke="#fff2b8" stroke-width="4" stroke-linecap="round"/>'
    return f'<g class="bell">{loop}{body}{band}{slit}{shine}</g>'


def _club(fill: str) -> str:
    return (f'<g class="club" fill="{fill}"><circle cx="0" cy="-22" r="19"/><circle cx="-22" cy="8" r="19"/>'
            '<circle cx="22" cy="8" r="19"/><path d="M-5,0 L5,0 L12,46 L-12,46 Z"/></g>')


def _spade(fill: str) -> str:
    return (f'<g class="spade" fill="{fill}"><path d="M0,-48 C-20,-22 -46,-8 -46,14 C-46,30 -34,38 -22,38 '
            'C-12,38 -5,32 -3,26 L-10,46 L10,46 L3,26 C5,32 12,38 22,38 C34,38 46,30 46,14 C46,-8 20,-22 0,-48 Z"/></g>')


def _diamond(fill: str) -> str:
    return (f'<g class="diamond"><path d="M0,-48 L36,0 L0,48 L-36,0 Z" fill="{fill}" stroke="{_darker(fill)}" '
            'stroke-width="2"/></g>')


def _darker(colour: str) -> str:
    r, g, b = (int(colour[k:k + 2], 16) for k in (1, 3, 5))
    return "#{:02x}{:02x}{:02x}".format(*(int(v * 0.7) for v in (r, g, b)))


#: The colour of each suit (D H S C) per deck style: its pips and its corner index. The
#: four-colour deck follows the Skat tournament deck (and online Skat): clubs black, spades
#: green, hearts red, diamonds orange, the colours of the German suits it stands for.
SUIT_COLOURS = {
    "german": ("#c77700", "#c0172a", "#1f7a2e", "#5a3a12"),
    "french": ("#d3202e", "#d3202e", "#161616", "#161616"),
    "french4": ("#e07b00", "#d3202e", "#178a3a", "#161616"),
}


def _symbol(deck: str, suit: int) -> str:
    if deck == "german":
        return (_bell, lambda: _heart(False), _leaf, _acorn)[suit]()
    fill = SUIT_COLOURS[deck][suit]
    if suit == 1:
        return _heart(True).replace('fill="#d3202e"', f'fill="{fill}"')
    return (_diamond, None, _spade, _club)[suit](fill)  # type: ignore[misc]


def _place(sym: str, x: float, y: float, scale: float, rotate: bool = False) -> str:
    rot = " rotate(180)" if rotate else ""
    return f'<g transform="translate({x:g},{y:g}) scale({scale:g}){rot}">{sym}</g>'


# ----------------------------------------------------------------------------- layouts
# pips keep clear of the corner indices (x < 64 top left, x > 176 bottom right)
_L, _C, _R = 86, 120, 154
_ROWS4 = (84, 148, 212, 276)
_PIPS = {
    0: [(_L, 84), (_R, 84), (_C, 132), (_L, 180), (_R, 180), (_L, 276), (_R, 276)],            # 7
    1: [(_L, 84), (_R, 84), (_C, 132), (_L, 180), (_R, 180), (_C, 228), (_L, 276), (_R, 276)],  # 8
    2: [(x, y) for y in _ROWS4 for x in (_L, _R)] + [(_C, 180)],                                # 9
    5: [(x, y) for y in _ROWS4 for x in (_L, _R)] + [(_C, 116), (_C, 244)],                     # 10
}

# Colours of the figures' clothes per suit (D H S C) and deck.
_DRESS = {
    "german": ("#c8841c", "#b3202c", "#2f7a3a", "#2f5d8c"),
    "french": ("#b3202c", "#b3202c", "#2f4d7a", "#2f4d7a"),
    "french4": ("#e07b00", "#b3202c", "#2f7a3a", "#2f4d7a"),
}
_TRIM = {
    "german": ("#2f5d8c", "#f1c232", "#b3202c", "#f1c232"),
    "french": ("#f1c232", "#2f4d7a", "#f1c232", "#b3202c"),
    "french4": ("#2f4d7a", "#2f4d7a", "#f1c232", "#b3202c"),
}


def _index(deck: str, suit: int, rank: int) -> str:
    """The two corner indices, large enough to read on a fanned card at hand size: the rank
    (U O K D / J Q K A or the number) in the suit's colour and the suit sign below it."""
    txt = RANK_INDEX[deck][rank]
    color = SUIT_COLOURS[deck][suit]
    fit = ' textLength="54" lengthAdjust="spacingAndGlyphs"' if len(txt) > 1 else ""
    one = (f'<rect x="5" y="8" width="60" height="140" rx="8" fill="{_PAPER[deck]}" opacity="0.9"/>'
           f'<text x="35" y="66" text-anchor="middle" font-family="DejaVu Sans, Arial, sans-serif" '
           f'font-weight="bold" font-size="64" fill="{color}"{fit}>{txt}</text>'
           + _place(_symbol(deck, suit), 35, 110, 0.58))
    return f'<g class="index">{one}</g><g class="index" transform="rotate(180 {W / 2:g} {H / 2:g})">{one}</g>'


_PAPER = {"german": "#fffaf0", "french": "#ffffff", "french4": "#ffffff"}


def _figure(deck: str, suit: int, rank: int) -> str:
    """A full-length figure (one head, the Bohemian style) for U/O/K (J/Q/K)."""
    dress, trim = _DRESS[deck][suit], _TRIM[deck][suit]
    skin, hair = "#f3cfa6", "#6b4a2a"
    parts = []
    queen = deck != "german" and rank == QUEEN
    king = rank == KING
    # legs and shoes (a queen wears a long gown instead)
    if not queen:
        parts.append('<path d="M104,228 L100,300 L114,300 L118,232 Z M136,228 L140,300 L126,300 L122,232 Z" '
                     f'fill="{trim}" stroke="{_INK}" stroke-width="2.5"/>')
        parts.append(f'<ellipse cx="104" cy="303" rx="13" ry="6" fill="{_INK}"/>'
                     f'<ellipse cx="136" cy="303" rx="13" ry="6" fill="{_INK}"/>')
        body = "M92,136 C84,150 82,190 86,236 L154,236 C158,190 156,150 148,136 Z"
        if king:  # a king's long robe
            body = "M92,136 C80,170 74,240 72,292 L168,292 C166,240 160,170 148,136 Z"
    else:
        body = "M94,136 C84,180 70,250 66,302 L174,302 C170,250 156,180 146,136 Z"
    parts.append(f'<path d="{body}" fill="{dress}" stroke="{_INK}" stroke-width="2.5" stroke-linejoin="round"/>')
    # belt / trim and buttons
    belt_y = 200 if not (king or queen) else 196
    parts.append(f'<path d="M86,{belt_y} L154,{belt_y}" stroke="{trim}" stroke-width="9"/>'
                 f'<path d="M86,{belt_y} L154,{belt_y}" stroke="{_INK}" stroke-width="1" stroke-dasharray="2 8"/>')
    parts.append(f'<path d="M120,140 L120,{belt_y - 6}" stroke="{trim}" stroke-width="5"/>')
    if king or queen:
        parts.append(f'<path d="M78,262 L162,262" stroke="{trim}" stroke-width="7"/>')
    # collar, neck, head
    parts.append(f'<path d="M96,136 C104,146 136,146 144,136 C136,130 104,130 96,136 Z" fill="#f7f1e1" '
                 f'stroke="{_INK}" stroke-width="2"/>')
    parts.append(f'<circle cx="120" cy="112" r="21" fill="{skin}" stroke="{_INK}" stroke-width="2.5"/>')
    parts.append('<circle cx="113" cy="110" r="2.2" fill="#222"/><circle cx="127" cy="110" r="2.2" fill="#222"/>'
                 '<path d="M114,122 C118,125 122,125 126,122" fill="none" stroke="#7a3a2a" stroke-width="2"/>')
    if king:  # beard
        parts.append(f'<path d="M101,116 C104,140 136,140 139,116 C134,128 106,128 101,116 Z" fill="#e8e2d4" '
                     f'stroke="{_INK}" stroke-width="1.5"/>')
    elif rank == QUEEN and deck == "german":  # Ober: a moustache
        parts.append(f'<path d="M110,119 C114,116 118,118 120,120 C122,118 126,116 130,119" fill="none" '
                     f'stroke="{hair}" stroke-width="3" stroke-linecap="round"/>')
    if queen:  # long hair
        parts.append(f'<path d="M99,108 C96,126 98,140 104,146 L108,120 Z M141,108 C144,126 142,140 136,146 '
                     f'L132,120 Z" fill="{hair}"/>')
    # head-wear: crown, tiara, hat or cap
    if king:
        parts.append('<path d="M98,96 L98,74 L108,86 L120,68 L132,86 L142,74 L142,96 Z" fill="#f1c232" '
                     f'stroke="{_INK}" stroke-width="2.5" stroke-linejoin="round"/>'
                     '<circle cx="120" cy="88" r="3.5" fill="#c8202b"/>')
    elif queen:
        parts.append('<path d="M102,96 L106,82 L114,90 L120,78 L126,90 L134,82 L138,96 Z" fill="#f1c232" '
                     f'stroke="{_INK}" stroke-width="2"/>')
    elif rank == QUEEN:  # Ober: a tall hat with a feather
        parts.append(f'<path d="M98,98 C98,80 106,70 120,70 C134,70 142,80 142,98 Z" fill="{trim}" '
                     f'stroke="{_INK}" stroke-width="2.5"/>'
                     f'<path d="M94,98 L146,98" stroke="{_INK}" stroke-width="5" stroke-linecap="round"/>'
                     f'<path d="M138,80 C150,62 160,58 170,56 C162,66 152,74 140,86" fill="#f7f1e1" '
                     f'stroke="{_INK}" stroke-width="1.8"/>')
    else:  # Unter / jack: a flat cap
        parts.append(f'<path d="M96,100 C96,84 144,84 144,100 Z" fill="{trim}" stroke="{_INK}" stroke-width="2.5"/>'
                     f'<ellipse cx="120" cy="100" rx="28" ry="5" fill="{dress}" stroke="{_INK}" stroke-width="2"/>'
                     f'<path d="M100,88 C92,80 84,80 78,84" fill="none" stroke="{_INK}" stroke-width="2.5"/>')
    # arms
    parts.append(f'<path d="M94,140 C82,160 80,184 90,196" fill="none" stroke="{dress}" stroke-width="14" '
                 'stroke-linecap="round"/>'
                 f'<path d="M146,140 C160,152 166,166 162,178" fill="none" stroke="{dress}" stroke-width="14" '
                 'stroke-linecap="round"/>')
    parts.append(f'<circle cx="91" cy="198" r="7" fill="{skin}" stroke="{_INK}" stroke-width="2"/>'
                 f'<circle cx="162" cy="180" r="7" fill="{skin}" stroke="{_INK}" stroke-width="2"/>')
    # what the figure holds: a sceptre (king), a flower (queen), a halberd (Unter / Ober / jack)
    if king:
        parts.append(f'<path d="M164,186 L174,72" stroke="{_INK}" stroke-width="5"/>'
                     f'<circle cx="175" cy="68" r="8" fill="#f1c232" stroke="{_INK}" stroke-width="2"/>')
    elif queen:
        parts.append(f'<path d="M162,174 L168,138" stroke="#2f7a3a" stroke-width="3"/>'
                     f'<circle cx="169" cy="134" r="8" fill="#e86a8a" stroke="{_INK}" stroke-width="1.5"/>')
    else:
        parts.append(f'<path d="M166,300 L166,58" stroke="#6b4a2a" stroke-width="5"/>'
                     f'<path d="M166,58 L158,80 L166,76 L174,80 Z M166,86 C178,86 182,96 180,104 C174,98 170,96 166,96 Z" '
                     f'fill="#c9ccd2" stroke="{_INK}" stroke-width="2"/>')
    # the suit symbol: above the figure on an Ober (queen), below it on an Unter (jack),
    # on the king's chest
    sym = _symbol(deck, suit)
    if king:
        parts.append(_place(sym, 120, 166, 0.36))
    elif rank == QUEEN:
        parts.append(_place(sym, 72, 72, 0.38))
    else:
        parts.append(_place(sym, 72, 288, 0.38))
    return "".join(parts)


def card_svg(card: int | str, deck: str) -> str:
    """The SVG text of one card (``"CJ"`` or a card id) in deck style ``deck``."""
    from skatsim.cards import parse_card

    c = parse_card(card) if isinstance(card, str) else int(card)
    suit, rank = card_suit(c), card_rank(c)
    name = card_name(c)
    paper = _PAPER[deck]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
           f'role="img" aria-label="{name}">',
           f'<rect x="2" y="2" width="{W - 4}" height="{H - 4}" rx="16" fill="{paper}" stroke="#3a3a3a" '
           'stroke-width="3"/>']
    sym = _symbol(deck, suit)
    if rank in (JACK, QUEEN, KING):
        frame = "#f4ead2" if deck == "german" else "#eef1f7"
        out.append(f'<rect x="64" y="40" width="112" height="280" rx="10" fill="{frame}" stroke="#8a7a5a" '
                   'stroke-width="2"/>')
        out.append(f'<g transform="translate(120 180) scale(0.78 1) translate(-120 -180)">'
                   f'{_figure(deck, suit, rank)}</g>')
    elif rank == ACE:
        if deck == "german":  # the Daus: two large pips in an ornamental frame
            out.append('<rect x="64" y="40" width="112" height="280" rx="10" fill="none" stroke="#b89a56" '
                       'stroke-width="2.5" stroke-dasharray="10 4"/>')
            out.append(_place(sym, 120, 124, 0.95))
            out.append(_place(sym, 120, 240, 0.95))
        else:
            out.append(_place(sym, 120, 180, 1.05))
    else:
        for x, y in _PIPS[rank]:
            out.append(_place(sym, x, y, 0.38, rotate=deck != "german" and y > 180))
    out.append(_index(deck, suit, rank))
    out.append("</svg>")
    return "".join(out)


def back_svg() -> str:
    """The back of a card (face-down cards: the others' hands, the skat)."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
            'role="img" aria-label="card back"><defs><pattern id="p" width="24" height="24" '
            'patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="24" height="24" '
            'fill="#8c1d2a"/><rect width="12" height="12" fill="#a8283a"/><circle cx="18" cy="18" r="3" '
            'fill="#e9c46a"/></pattern></defs>'
            f'<rect x="2" y="2" width="{W - 4}" height="{H - 4}" rx="16" fill="#fffaf0" stroke="#3a3a3a" '
            'stroke-width="3"/>'
            f'<rect x="16" y="16" width="{W - 32}" height="{H - 32}" rx="10" fill="url(#p)" stroke="#e9c46a" '
            'stroke-width="4"/>'
            f'<circle cx="{W / 2:g}" cy="{H / 2:g}" r="34" fill="#8c1d2a" stroke="#e9c46a" stroke-width="4"/>'
            f'<text x="{W / 2:g}" y="{H / 2 + 12:g}" text-anchor="middle" font-family="DejaVu Serif, Georgia, '
            'serif" font-size="34" font-weight="bold" fill="#e9c46a">S</text></svg>')


def all_cards() -> dict[tuple[str, str], str]:
    """Every drawing: ``(deck, card name) -> svg``, plus ``("", "back")``."""
    out = {(deck, card_name(c)): card_svg(c, deck) for deck in DECKS for c in range(32)}
    out[("", "back")] = back_svg()
    return out


def write_cards(folder: str | os.PathLike[str] = CARDS_DIR) -> int:
    """Write every drawing to ``folder/<deck>/<card>.svg`` and ``folder/back.svg``; returns the count."""
    root = Path(folder)
    n = 0
    for (deck, name), svg in all_cards().items():
        path = root / deck / f"{name}.svg" if deck else root / f"{name}.svg"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg + "\n", encoding="utf-8")
        n += 1
    return n


if __name__ == "__main__":  # pragma: no cover
    print(f"wrote {write_cards()} card drawings to {CARDS_DIR}")
