"""The figure of a decision chart: a grid laid out like a blackjack basic-strategy chart."""

from __future__ import annotations

import pandas as pd

#: Colour of the first and the second alternative of a class (``either`` grey; ``too few`` white, hatched).
COLOURS = ((0.85, 0.35, 0.15), (0.15, 0.40, 0.80))


def chart_figure(cells: pd.DataFrame, rows: str, cols: str, title: str, actions=("open", "wait"),
                 row_order=None, col_order=None):
    """A matplotlib figure of :func:`handsim.games.hand.chart.cells`: rows and columns the two
    feature buckets (in ``row_order`` / ``col_order``, by default their numbers' order), each cell
    coloured by its better action (the first of ``actions`` orange, the second blue) with the
    alpha growing with the gain (full at 20 points per round), grey "either", hatched "too few",
    and its gain and positions written in it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    rk, ck = rows + "_bucket", cols + "_bucket"
    if row_order is None:
        row_order = list(dict.fromkeys(cells.sort_values(rk, key=lambda s: s.map(_num))[rk])) if len(cells) else []
    if col_order is None:
        col_order = list(dict.fromkeys(cells.sort_values(ck, key=lambda s: s.map(_num))[ck])) if len(cells) else []
    rlab, clab = list(row_order), list(col_order)
    colour = dict(zip(actions, COLOURS))
    fig, ax = plt.subplots(figsize=(1.6 * max(len(clab), 1) + 1.5, 0.8 * max(len(rlab), 1) + 1.5))
    for _, c in cells.iterrows():
        x, y = clab.index(c[ck]), rlab.index(c[rk])
        b = c["better"]
        if b in colour:
            face = colour[b] + (min(1.0, 0.25 + abs(c["gain"]) / 20.0),)
            hatch = None
        elif b == "either":
            face, hatch = (0.75, 0.75, 0.75, 1.0), None
        else:
            face, hatch = (1, 1, 1, 1), "///"
        ax.add_patch(Rectangle((x, y), 1, 1, facecolor=face, edgecolor="black", hatch=hatch))
        word = b.upper() if b in colour else {"either": "either"}.get(b, "few")
        ax.text(x + 0.5, y + 0.5, f"{word}\n{c['gain']:+.1f} (n={c['positions']})", ha="center", va="center",
                fontsize=7)
    ax.set_xlim(0, max(len(clab), 1))
    ax.set_ylim(max(len(rlab), 1), 0)
    ax.set_xticks([i + 0.5 for i in range(len(clab))], clab)
    ax.set_yticks([i + 0.5 for i in range(len(rlab))], rlab)
    ax.set_xlabel(cols.replace("_", " "))
    ax.set_ylabel(rows.replace("_", " "))
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def _num(v) -> float:
    s = str(v).split("-")[0].rstrip("+")
    try:
        return float(s)
    except ValueError:
        return 1e9
