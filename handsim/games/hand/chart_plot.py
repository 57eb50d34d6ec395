"""The figure of a decision chart: a grid laid out like a blackjack basic-strategy chart."""

from __future__ import annotations

import pandas as pd

#: Colour of each better action (``either`` grey; ``too few`` white, hatched).
COLOURS = {"open": (0.85, 0.35, 0.15), "wait": (0.15, 0.40, 0.80)}


def chart_figure(cells: pd.DataFrame, rows: str, cols: str, title: str):
    """A matplotlib figure of :func:`handsim.games.hand.chart.cells`: rows and columns the two
    feature buckets (the first threshold's cells), each cell coloured by its better action with
    the alpha growing with the gain (full at 20 points per round), grey "either", hatched "too few",
    and its gain and positions written in it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    rk, ck = rows + "_bucket", cols + "_bucket"
    rlab = list(dict.fromkeys(cells.sort_values(rk, key=lambda s: s.map(_num))[rk])) if len(cells) else []
    clab = [c for c in dict.fromkeys(cells.sort_values(ck, key=lambda s: s.map(_num))[ck])] if len(cells) else []
    fig, ax = plt.subplots(figsize=(1.6 * max(len(clab), 1) + 1.5, 0.8 * max(len(rlab), 1) + 1.5))
    for _, c in cells.iterrows():
        x, y = clab.index(c[ck]), rlab.index(c[rk])
        b = c["better"]
        if b in COLOURS:
            face = COLOURS[b] + (min(1.0, 0.25 + abs(c["gain"]) / 20.0),)
            hatch = None
        elif b == "either":
            face, hatch = (0.75, 0.75, 0.75, 1.0), None
        else:
            face, hatch = (1, 1, 1, 1), "///"
        ax.add_patch(Rectangle((x, y), 1, 1, facecolor=face, edgecolor="black", hatch=hatch))
        word = {"open": "OPEN", "wait": "WAIT", "either": "either"}.get(b, "few")
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
