#!/usr/bin/env python
"""Golden move logs: "same deals, same play" as a test (``tests/test_golden.py``).

For every case below (a preset or a rule variant, a number of players and a line-up) the first
``deals`` deals of seed ``seed`` are played with the move log on, and each deal's log is written
in a compact text form (one token per event, see :func:`compact`) to
``tests/golden/moves.jsonl.gz``; the same deals played by the fast path (``run_chunk``: per-deal
scores, flags, turns, void, reshuffles) and a few match chunks (``run_match_chunk``) go to
``tests/golden/chunks.json.gz``.  Every built-in policy plays in them (``sampler`` and ``searcher`` with few
samples), ``hold-hand`` and ``card-reader`` also at non-default settings and ``greedy:support_hand=1`` in 2 v 2, with 2, 3 and 4 players.

Any change of play shows up as a difference.  An intended change is reviewed with::

    python scripts/golden.py --check     # which deals changed, and each one's first differing event
    python scripts/golden.py --write     # regenerate the files (say so in the commit message)

``--check`` exits 1 when anything differs.  ``--only TEXT`` limits either to the cases whose name
contains TEXT.  ``--game russian`` (or ``--preset russian``) does the same for Russian Hand
(RULES.md section 8; ``tests/golden/russian_*.gz``, ``tests/test_russian_golden.py``): each of
its options' variants with 2 to 5 players and every built-in policy.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GOLDEN = ROOT / "tests" / "golden"
MOVES = GOLDEN / "moves.jsonl.gz"
CHUNKS = GOLDEN / "chunks.json.gz"

#: Rule variants: every preset, and options that change what the policies do.
VARIANTS = {
    "classic": ("classic", {}),
    "saudi": ("saudi", {}),
    "qahwa": ("qahwa", {}),
    "partnership": ("partnership", {}),
    "partnership-team": ("partnership", {"opening_scope": "team", "go_out_requires_discard": True}),
    "t91": ("classic", {"opening_threshold": 91}),
    "discard-out": ("classic", {"go_out_requires_discard": True}),
    "new-meld-only": ("classic", {"discard_pickup": "new_meld_only"}),
}

#: Line-ups for single players, by number of players.
SINGLE_LINEUPS = {
    4: ["greedy,greedy,greedy,greedy",
        "hold-hand,greedy,greedy,greedy",
        "hold-hand:bail_turn=6,bail_opponent_cards=2,greedy,hold-hand:bail_turn=1000,bail_opponent_cards=0,greedy",
        "random,random,random,random",
        "hold-hand,random,greedy,random"],
    3: ["greedy,hold-hand,random"],
    2: ["greedy,greedy", "hold-hand,random"],
}
#: 2 v 2 line-ups (positions 1 & 3 against 2 & 4).
TEAM_LINEUPS = ["greedy,greedy,greedy,greedy",
                "hold-hand,greedy,greedy:support_hand=1,greedy",
                "hold-hand:bail_turn=15,random,greedy:support_hand=1,hold-hand",
                "random,random,random,random"]

#: Line-ups of the players and options added since the files were first written: their cases
#: come after all the others, so that every earlier case keeps its seed (a case's seed follows
#: from its place in the list).  Single players by number of players, and 2 v 2.
ADDED_SINGLE_LINEUPS = {
    4: ["hold-hand:distance_turn=3,max_distance=2,greedy,hold-hand:distance_turn=6,max_distance=0,greedy"],
}
ADDED_TEAM_LINEUPS: list[str] = []
#: The card-counting and the sampling player (issue 8), after the cases above for the same reason.
PLAYERS_SINGLE_LINEUPS = {
    4: ["card-reader,greedy,greedy,greedy",
        "card-reader:joker_play=0,card-reader:joker_play=2,joker_turn=3,hold-hand,random",
        "sampler:samples=2,candidates=2,card-reader,greedy,card-reader"],
    3: ["card-reader,greedy,random"],
    2: ["card-reader,card-reader:joker_play=0,feed_weight=0", "sampler:samples=2,rollout=1,card-reader"],
}
PLAYERS_TEAM_LINEUPS = ["card-reader,greedy,card-reader,greedy",
                        "sampler:samples=2,candidates=2,card-reader,card-reader,card-reader"]

#: The rule options of issue 27 (VARIANTS.md "New options"), one case each where play or score
#: differs from the defaults: ``(name, preset, overrides, players, line-up)``, after every case
#: above for the same reason.
OPTION_CASES = [
    ("scores", "classic", {"out_score": -50, "hand_score": -150, "unopened_points": 200}, 4,
     "card-reader,greedy,hold-hand,card-reader"),
    ("ascending-0", "saudi", {"ascending_increment": 0}, 4, "greedy,card-reader,greedy,random"),
    ("waived-hand", "classic", {"hand_waives_threshold": True, "opening_threshold": 71}, 3,
     "hold-hand,greedy,card-reader"),
    ("hand71", "hand71", {}, 4, "card-reader,hold-hand,greedy,sampler:samples=2,candidates=2"),
    ("fill-set", "classic", {"set_joker_swap": "fill_set"}, 3, "greedy,card-reader,hold-hand"),
    ("jawaker-saudi", "jawaker_saudi", {}, 4, "card-reader,greedy,hold-hand,random"),
    ("levant", "levant", {}, 3, "card-reader,hold-hand,greedy"),
    ("kuwait", "kuwait", {}, 4, "hold-hand,card-reader,greedy,card-reader"),
    ("ace-10", "classic", {"ace_value": 10}, 4, "card-reader,greedy,hold-hand,random"),
    ("max-run-5", "classic", {"max_run_length": 5}, 4, "card-reader,greedy,random,hold-hand"),
    ("must-open-using", "classic", {"discard_pickup": "must_open_using"}, 4, "greedy,card-reader,hold-hand,random"),
    ("opening-needs-pickup", "classic", {"opening_requires_discard_pickup": True}, 4,
     "card-reader,random,greedy,hold-hand"),
    ("konkan", "konkan", {}, 3, "card-reader,greedy,hold-hand"),
]

#: The searching player (issue 21), after every case above for the same reason, on fewer deals (it
#: is slow): classic, saudi, qahwa and 2 v 2, its plans, elimination, both rollouts and its worlds models.
SEARCHER_CASES = [
    ("classic", "classic", {}, 4, "searcher:worlds=4,card-reader,greedy,card-reader"),
    ("saudi", "saudi", {}, 3, "searcher:worlds=2,rollout=1,card-reader,hold-hand"),
    ("qahwa", "qahwa", {}, 2, "searcher:worlds=4,candidates=2,card-reader"),
    ("partnership", "partnership", {}, 4, "searcher:worlds=2,card-reader,searcher:worlds=2,plans=0,greedy"),
    # its worlds models (plausible, all-seeing), added after the four above
    ("classic", "classic", {}, 4, "searcher:worlds=4,worlds_model=1,card-reader,greedy,card-reader"),
    ("saudi", "saudi", {}, 3, "searcher:worlds=2,worlds_model=2,card-reader,hold-hand"),
    ("partnership", "partnership", {}, 4,
     "searcher:worlds=2,worlds_model=1,card-reader,searcher:worlds=2,worlds_model=2,greedy"),
]
SEARCHER_DEALS = 12
#: Five single players (VARIANTS.md #1), after every case above for the same reason: classic and the
#: two presets whose sources seat five (Jawaker's Saudi Hand, Kuwait's by_players decks).
FIVE_CASES = [
    ("five", "classic", {}, 5, "card-reader,greedy,hold-hand,random,greedy"),
    ("five-jawaker-saudi", "jawaker_saudi", {}, 5, "card-reader,hold-hand,greedy,card-reader,random"),
    ("five-kuwait", "kuwait", {}, 5, "hold-hand,card-reader,greedy,random,card-reader"),
]
#: Russian Hand (RULES.md §8, ``--game russian``): its options' variants and line-ups (every
#: built-in policy, 2 to 5 players), in files of their own.
RUSSIAN_MOVES = GOLDEN / "russian_moves.jsonl.gz"
RUSSIAN_CHUNKS = GOLDEN / "russian_chunks.json.gz"
RUSSIAN_VARIANTS = {
    "russian": {},
    "last-card": {"stock_out_end": "last_card"},
    "one-meld": {"first_round": "one_meld"},
    "free": {"first_round": "free"},
    "ace1-hand9": {"ace_value": 1, "hand_size": 9},
}
RUSSIAN_LINEUPS = {
    5: ["greedy,patient,random,greedy,patient:hold_max=2,stock_min=30"],
    4: ["greedy,greedy,greedy,greedy", "patient,greedy,random,patient:hold_max=3,wary_at=3"],
    3: ["random,random,random"],
    2: ["greedy,patient", "random,greedy"],
}
#: Games that end on an empty stock (players who never play unless they go out), both readings.
RUSSIAN_STOCK_OUT = [
    ("stock-out-last-card", {"hand_size": 20, "stock_out_end": "last_card"}, ",".join(["patient:hold_max=20"] * 4)),
    ("stock-out-must-draw", {"hand_size": 12}, ",".join(["patient:hold_max=20"] * 5)),
]
RUSSIAN_DEALS = 20  # per case
RUSSIAN_SEED = 80

DEALS = 120  # per case
SEED = 20240
MATCHES = 12  # per match case


def cases() -> list[dict]:
    """Every golden case: ``name``, ``preset``, ``overrides``, ``players``, ``lineup``, ``deals``, ``seed``."""
    out = []
    for single, team_lineups in ((SINGLE_LINEUPS, TEAM_LINEUPS), (ADDED_SINGLE_LINEUPS, ADDED_TEAM_LINEUPS),
                                 (PLAYERS_SINGLE_LINEUPS, PLAYERS_TEAM_LINEUPS)):
        for vname, (preset, ov) in VARIANTS.items():
            team = preset == "partnership" or ov.get("partnership")
            groups = [(4, team_lineups)] if team else sorted(single.items(), reverse=True)
            for players, lineups in groups:
                for lu in lineups:
                    out.append({"name": f"{vname}/{players}p/{lu}", "preset": preset, "overrides": ov,
                                "players": players, "lineup": lu, "deals": DEALS, "seed": SEED + 17 * len(out)})
    for vname, preset, ov, players, lu in OPTION_CASES:
        out.append({"name": f"{vname}/{players}p/{lu}", "preset": preset, "overrides": ov,
                    "players": players, "lineup": lu, "deals": DEALS, "seed": SEED + 17 * len(out)})
    for k, (vname, preset, ov, players, lu) in enumerate(SEARCHER_CASES):
        # seeds of their own (where the 106 cases before them put them), so that option cases added
        # later do not move them
        out.append({"name": f"{vname}/{players}p/{lu}", "preset": preset, "overrides": ov,
                    "players": players, "lineup": lu, "deals": SEARCHER_DEALS, "seed": SEED + 17 * (106 + k)})
    for k, (vname, preset, ov, players, lu) in enumerate(FIVE_CASES):
        out.append({"name": f"{vname}/{players}p/{lu}", "preset": preset, "overrides": ov,
                    "players": players, "lineup": lu, "deals": DEALS, "seed": SEED + 17 * (200 + k)})
    return out


def match_cases() -> list[dict]:
    """Match chunks (RULES.md section 7): lowest-wins, last-loses, 2 v 2 and elimination."""
    return [
        {"name": "match/classic/4p/hold-hand,greedy,greedy,greedy", "preset": "classic", "overrides": {"rounds": 5},
         "players": 4, "lineup": "hold-hand,greedy,greedy,greedy", "deals": MATCHES, "seed": 5},
        {"name": "match/classic-last-loses/3p/greedy,random,hold-hand", "preset": "classic",
         "overrides": {"rounds": 3, "standings": "last_loses"}, "players": 3, "lineup": "greedy,random,hold-hand",
         "deals": MATCHES, "seed": 6},
        {"name": "match/partnership/4p/hold-hand,greedy,greedy:support_hand=1,greedy", "preset": "partnership",
         "overrides": {"rounds": 3}, "players": 4, "lineup": "hold-hand,greedy,greedy:support_hand=1,greedy",
         "deals": MATCHES, "seed": 7},
        # issue 27: dealer_rotation = highest_scorer (the levant preset)
        {"name": "match/levant/4p/card-reader,greedy,hold-hand,greedy", "preset": "levant", "overrides": {"rounds": 4},
         "players": 4, "lineup": "card-reader,greedy,hold-hand,greedy", "deals": MATCHES, "seed": 8},
        # issue 27: elimination_score (KN's 301), played by play_elimination_matches
        {"name": "elimination/classic-301/4p/hold-hand,greedy,random,card-reader", "preset": "classic",
         "overrides": {"elimination_score": 301}, "players": 4, "lineup": "hold-hand,greedy,random,card-reader",
         "deals": MATCHES, "seed": 9},
        # five single players (VARIANTS.md #1): a match of fixed rounds and an elimination match
        {"name": "match/classic/5p/card-reader,greedy,hold-hand,random,greedy", "preset": "classic",
         "overrides": {"rounds": 5}, "players": 5, "lineup": "card-reader,greedy,hold-hand,random,greedy",
         "deals": MATCHES, "seed": 10},
        {"name": "elimination/classic-201/5p/greedy,card-reader,random,hold-hand,greedy", "preset": "classic",
         "overrides": {"elimination_score": 201}, "players": 5, "lineup": "greedy,card-reader,random,hold-hand,greedy",
         "deals": MATCHES, "seed": 11},
    ]


def _rules(case):
    from handsim.games.hand.rules import Rules

    return Rules.preset(case["preset"], **case["overrides"])


def compact(events: list[dict]) -> str:
    """A move log as one line of tokens (the seat of a draw, meld, ... is the seat of its turn).

    ``T<seat>`` turn, ``d<card>`` draw from the stock, ``p<card>`` take the top discard,
    ``M<r|s>:<card>[=<stands for>],...`` new meld, ``L<meld>:<card>=<stands for>`` lay-off,
    ``S<meld>:<card>=<stands for>`` joker swap, ``x<card>`` discard, ``R:<card>,...`` reshuffle
    (new stock, top first), ``O`` out (``OH``: a Hand), ``V`` void.
    """
    toks = []
    for e in events:
        t = e["type"]
        if t == "turn":
            toks.append(f"T{e['seat']}")
        elif t == "draw":
            toks.append(("d" if e["source"] == "stock" else "p") + e["card"])
        elif t == "meld":
            cards = ",".join(c if c == sf else f"{c}={sf}" for c, sf in e["cards"])
            toks.append(f"M{e['kind'][0]}:{cards}")
        elif t == "layoff":
            toks.append(f"L{e['meld']}:{e['card']}={e['stands_for']}")
        elif t == "swap":
            toks.append(f"S{e['meld']}:{e['card']}={e['stands_for']}")
        elif t == "discard":
            toks.append("x" + e["card"])
        elif t == "reshuffle":
            toks.append("R:" + ",".join(e["stock"]))
        elif t == "out":
            toks.append("OH" if e["hand"] else "O")
        elif t == "void":
            toks.append("V")
        else:
            raise ValueError(f"unknown event {e!r}")
    return " ".join(toks)


def result_text(res: dict) -> str:
    opened = "".join("1" if o else "0" for o in res["opened"])
    return (f"out={res['out']} hand={int(res['hand'])} void={int(res['void'])} turns={res['turns']} "
            f"opened={opened} scores={','.join(str(s) for s in res['scores'])}")


def play_case(case, lineup=None) -> list[dict]:
    """The golden rows of one case: one dict per deal (``lineup`` replaces the case's, e.g. with
    a user policy playing a built-in's seats)."""
    from handsim.games.hand.trace import trace_deal

    rules = _rules(case)
    rows = []
    for d in range(case["deals"]):
        tr = trace_deal(rules, lineup or case["lineup"], d, case["seed"], players=case["players"])
        rows.append({"case": case["name"], "deal": d, "dealer": tr["dealer"], "log": compact(tr["events"]),
                     "result": result_text(tr["result"])})
    return rows


def chunk_case(case) -> dict:
    """Per-deal fast-path outputs of one case (lists, by deal)."""
    from handsim.policies import lineup_arrays, parse_lineup
    from handsim.simulate import run_chunk, run_match_chunk

    rules = _rules(case)
    if case["name"].startswith("elimination/"):
        from handsim.games.hand.elimination import run_elimination_chunk

        out = run_elimination_chunk(rules, parse_lineup(case["lineup"]), case["seed"], 0, case["deals"])
        return {k: v.tolist() for k, v in sorted(out.items())}
    pol, pp = lineup_arrays(parse_lineup(case["lineup"]))
    fn = run_match_chunk if case["name"].startswith("match/") else run_chunk
    out = fn(rules.to_vector(), pol, pp, case["players"], case["seed"], 0, case["deals"])
    return {k: v.tolist() for k, v in sorted(out.items())}


def compute(only: str | None = None, game: str = "hand") -> tuple[list[dict], dict]:
    """The golden rows and chunks of every case of ``game`` whose name contains ``only``."""
    moves, chunks = [], {}
    g = GAMES[game]
    for case in g["cases"]():
        if only and only not in case["name"]:
            continue
        moves += g["play"](case)
        chunks[case["name"]] = g["chunk"](case)
    for case in g["match_cases"]():
        if only and only not in case["name"]:
            continue
        chunks[case["name"]] = chunk_case(case)
    return moves, chunks


def russian_cases() -> list[dict]:
    """Every Russian Hand golden case: ``name``, ``overrides``, ``players``, ``lineup``, ``deals``, ``seed``."""
    out = []
    for vname, ov in RUSSIAN_VARIANTS.items():
        for players, lineups in sorted(RUSSIAN_LINEUPS.items(), reverse=True):
            for lu in lineups:
                out.append({"name": f"russian/{vname}/{players}p/{lu}", "overrides": ov, "players": players,
                            "lineup": lu, "deals": RUSSIAN_DEALS, "seed": RUSSIAN_SEED + 13 * len(out)})
    for vname, ov, lu in RUSSIAN_STOCK_OUT:
        players = len(lu.split(","))
        out.append({"name": f"russian/{vname}/{players}p/{lu}", "overrides": ov, "players": players,
                    "lineup": lu, "deals": RUSSIAN_DEALS, "seed": RUSSIAN_SEED + 13 * len(out)})
    return out


def russian_compact(events: list[dict]) -> str:
    """A Russian Hand move log as one line of tokens: ``T<seat>`` turn, ``d<card>`` draw,
    ``P<card>,...=<meld>/<meld>/...`` a play (the cards played, then the whole table after it,
    each meld's cards run together), ``E`` the stock is empty and the game ends, ``O`` out."""
    toks = []
    for e in events:
        t = e["type"]
        if t == "turn":
            toks.append(f"T{e['seat']}")
        elif t == "draw":
            toks.append("d" + e["card"])
        elif t == "play":
            toks.append("P" + ",".join(e["cards"]) + "=" + "/".join("".join(m) for m in e["table_after"]))
        elif t == "stock_out":
            toks.append("E")
        elif t == "out":
            toks.append("O")
        else:
            raise ValueError(f"unknown event {e!r}")
    return " ".join(toks)


def russian_result_text(res: dict) -> str:
    return (f"end={res['end']} winner={res['winner']} draw={int(res['draw'])} turns={res['turns']} "
            f"cards={','.join(map(str, res['cards_left']))} value={','.join(map(str, res['value_left']))}")


def _russian_rules(case):
    from handsim.games.russian.rules import RussianRules

    return RussianRules.preset(**case["overrides"])


def russian_play_case(case) -> list[dict]:
    """The golden rows of one Russian Hand case: one dict per game."""
    from handsim.games.russian.trace import trace_deal

    rules = _russian_rules(case)
    rows = []
    for d in range(case["deals"]):
        tr = trace_deal(rules, case["lineup"], d, case["seed"], players=case["players"])
        rows.append({"case": case["name"], "deal": d, "dealer": None, "log": russian_compact(tr["events"]),
                     "result": russian_result_text(tr["result"])})
    return rows


def russian_chunk_case(case) -> dict:
    """Per-game fast-path outputs of one Russian Hand case (lists, by game)."""
    from handsim.games.russian.game import GAME
    from handsim.policies import lineup_arrays, parse_lineup

    pol, pp = lineup_arrays(parse_lineup(case["lineup"], game="russian"))
    out = GAME.run_chunk(_russian_rules(case).to_vector(), pol, pp, case["players"], case["seed"], 0, case["deals"])
    return {k: v.tolist() for k, v in sorted(out.items())}


#: Each game's golden cases, how one is played (move log, fast path), its match cases and its files.
GAMES = {
    "hand": {"cases": cases, "play": play_case, "chunk": chunk_case, "match_cases": match_cases,
             "files": (MOVES, CHUNKS)},
    "russian": {"cases": russian_cases, "play": russian_play_case, "chunk": russian_chunk_case,
                "match_cases": lambda: [], "files": (RUSSIAN_MOVES, RUSSIAN_CHUNKS)},
}


def load(game: str = "hand") -> tuple[list[dict], dict]:
    moves_path, chunks_path = GAMES[game]["files"]
    with gzip.open(moves_path, "rt", encoding="utf-8") as f:
        moves = [json.loads(line) for line in f if line.strip()]
    with gzip.open(chunks_path, "rt", encoding="utf-8") as f:
        chunks = json.load(f)
    return moves, chunks


def write(moves: list[dict], chunks: dict, game: str = "hand") -> None:
    moves_path, chunks_path = GAMES[game]["files"]
    GOLDEN.mkdir(parents=True, exist_ok=True)
    # mtime=0: the same content gives the same bytes
    with open(moves_path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        for row in moves:
            f.write((json.dumps(row, sort_keys=True) + "\n").encode("utf-8"))
    with open(chunks_path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        f.write(json.dumps(chunks, sort_keys=True, separators=(",", ":")).encode("utf-8"))


def first_difference(a: str, b: str) -> str:
    """Where two compact logs part: the event number, the turn, and the two tokens."""
    ta, tb = a.split(" "), b.split(" ")
    turn = 0
    for i, (x, y) in enumerate(zip(ta, tb)):
        if x.startswith("T"):
            turn += 1
        if x != y:
            return f"event {i + 1} (turn {turn}): golden {x[:80]!r}, now {y[:80]!r}"
    if len(ta) != len(tb):
        i = min(len(ta), len(tb))
        return (f"event {i + 1}: golden {'ends' if len(ta) < len(tb) else repr(ta[i][:80])}, "
                f"now {'ends' if len(tb) < len(ta) else repr(tb[i][:80])}")
    return "same events"


def diff_moves(golden: list[dict], now: list[dict]) -> list[str]:
    """One line per deal whose log or result differs (and per deal missing on either side)."""
    key = lambda r: (r["case"], r["deal"])  # noqa: E731
    g = {key(r): r for r in golden}
    n = {key(r): r for r in now}
    lines = []
    for k in sorted(set(g) | set(n)):
        a, b = g.get(k), n.get(k)
        where = f"{k[0]} deal {k[1]}"
        if a is None:
            lines.append(f"{where}: new (not in the golden file)")
        elif b is None:
            lines.append(f"{where}: missing now")
        elif a["log"] != b["log"]:
            lines.append(f"{where}: {first_difference(a['log'], b['log'])}")
        elif a["result"] != b["result"] or a["dealer"] != b["dealer"]:
            lines.append(f"{where}: same moves, result golden {a['result']!r}, now {b['result']!r}")
    return lines


def diff_chunks(golden: dict, now: dict) -> list[str]:
    lines = []
    for name in sorted(set(golden) | set(now)):
        a, b = golden.get(name), now.get(name)
        if a is None or b is None:
            lines.append(f"{name}: {'new' if a is None else 'missing now'}")
            continue
        for field in sorted(set(a) | set(b)):
            x, y = a.get(field), b.get(field)
            if x == y:
                continue
            if x is None or y is None or len(x) != len(y):
                lines.append(f"{name} {field}: shape changed")
                continue
            rows = [i for i, (u, v) in enumerate(zip(x, y)) if u != v]
            lines.append(f"{name} {field}: rows {rows[:10]}{' ...' if len(rows) > 10 else ''} differ "
                         f"(first: golden {x[rows[0]]}, now {y[rows[0]]})")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true", help="compare the engine with the golden files (exit 1 if they differ)")
    g.add_argument("--write", action="store_true", help="regenerate the golden files")
    ap.add_argument("--only", metavar="TEXT", help="only the cases whose name contains TEXT")
    ap.add_argument("--game", choices=tuple(GAMES), default="hand",
                    help="classic Hand (moves.jsonl.gz, chunks.json.gz) or Russian Hand (russian_*.gz)  [default: hand]")
    ap.add_argument("--preset", default=None, help="--preset russian is --game russian")
    args = ap.parse_args()
    game = "russian" if args.preset == "russian" else args.game

    moves, chunks = compute(args.only, game)
    if args.write:
        if args.only and GAMES[game]["files"][0].exists():  # rewrite only those cases
            old_moves, old_chunks = load(game)
            moves = [r for r in old_moves if args.only not in r["case"]] + moves
            old_chunks.update(chunks)
            chunks = old_chunks
        write(moves, chunks, game)
        print(f"wrote {len(moves)} deals of {len({r['case'] for r in moves})} cases and "
              f"{len(chunks)} chunk cases to {os.path.relpath(GOLDEN)}")
        return 0
    old_moves, old_chunks = load(game)
    if args.only:
        old_moves = [r for r in old_moves if args.only in r["case"]]
        old_chunks = {k: v for k, v in old_chunks.items() if args.only in k}
    lines = diff_moves(old_moves, moves) + diff_chunks(old_chunks, chunks)
    for line in lines:
        print(line)
    changed = len({ln.split(" deal ")[0] for ln in lines})
    print(f"{len(moves)} deals, {len(chunks)} chunk cases checked: "
          + (f"{len(lines)} differences in {changed} cases" if lines else "identical"))
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
