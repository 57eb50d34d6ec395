#!/usr/bin/env python
"""Where Russian Hand's time goes: the table-rearrangement searches of a study, turn by turn.

Plays ``--games`` games of one line-up with the engine (the same deals and play as a study),
recording every turn's position (table, hand, first-round rule) and what the engine did with it,
then times the search on the recorded positions, by kind of turn, in compiled loops.  Prints,
as text or ``--json``:

* turns per game, the share of turns that call the search and the searches per game, split by
  how each was answered: a first-round turn (only new melds of hand cards), a turn whose hand
  holds no card that fits any meld of table + hand (the pruning answers it: no dynamic
  programme), a dynamic programme that found no play, and one that found a play;
* the plays and draws, and for the turns that found no play: how many repeat a fruitless search
  of the same table by the same player (the table unchanged since its last turn, only the card
  it drew is new) and how many of those the drawn card cannot join any meld of table + hand;
* the time per search of each kind (microseconds, median of ``--repeat`` timings) and its share
  of all search time, and the engine's own games/s on the same games.

Usage::

    python scripts/profile_russian.py                       # 4 x greedy, 2,000 games
    python scripts/profile_russian.py --players 2 --lineup patient --games 500 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
from numba import njit

from handsim.games.russian.game import GAME
from handsim.games.russian.kernels import rearrange as K
from handsim.games.russian.kernels.dispatch import begin_turn, play
from handsim.games.russian.kernels.engine import play_games
from handsim.games.russian.kernels.state import (
    DRAW,
    MELD_ROWS,
    N_CARDS,
    PLAY,
    R_STOCK_OUT_END,
    SO_LAST_CARD,
    TURN_CAP,
    apply_play,
    deal,
    draw,
    frozen_now,
    keep_alive,
    new_state,
    seat_policies,
    stock_left,
)
from handsim.games.russian.rules import RussianRules
from handsim.policies import lineup_arrays, parse_lineup

# kinds of searched turns
FIRST_ROUND, PRUNED, DP_NONE, DP_PLAY = 0, 1, 2, 3
KIND_NAMES = ("first-round turn", "pruned (no card fits any meld)", "dynamic programme, no play",
              "dynamic programme, a play")


@njit(cache=True)
def _record(seed, n, players, rv, pol, pp, cap, r_t, r_h, r_m, r_info):
    """Play games ``0..n-1`` and record each searched turn: table counts, hand, melds and
    ``info = (game, seat, frozen, n_melds, placed, ran_dp, repeat, new_card_fits, action)``;
    returns the number of rows (at most ``cap``)."""
    arr = new_state(players, rv, 0)
    st = arr[0]
    ws = K.new_workspace()
    g = (st, ws)
    rows = 0
    last_none = np.zeros(5, np.int64)  # the seat's last turn searched and found no play
    last_plays = np.zeros(5, np.int64)  # plays on the table at that moment
    drawn = np.full(5, -1, np.int64)  # the card the seat drew then
    for i in range(n):
        seat_policies(st, i, pol, pp)
        deal(st, seed, i)
        plays = 0
        last_none[:] = 0
        drawn[:] = -1
        while st.turn < TURN_CAP:
            seat = st.turn % players
            st.searched = 0
            st.st_n = 0
            fr = frozen_now(st)
            searches0 = st.searches
            if rows < cap:
                for t in range(N_CARDS):
                    r_t[rows, t] = st.tcnt[t]
                    r_h[rows, t] = st.hand[seat, t]
                for k in range(st.n_melds):
                    for j in range(4):
                        r_m[rows, k, j] = st.melds[k, j]
            begin_turn(g, seat)
            a = play(g, seat)
            if st.err != 0:
                break
            repeat = 1 if (last_none[seat] and last_plays[seat] == plays and not fr) else 0
            fits = -1
            if repeat and drawn[seat] >= 0:
                c = drawn[seat]
                H = np.zeros((4, 16), np.int32)
                TT = np.zeros((4, 16), np.int32)
                for t in range(N_CARDS):
                    TT[t // 13, t % 13 + 1] = st.tcnt[t]
                    H[t // 13, t % 13 + 1] = st.hand[seat, t]
                fits = 1 if K._could_meld(TT, H, c // 13, c % 13 + 1) else 0
            if st.searched and rows < cap:
                r_info[rows, 0] = i
                r_info[rows, 1] = seat
                r_info[rows, 2] = 1 if fr else 0
                r_info[rows, 3] = st.n_melds
                r_info[rows, 4] = st.st_n
                r_info[rows, 5] = 1 if st.searches > searches0 else 0
                r_info[rows, 6] = repeat
                r_info[rows, 7] = fits
                r_info[rows, 8] = a
                rows += 1
            st.turn += 1
            if a == PLAY:
                if not apply_play(st, seat):
                    break
                plays += 1
                last_none[seat] = 0
                if st.hand_n[seat] == 0:
                    break
            else:
                last_none[seat] = 1 if st.searched and st.st_n == 0 else 0
                last_plays[seat] = plays
                if stock_left(st) == 0:
                    break
                drawn[seat] = draw(st, seat)
                if st.rv[R_STOCK_OUT_END] == SO_LAST_CARD and stock_left(st) == 0:
                    break
    keep_alive(arr)
    return rows


@njit(cache=True)
def _solve_rows(idx, r_t, r_h, r_m, r_info, rank_value, reps):
    """Search the recorded positions ``idx`` ``reps`` times (greedy's call: no tags); returns the
    cards placed in all (so the loop is not optimised away)."""
    ws = K.new_workspace()
    placed = np.zeros(N_CARDS, np.int8)
    out = np.zeros((MELD_ROWS, 4), np.int8)
    total = 0
    for _ in range(reps):
        for q in range(idx.shape[0]):
            k = idx[q]
            status, n, v, kept, n_out = K.rearrange(r_t[k], r_h[k], r_m[k], r_info[k, 3], rank_value,
                                                    r_info[k, 2] == 1, False, ws, placed, out)
            total += n
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--lineup", default="greedy", help="a line-up (one name: every seat; default greedy)")
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="rule override (repeatable)")
    ap.add_argument("--repeat", type=int, default=3, help="timings of each kind (median quoted; default 3)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    rules = RussianRules.preset().with_settings(args.set)
    rv = rules.to_vector()
    names = [args.lineup] * args.players if "," not in args.lineup else args.lineup.split(",")
    pol, pp = lineup_arrays(parse_lineup(",".join(names), game="russian"))
    P = args.players
    cap = args.games * 200
    r_t = np.zeros((cap, N_CARDS), np.int8)
    r_h = np.zeros((cap, N_CARDS), np.int8)
    r_m = np.zeros((cap, MELD_ROWS, 4), np.int8)
    r_info = np.zeros((cap, 9), np.int64)
    rows = _record(np.uint64(args.seed), args.games, P, rv, pol, pp, cap, r_t, r_h, r_m, r_info)
    r_t, r_h, r_m, r_info = r_t[:rows], r_h[:rows], r_m[:rows], r_info[:rows]

    # the engine itself on the same games (warm), for the turn count and games/s
    GAME.run_chunk(rv, pol, pp, P, args.seed, 0, 2)
    best = None
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        res = GAME.run_chunk(rv, pol, pp, P, args.seed, 0, args.games)
        sec = time.perf_counter() - t0
        best = sec if best is None else min(best, sec)
    turns = int(res["turns"].sum())
    solves = int(res["solves"].sum())
    if solves != rows:
        raise SystemExit(f"profile: recorded {rows} searches but the engine made {solves}")

    kind = np.where(r_info[:, 2] == 1, FIRST_ROUND,
                    np.where(r_info[:, 5] == 0, PRUNED, np.where(r_info[:, 4] > 0, DP_PLAY, DP_NONE)))
    rank_value = np.array([0, rv[3]] + [r if r <= 10 else 10 for r in range(2, 14)], np.int32)
    _solve_rows(np.arange(min(rows, 50), dtype=np.int64), r_t, r_h, r_m, r_info, rank_value, 1)  # compile
    kinds = {}
    total_time = 0.0
    for k, name in enumerate(KIND_NAMES):
        idx = np.flatnonzero(kind == k).astype(np.int64)
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            _solve_rows(idx, r_t, r_h, r_m, r_info, rank_value, 1)
            times.append(time.perf_counter() - t0)
        sec = statistics.median(times)
        total_time += sec
        kinds[name] = {"searches": int(idx.size), "per_game": idx.size / args.games,
                       "us_per_search": 1e6 * sec / max(idx.size, 1), "seconds": sec}
    for v in kinds.values():
        v["time_share"] = v["seconds"] / total_time
    none = kind == DP_NONE
    pruned = kind == PRUNED
    nothing = none | pruned
    rep = nothing & (r_info[:, 6] == 1)
    out = {
        "games": args.games, "players": P, "lineup": names, "rules": rules.to_dict(),
        "engine_games_per_s": args.games / best,
        "turns_per_game": turns / args.games,
        "searches_per_game": rows / args.games,
        "search_turn_share": rows / turns,
        "plays_per_game": float((r_info[:, 8] == 1).sum()) / args.games,
        "search_seconds_per_game": total_time / args.games,
        "engine_seconds_per_game": best / args.games,
        "kinds": kinds,
        "no_play": {
            "turns": int(nothing.sum()),
            "repeat_of_fruitless_search": int(rep.sum()),
            "repeat_and_drawn_card_fits_no_meld": int((rep & (r_info[:, 7] == 0)).sum()),
            "repeat_dp_and_drawn_card_fits_no_meld": int((rep & none & (r_info[:, 7] == 0)).sum()),
            "dp_repeat": int((rep & none).sum()),
        },
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{args.games} games, {P} players, {','.join(names)}; engine {out['engine_games_per_s']:.0f} games/s "
          f"(one core), {out['turns_per_game']:.1f} turns/game, {out['plays_per_game']:.1f} plays/game")
    print(f"searches: {out['searches_per_game']:.1f}/game, share of turns {out['search_turn_share']:.1%}; "
          f"search time {1e3 * out['search_seconds_per_game']:.2f} ms of the engine's "
          f"{1e3 * out['engine_seconds_per_game']:.2f} ms per game")
    for name, v in kinds.items():
        print(f"  {name:34s} {v['per_game']:6.1f}/game  {v['us_per_search']:7.1f} us each  {v['time_share']:6.1%} of search time")
    nplay = out["no_play"]
    print(f"turns that found no play: {nplay['turns']}; repeating a fruitless search of the same table "
          f"{nplay['repeat_of_fruitless_search']} (of which drawn card fits no meld {nplay['repeat_and_drawn_card_fits_no_meld']}); "
          f"dynamic programmes among the repeats {nplay['dp_repeat']} (drawn card fits no meld "
          f"{nplay['repeat_dp_and_drawn_card_fits_no_meld']})")


if __name__ == "__main__":
    main()
