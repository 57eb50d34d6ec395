"""Which tables a tournament plays: entries, table designs and their seatings (line-ups).

A tournament compares ``K`` *entries* (policies with their parameters) at tables of ``P`` seats.
A *table* is a multiset of entries; a *seating* of a table is one order of its entries over the
line-up positions.  Every deal is played at every seating of every table (the duplicate format):
the study driver seats line-up position ``j`` of deal ``i`` at ``(j + i) % P`` seats after the
starter (RULES.md section 3), so playing every distinct seating of a table as its own line-up on
the same deals plays every deal under every assignment of the table's entries to the seats, and
the luck of the cards and of the starter's seat cancels between the entries.

Designs
-------
``pairs`` (the default)
    Every pair of entries ``a < b`` meets at equal strength: 2 players ``a b`` (2 seatings);
    3 players ``a a b`` and ``a b b`` (both majorities, 3 seatings each); 4 players ``a a b b``
    (6 seatings); 2 v 2 the team ``a & a`` against ``b & b`` (2 seatings: which team starts the
    rotation; partners sit opposite).  Cost: ``K(K-1)/2`` pairs x 2, 6, 6 or 2 games per deal.
``all``
    Every multiset of ``P`` entries with all its distinct seatings: every sequence of ``P``
    entries, ``K**P`` games per deal (81 for K = 3, P = 4; 625 for K = 5).  It measures every
    entry in every field (three-way tables included), at a cost that grows fast.  Not for 2 v 2
    (a mixed partnership has no single policy to credit).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass

__all__ = ["DESIGNS", "Design", "design", "games_per_deal"]

#: Table designs (see the module docstring).
DESIGNS = ("pairs", "all")


@dataclass(frozen=True)
class Design:
    """The tables and seatings of a tournament.

    Attributes
    ----------
    tables : tuple of tuple of int
        Each table as a sorted tuple of entry indices (a multiset), in play order.
    lineups : tuple of tuple of int
        Every seating: entry index per line-up position, grouped by table.
    table_of : tuple of int
        Table index of each seating.
    """

    tables: tuple[tuple[int, ...], ...]
    lineups: tuple[tuple[int, ...], ...]
    table_of: tuple[int, ...]


def _seatings(table: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every distinct order of a multiset of entries (lexicographic)."""
    return sorted(set(itertools.permutations(table)))


def design(entries: int, players: int, tables: str = "pairs", teams: bool = False) -> Design:
    """The tables and seatings of a tournament of ``entries`` entries at ``players`` seats.

    Parameters
    ----------
    entries : int
        ``K >= 2``.
    players : int
        Seats ``P``, 2 to 4 (4 with ``teams``).
    tables : {"pairs", "all"}
    teams : bool
        2 v 2 partnership (line-up positions 1 & 3 against 2 & 4).

    Raises
    ------
    ValueError
        Fewer than two entries, an unknown design, or ``all`` with teams.
    """
    K, P = int(entries), int(players)
    if K < 2:
        raise ValueError(f"a tournament needs at least two policies, got {K}")
    if tables not in DESIGNS:
        raise ValueError(f"unknown table design {tables!r}: allowed {', '.join(DESIGNS)}")
    if teams and P != 4:
        raise ValueError("2 v 2 tables need 4 players")
    tabs: list[tuple[int, ...]] = []
    seatings: list[list[tuple[int, ...]]] = []
    if teams:
        if tables != "pairs":
            raise ValueError("2 v 2 tournaments play the 'pairs' design only (each team one policy): "
                             "a mixed partnership has no single policy to credit")
        for a, b in itertools.combinations(range(K), 2):
            tabs.append((a, a, b, b))
            seatings.append([(a, b, a, b), (b, a, b, a)])
    elif tables == "pairs":
        for a, b in itertools.combinations(range(K), 2):
            if P == 2:
                mixes = [(a, b)]
            elif P == 3:
                mixes = [(a, a, b), (a, b, b)]
            else:
                mixes = [(a,) * (P // 2) + (b,) * (P - P // 2)]
            for t in mixes:
                tabs.append(t)
                seatings.append(_seatings(t))
    else:
        for t in itertools.combinations_with_replacement(range(K), P):
            tabs.append(t)
            seatings.append(_seatings(t))
    lineups = tuple(s for group in seatings for s in group)
    table_of = tuple(t for t, group in enumerate(seatings) for _ in group)
    return Design(tuple(tabs), lineups, table_of)


def games_per_deal(entries: int, players: int, tables: str = "pairs", teams: bool = False) -> int:
    """Seatings (games) played per deal: the cost of a design, without building it."""
    K, P = int(entries), int(players)
    if tables == "all":
        return K**P
    pairs = K * (K - 1) // 2
    if teams:
        return 2 * pairs
    per = {2: 2, 3: 6}.get(P)
    if per is None:
        h = P // 2
        per = math.comb(P, h)
    return pairs * per


def table_label(table: tuple[int, ...], labels: list[str], teams: bool = False) -> str:
    """``"greedy×2 + random×2"`` (``"greedy & greedy v random & random"`` for 2 v 2)."""
    if teams:
        a, b = table[0], table[-1]
        return f"{labels[a]} & {labels[a]} v {labels[b]} & {labels[b]}"
    counts = Counter(table)
    return " + ".join(labels[e] if n == 1 else f"{labels[e]}×{n}" for e, n in sorted(counts.items()))
