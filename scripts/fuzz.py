#!/usr/bin/env python
"""Fuzz the engine against the pure-Python rules checker.

Plays deals with random and scripted line-ups under every preset and every value of the rule
options of RULES.md sections 1-6 and 2 v 2 partnership (section 7) - every built-in policy;
user-written policies go through the same variants with ``handsim check-policy FILE NAME`` - records each deal's move log
and replays it through :func:`handsim.games.hand.checker.check_deal` (legality of every move, card
conservation, the opening and pickup rules, the end of the round, the scores).  Prints a JSON summary; exits 1 on any
discrepancy and writes the offending traces to ``--failures`` (JSON lines).

Usage::

    python scripts/fuzz.py --deals 1000000 --jobs 2          # the long run
    python scripts/fuzz.py --deals 2000 --seed 3              # a quick one
    python scripts/fuzz.py --deals 20000 --only partnership   # only the cases naming "partnership"
    python scripts/fuzz.py --game russian --deals 1000000 --jobs 2   # Russian Hand (RULES.md section 8)

With ``--game russian`` (or ``--preset russian``) it plays Russian Hand games instead: every
value of every Russian Hand option, 2 to 5 players, greedy / patient (also at settings that
hold back much) / random, each game's move log replayed by
:func:`handsim.games.russian.checker.check_deal` (every play: the table after is the table
before plus exactly the cards played, every meld legal, the first-round rule; card
conservation, turn order, the end and the winner).

With ``--game elimination`` it plays elimination matches (``elimination_score``, RULES.md section 7;
``--deals`` counts matches): each round of each match replayed by the checker at the table of the
players still in, and the match's eliminations, winner and totals held against
:func:`handsim.games.hand.sheet.score_sheet` reading its round scores.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from handsim._interrupt import worker_pool  # noqa: E402

#: Every value of every option of sections 1-6 that changes play, each in a preset (the list
#: ``handsim check-policy`` runs user-written policies through).
from handsim.policies.check import PARTNERSHIP_VARIANTS, VARIANTS, describe, seats_allowed  # noqa: E402

LINEUPS = {
    2: ["random,random", "random,greedy", "hold-hand,random", "card-reader,random",
        "sampler:samples=2,rollout=1,card-reader:joker_play=2,joker_turn=4", "searcher:worlds=4,rollout=1,random"],
    3: ["random,random,random", "greedy,random,hold-hand", "card-reader:joker_play=0,sampler:samples=2,random",
        "searcher:worlds=2,candidates=2,greedy,hold-hand"],
    4: ["random,random,random,random", "greedy,greedy,greedy,greedy", "hold-hand,random,greedy,random",
        "hold-hand:bail_turn=4,greedy,hold-hand,greedy",
        "hold-hand:distance_turn=2,max_distance=1,random,hold-hand:distance_turn=5,max_distance=0,greedy",
        "card-reader,greedy,greedy,greedy",
        "card-reader:joker_play=2,joker_turn=3,random,card-reader:joker_play=0,hold-hand",
        "card-reader:joker_hold=0,card-reader:joker_hold=100,card-reader:take_margin=0,feed_weight=0,random",
        "sampler:samples=3,candidates=2,card-reader,random,greedy",
        "sampler:samples=2,rollout=1,hold-hand,card-reader,random",
        "searcher:worlds=4,candidates=2,card-reader,searcher:worlds=2,plans=0,eliminate=0,rollout=1,random"],
    5: ["random,greedy,hold-hand,random,greedy", "card-reader,greedy,hold-hand:bail_turn=4,card-reader:joker_play=0,random",
        "sampler:samples=2,candidates=2,card-reader,greedy,random,hold-hand",
        "searcher:worlds=2,candidates=2,card-reader,greedy,hold-hand,random"],
}


#: go_out_requires_discard with discard_pickup=must_open (the default pickup): a player who takes
#: the discard must keep a card to throw, greedy, hold-hand and random alike.
GO_OUT_DISCARD_MUST_OPEN = [
    (preset, {"go_out_requires_discard": True, "discard_pickup": "must_open", **ov}, lu)
    for preset, ov in [("classic", {}), ("saudi", {"opening_threshold": 71}), ("qahwa", {})]
    for lu in ["greedy,greedy", "hold-hand,greedy", "random,random", "hold-hand,random,greedy",
               "greedy,greedy,greedy,greedy", "hold-hand,hold-hand,random,greedy", "random,hold-hand,random,hold-hand",
               "card-reader,random", "card-reader:joker_play=0,card-reader:joker_play=2,joker_turn=2,random",
               "sampler:samples=2,card-reader,random,greedy", "searcher:worlds=2,hold-hand,random,card-reader"]
]

#: 2 v 2 (RULES.md sections 4, 6, 7): partners sit opposite, so line-up positions 1 & 3 and 2 & 4
#: are partners; PARTNERSHIP_VARIANTS: opening_scope player and team, with the fixed and the
#: ascending opening rule, new_meld_only, go_out_requires_discard and layoff_on_opening_turn=false.
PARTNERSHIP_LINEUPS = ["greedy,greedy,greedy,greedy", "random,random,random,random", "hold-hand,greedy,greedy,greedy",
                       "hold-hand,greedy,greedy:support_hand=1,greedy", "card-reader,greedy,card-reader,random",
                       "sampler:samples=2,rollout=1,card-reader:joker_play=0,hold-hand,card-reader",
                       "sampler:samples=2,candidates=2,card-reader:joker_play=2,joker_turn=3,greedy:support_hand=1,random",
                       "searcher:worlds=2,card-reader,searcher:worlds=4,rollout=1,hold-hand"]


def cases():
    """The (preset, overrides, players, line-up) combinations, cycled deal by deal."""
    out = []
    for (preset, ov), players in itertools.product(VARIANTS, (2, 3, 4, 5)):
        if not seats_allowed(preset, ov, players):  # e.g. kuwait (decks=by_players): 4 or 5 players only
            continue
        for lu in LINEUPS[players]:
            out.append((preset, ov, players, lu))
    for preset, ov, lu in GO_OUT_DISCARD_MUST_OPEN:
        out.append((preset, ov, len(lu.split(",")), lu))
    for (preset, ov), lu in itertools.product(PARTNERSHIP_VARIANTS, PARTNERSHIP_LINEUPS):
        out.append((preset, ov, 4, lu))
    return out




#: Elimination matches (RULES.md section 7): scores, presets (levant: highest_scorer deals) and line-ups.
ELIMINATION_SCORES = (50, 201, 301)
ELIMINATION_PRESETS = ("classic", "levant", "qahwa", "saudi", "jawaker_saudi")
ELIMINATION_LINEUPS = {2: ["random,greedy", "card-reader,random"],
                       3: ["greedy,random,hold-hand", "card-reader:joker_play=0,sampler:samples=2,random"],
                       4: ["hold-hand,random,greedy,random", "searcher:worlds=2,candidates=2,card-reader,random,greedy"],
                       5: ["greedy,card-reader,random,hold-hand,greedy"]}


def elimination_cases():
    """The (preset, overrides, players, line-up) combinations of the elimination fuzz."""
    return [(preset, {"elimination_score": e}, players, lu)
            for e, preset, players in itertools.product(ELIMINATION_SCORES, ELIMINATION_PRESETS, (2, 3, 4, 5))
            for lu in ELIMINATION_LINEUPS[players]]


def _batch(args, cases, name):
    """``(seed, first, n, the cases)`` of a batch ``(seed, first, n[, only])``: the cases whose
    ``name`` holds ``only``."""
    seed, first, n = args[:3]
    only = args[3] if len(args) > 3 else None
    return seed, first, n, [c for c in cases if not only or only in name(c)]


def _check_elimination(args):
    """Play matches ``first .. first+n-1`` (match ``m`` of case ``m % cases``); counts and failures."""
    from handsim.games.hand.checker import check_deal
    from handsim.games.hand.elimination import run_elimination_chunk, sheet_rows, trace_elimination_round
    from handsim.games.hand.rules import Rules
    from handsim.games.hand.sheet import score_sheet
    from handsim.policies import parse_lineup

    seed, first, n, cs = _batch(args, elimination_cases(), describe)
    failures = []
    counts = {"deals": 0, "rounds": 0, "smaller_tables": 0, "hand": 0}
    for m in range(first, first + n):
        preset, ov, players, lu = case = cs[m % len(cs)]
        problems = []
        try:
            rules, specs = Rules.preset(preset, **ov), parse_lineup(lu)
            out = run_elimination_chunk(rules, specs, seed, m, 1)
            sheet = score_sheet(sheet_rows(out, 0), rules)
            if sheet.out_after != tuple(None if a == 0 else int(a) for a in out["out_after"][0]):
                problems.append(f"eliminations: engine {out['out_after'][0].tolist()}, sheet {sheet.out_after}")
            if sheet.winner != tuple(int(j) for j in out["win"][0].nonzero()[0]):
                problems.append(f"winner: engine {out['win'][0].tolist()}, sheet {sheet.winner}")
            if list(sheet.rounds[-1].totals) != out["total"][0].tolist():
                problems.append(f"totals: engine {out['total'][0].tolist()}, sheet {sheet.rounds[-1].totals}")
            for r in range(int(out["rounds"][0])):
                tr = trace_elimination_round(rules, specs, m, r, seed)
                problems += [f"round {r + 1}: {p}" for p in check_deal(tr)]
                if tr["result"]["scores"] != [int(out["score"][0, r, j]) for j in tr["positions"]]:
                    problems.append(f"round {r + 1}: traced scores {tr['result']['scores']} != the match's")
                counts["rounds"] += 1
                counts["smaller_tables"] += tr["players"] < players
                counts["hand"] += tr["result"]["hand"]
        except Exception as e:  # an engine error is a discrepancy too
            problems.append(repr(e))
        counts["deals"] += 1
        if problems:
            failures.append({"match": m, "seed": seed, "case": describe(case), "preset": preset, "overrides": ov,
                             "lineup": lu, "problems": problems})
    return counts, failures


def _check(args):
    from handsim.games.hand.checker import check_deal
    from handsim.games.hand.rules import Rules
    from handsim.games.hand.trace import trace_deal

    seed, first, n = args[:3]
    only = args[3] if len(args) > 3 else None
    cs = cases()
    if only:
        cs = [c for c in cs if only in describe(c)]
    failures = []
    counts = {"deals": 0, "void": 0, "hand": 0, "reshuffles": 0, "swaps": 0, "layoffs": 0}
    rules_of = {}
    for d in range(first, first + n):
        key = d % len(cs)
        preset, ov, players, lu = case = cs[key]
        try:
            rules = rules_of.get(key)
            if rules is None:
                rules = rules_of[key] = Rules.preset(preset, **ov)
            tr = trace_deal(rules, lu, d, seed)
        except Exception as e:  # an engine error (or a case the engine cannot play yet) is a discrepancy too
            failures.append({"deal": d, "seed": seed, "case": describe(case), "preset": preset, "overrides": ov,
                             "lineup": lu, "problems": [repr(e)]})
            continue
        problems = check_deal(tr)
        counts["deals"] += 1
        counts["void"] += tr["result"]["void"]
        counts["hand"] += tr["result"]["hand"]
        for e in tr["events"]:
            t = e["type"]
            if t == "reshuffle":
                counts["reshuffles"] += 1
            elif t == "swap":
                counts["swaps"] += 1
            elif t == "layoff":
                counts["layoffs"] += 1
        if problems:
            failures.append({"deal": d, "seed": seed, "case": describe(case), "preset": preset, "overrides": ov,
                             "lineup": lu, "problems": problems, "trace": tr})
    return counts, failures


#: Russian Hand: every value of every option (RULES.md section 8) and line-ups of 2 to 5 players.
RUSSIAN_VARIANTS = [
    {}, {"stock_out_end": "last_card"}, {"first_round": "one_meld"}, {"first_round": "free"}, {"ace_value": 1},
    {"hand_size": 3}, {"hand_size": 12, "stock_out_end": "last_card"},
    {"first_round": "one_meld", "stock_out_end": "last_card", "ace_value": 1},
]
RUSSIAN_LINEUPS = {
    2: ["random,random", "greedy,random", "patient,greedy", "patient:hold_max=20,random"],
    3: ["random,random,random", "greedy,patient,random", "patient:hold_max=3,stock_min=10,greedy,greedy"],
    4: ["random,random,random,random", "greedy,greedy,greedy,greedy", "patient,random,greedy,patient:wary_at=3"],
    5: ["random,random,random,random,random", "greedy,patient,random,greedy,patient:hold_max=20"],
}


def russian_cases():
    """The (overrides, players, line-up) combinations of Russian Hand, cycled game by game."""
    return [(ov, players, lu) for ov in RUSSIAN_VARIANTS for players, lus in sorted(RUSSIAN_LINEUPS.items())
            for lu in lus]


def _russian_describe(case) -> str:
    ov, players, lu = case
    return f"russian {','.join(f'{k}={v}' for k, v in ov.items()) or 'preset'} {players}p {lu}"


def _check_russian(args):
    from handsim.games.russian.checker import check_deal
    from handsim.games.russian.rules import RussianRules
    from handsim.games.russian.trace import trace_deal

    seed, first, n, cs = _batch(args, russian_cases(), _russian_describe)
    failures = []
    counts = {"deals": 0, "stock_out": 0, "draws": 0, "plays": 0}
    rules_of = {}
    for d in range(first, first + n):
        key = d % len(cs)
        ov, players, lu = case = cs[key]
        try:
            rules = rules_of.get(key) or rules_of.setdefault(key, RussianRules.preset(**ov))
            tr = trace_deal(rules, lu, d, seed, players=players)
        except Exception as e:  # an engine error is a discrepancy too
            failures.append({"deal": d, "seed": seed, "case": _russian_describe(case), "preset": "russian",
                             "overrides": ov, "lineup": lu, "problems": [repr(e)]})
            continue
        problems = check_deal(tr)
        counts["deals"] += 1
        counts["stock_out"] += tr["result"]["end"] == "stock_out"
        counts["draws"] += bool(tr["result"]["draw"])
        counts["plays"] += sum(1 for e in tr["events"] if e["type"] == "play")
        if problems:
            failures.append({"deal": d, "seed": seed, "case": _russian_describe(case), "preset": "russian",
                             "overrides": ov, "lineup": lu, "problems": problems, "trace": tr})
    return counts, failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--failures", default="fuzz-failures.jsonl")
    ap.add_argument("--only", default=None, metavar="TEXT",
                    help="Play only the cases whose description contains TEXT, e.g. 'partnership' or 'support_hand'.")
    ap.add_argument("--game", choices=("hand", "russian", "elimination"), default="hand",
                    help="classic Hand (default), Russian Hand (RULES.md section 8), or classic Hand's elimination "
                         "matches (RULES.md section 7; --deals counts matches)")
    ap.add_argument("--preset", default=None, help="--preset russian is --game russian")
    args = ap.parse_args()
    russian = args.game == "russian" or (args.preset or "").lower() == "russian"
    elimination = args.game == "elimination"
    all_cases = ([_russian_describe(c) for c in russian_cases()] if russian else
                 [describe(c) for c in (elimination_cases() if elimination else cases())])
    check = _check_russian if russian else _check_elimination if elimination else _check

    if args.only and not any(args.only in c for c in all_cases):
        ap.error(f"--only {args.only!r} matches no case")
    t0 = time.perf_counter()
    batches = [(args.seed, s, min(args.batch, args.deals - s), args.only) for s in range(0, args.deals, args.batch)]
    total = ({"deals": 0, "stock_out": 0, "draws": 0, "plays": 0} if russian else
             {"deals": 0, "rounds": 0, "smaller_tables": 0, "hand": 0} if elimination else
             {"deals": 0, "void": 0, "hand": 0, "reshuffles": 0, "swaps": 0, "layoffs": 0})
    failures = []
    check((args.seed, 0, 1, args.only))  # compile before forking
    with worker_pool(args.jobs) as ex:  # (its workers end with it; Ctrl-C does not play every batch first)
        for i, (counts, fails) in enumerate(ex.map(check, batches)):
            for k, v in counts.items():
                total[k] += v
            failures.extend(fails)
            if (i + 1) % 20 == 0:
                print(f"{total['deals']} deals, {len(failures)} discrepancies", file=sys.stderr, flush=True)
    if failures:
        with open(args.failures, "w") as f:
            for x in failures:
                f.write(json.dumps(x) + "\n")
    total.update({
        "discrepancies": len(failures),
        "cases": sum(1 for c in all_cases if not args.only or args.only in c),
        "game": "russian" if russian else args.game,
        "seconds": round(time.perf_counter() - t0, 1),
        "seed": args.seed,
    })
    print(json.dumps(total, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
