#!/usr/bin/env python
"""Speed of Russian Hand's exact table rearrangement, printed as JSON.

Deals ``--positions`` random positions (``handsim.games.russian.positions``: tables of 0-40 cards
built from legal melds, hands of 1-12 cards, half of them mostly near the table's cards), then
measures, one core, with the kernels called from a compiled loop (as the engine will):

* ``rearrange_per_s``: best play, most cards then most value (the engine's call);
* ``rearrange_fewest_changed_per_s``: the same plus the fewest table melds changed (a second,
  bounded search; what ``handsim rearrange`` and move logs use);
* ``can_place_per_s``: whether any card can be placed at all;
* ``python_api_per_s``: ``handsim.games.russian.rearrange.rearrange`` from Python (input checks,
  conversion, one kernel call);
* ``states_*``: search states per call (a machine-independent measure of the work), and the share
  of positions answered without a search.

Times are the process's CPU time (``time.process_time``), so that other work on a shared machine
does not count; ``*_wall_per_s`` give the wall-clock rates.  Compilation is done before timing.

Usage::

    python scripts/bench_rearrange.py [--positions 5000] [--seed 1] [--max-table 40] [--max-hand 12] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

from handsim.games.russian.kernels import rearrange as k  # noqa: E402
from handsim.games.russian.positions import random_position  # noqa: E402
from handsim.games.russian.rearrange import Position, rearrange  # noqa: E402
from handsim.games.russian.rules import RussianRules  # noqa: E402


@njit(cache=False)
def _solve_all(T, H, M, NM, rank_value, tags, ws, states, searched):
    placed = np.zeros(52, np.int8)
    out = np.zeros((k.MAX_MELDS + 8, 4), np.int8)
    total = 0
    for i in range(T.shape[0]):
        ws[6][1] = 0
        ws[6][2] = 0
        status, n, value, kept, n_out = k.rearrange(T[i], H[i], M[i], NM[i], rank_value, False, tags, ws, placed, out)
        states[i] = ws[6][1]
        searched[i] = ws[6][2] > 0
        total += n
    return total


@njit(cache=False)
def _can_place_all(T, H, M, NM, ws):
    total = 0
    for i in range(T.shape[0]):
        total += k.can_place(T[i], H[i], M[i], NM[i], False, ws)
    return total


def _timed(f, *args, repeat=3):
    """Best of ``repeat`` runs: (cpu seconds, wall seconds, result)."""
    best = None
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        r = f(*args)
        c, w = time.process_time() - c0, time.perf_counter() - w0
        if best is None or c < best[0]:
            best = (c, w, r)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-table", type=int, default=40)
    ap.add_argument("--max-hand", type=int, default=12)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs; the fastest counts (default 3)")
    a = ap.parse_args()

    rng = random.Random(a.seed)
    raw = [random_position(rng, max_table=a.max_table, max_hand=a.max_hand) for _ in range(a.positions)]
    pos = [Position(t, h) for t, h in raw]
    n = len(pos)
    T = np.array([p.tcnt for p in pos])
    H = np.array([p.hcnt for p in pos])
    M = np.zeros((n, k.MAX_MELDS + 8, 4), np.int8)
    NM = np.array([p.n_melds for p in pos])
    for i, p in enumerate(pos):
        M[i, :p.n_melds] = p.melds[:p.n_melds]
    rv = RussianRules.preset().rank_values()
    ws = k.make_workspace()
    states = np.zeros(n, np.int64)
    searched = np.zeros(n, np.bool_)

    out = {"positions": n, "seed": a.seed, "max_table": a.max_table, "max_hand": a.max_hand,
           "mean_table_cards": float(T.sum() / n), "mean_hand_cards": float(H.sum() / n)}
    # compile (not timed)
    _solve_all(T[:2], H[:2], M[:2], NM[:2], rv, False, ws, states, searched)
    _solve_all(T[:2], H[:2], M[:2], NM[:2], rv, True, ws, states, searched)
    _can_place_all(T[:2], H[:2], M[:2], NM[:2], ws)
    rearrange(*raw[0])

    for tags, name in ((False, "rearrange"), (True, "rearrange_fewest_changed")):
        cpu, wall, placed = _timed(_solve_all, T, H, M, NM, rv, tags, ws, states, searched, repeat=a.repeat)
        out[f"{name}_per_s"] = round(n / cpu)
        out[f"{name}_wall_per_s"] = round(n / wall)
        out[f"{name}_mean_us"] = round(cpu / n * 1e6, 1)
        out[f"{name}_states_mean"] = round(float(states.mean()), 1)
        out[f"{name}_states_p50_p90_p99_max"] = [int(x) for x in np.percentile(states, [50, 90, 99, 100])]
        if not tags:
            out["mean_cards_placed"] = round(placed / n, 3)
            out["share_answered_without_search"] = round(float(1 - searched.mean()), 3)
    cpu, wall, yes = _timed(_can_place_all, T, H, M, NM, ws, repeat=a.repeat)
    out["can_place_per_s"] = round(n / cpu)
    out["can_place_wall_per_s"] = round(n / wall)
    out["share_can_place"] = round(yes / n, 3)
    cpu, wall, _ = _timed(lambda: [rearrange(t, h) for t, h in raw], repeat=1)
    out["python_api_per_s"] = round(n / cpu)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
