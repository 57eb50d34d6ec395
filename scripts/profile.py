#!/usr/bin/env python
"""Where the engine's time goes: machine instructions per round and per kernel, by callgrind.

Plays ``--deals`` deals of one configuration and line-up (``handsim.simulate.run_chunk``, the
study's fast path) in a fresh interpreter under ``valgrind --tool=callgrind`` - compilation,
imports and the warm-up deal are left out of the count - and prints, as text or ``--json``:

* instructions and mispredicted branches (callgrind's branch simulator) per round and per turn:
  exact and independent of the machine's load, the figures to compare micro-optimisations by;
* an estimate of the cycles, instructions + 15 per mispredicted branch (cache misses are not
  counted: the state of a table fits in the first-level cache), shared out by part of a turn: the draw decision (its arrangement searches apart), the
  play (searches; lay-offs; joker swaps; the discard choice; other planning), and the engine's
  own bookkeeping (dealing, drawing, discarding, scoring, the per-deal records);
* the arrangement searches: how many, per turn, per draw decision and per play, and their
  average cost;
* the 25 kernels that execute the most instructions themselves (all their numba
  specialisations together; a function that numba or LLVM inlined counts in its caller).

Numba's compiled code has no symbols valgrind can read, so the probe asks numba's JIT engine for
the address of every compiled function and the parts are read from callgrind's call contexts
(``--separate-callers``).  With ``--baseline REV`` a git revision is profiled the same way
(extracted as by ``scripts/bench.py``) and the ratios of instructions per round are printed.
Needs valgrind; callgrind runs the kernels 50-100x slower, so 200 deals take a minute or two.

Usage::

    python scripts/profile.py                                      # classic, 4 x greedy, 200 deals
    python scripts/profile.py --lineup hold-hand,greedy,greedy,greedy --baseline 2d48880
    python scripts/profile.py --preset qahwa --json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench import ROOT, Tree, baseline_tree, parse_sets  # noqa: E402

#: Runs under valgrind (and once before it, to compile): plays the deals once callgrind's
#: instrumentation is switched on, after writing the addresses of the compiled functions.
_PROBE = r"""
import json, os, re, sys, time
args = json.loads(sys.argv[1])
import numpy as np
from handsim.games.hand.rules import PARAM_BY_NAME, Rules
from handsim.policies import lineup_arrays, parse_lineup
from handsim.simulate import run_chunk
rules = Rules.preset(args["preset"])
for k, v in args["set"].items():
    rules = rules.replace(**{k: PARAM_BY_NAME[k].coerce(v)})
rv = rules.to_vector()
pol, pp = lineup_arrays(parse_lineup(args["lineup"]))
P = len(pol)
run_chunk(rv, pol, pp, P, args["seed"], 0, 1)
ready = args.get("ready")
if not ready:
    sys.exit(0)
from numba.core.registry import cpu_target
eng = cpu_target.target_context.codegen()._engine
names = {}
for sym in eng._defined_symbols:
    m = re.match(r"_ZN(?:7cpython)?((?:\d+[A-Za-z_]\w*?)+)B\d+v(\d+)", sym)
    if not m or sym.startswith("_ZN08NumbaEnv"):
        continue
    parts, rest = [], m.group(1)
    while rest:
        k = re.match(r"\d+", rest).group(0)
        parts.append(rest[len(k):len(k) + int(k)])
        rest = rest[len(k) + int(k):]
    names[hex(eng.get_function_address(sym))] = ".".join(parts[-2:])
with open(ready + ".syms", "w") as f:
    json.dump(names, f)
open(ready, "w").close()
while os.path.exists(ready):  # callgrind_control switches the instrumentation on
    time.sleep(0.02)
out = run_chunk(rv, pol, pp, P, args["seed"], 1000, args["deals"])
print(json.dumps({"rounds": args["deals"], "turns": int(out["turns"].sum())}), flush=True)
os._exit(0)
"""

#: Cycles a mispredicted branch costs in the estimate (a typical x86-64 figure).
MISPREDICT = 15

#: Parts of a turn, by the functions on the call chain (innermost first); the first that
#: matches names the part.
SEARCH = ("arrange.search", "arrange.search_bits", "arrange.search_kept", "arrange._choose", "arrange._search_stack",
          "arrange.can_meld", "arrange.drop_isolated", "arrange.hand_to_table", "arrange.hand_bits")
#: The search's entry points (a call of one of them from outside the search is one search).
SEARCH_ENTRIES = ("arrange.search", "arrange.search_bits", "arrange.search_kept")


def _part(chain: list[str]) -> str:
    """The part of a turn that a function with call chain ``chain`` (itself first) works for."""
    names = [c for c in chain if c]
    insearch = any(n in SEARCH for n in names)
    for n in names:
        fn = n.split(".")[-1]
        if fn == "do_layoffs" or fn == "lay_off":
            return "play: lay-offs"
        if fn == "do_swaps" or fn == "swap_joker":
            return "play: joker swaps"
        if fn.endswith("choose_discard") or fn == "random_discard":
            return "play: discard choice"
        if fn == "choose_draw" or fn.endswith("_choose_draw"):
            return "draw decision: searches" if insearch else "draw decision: other"
        if fn == "play" or fn.endswith("_play") and not fn.startswith("play_"):
            return "play: searches" if insearch else "play: other planning"
    for n in names:
        fn = n.split(".")[-1]
        if fn in ("play_turn", "play_dealt_round", "play_round", "reset_round", "play_deals", "_write_deal",
                  "_deal_setup", "new_game", "deal_from_deck", "shuffle"):
            return "engine bookkeeping"
    return "other (outside the kernels)"


#: Functions whose calls are counted (per round): the sampler's decisions, its simulated
#: continuations (one ``_finish`` per rollout) and table copies.
COUNTED = ("sampler.draw_decision", "sampler.play_turn", "sampler._finish", "api.copy_table", "api.deal_unseen",
           "card_reader.draw_decision", "card_reader.choose_discard")

#: What the kernels work on, whatever the decision (innermost function first; the first that
#: matches names the task): the card-reader's and the sampler's turns split by kind of work.
TASKS = (
    ("arrangement searches", SEARCH + ("state.hand_search_above", "state.hand_search", "arrange.meldable")),
    ("live outs (partial melds, chances)", ("card_reader.card_partial", "card_reader.partial_of", "card_reader.partials",
                                           "card_reader.partials_of", "card_reader.chance_table",
                                           "card_reader._run_partial", "__ieee754_pow_fma", "__pow")),
    ("revaluation (a hand's value without a card)", ("card_reader.terms_without", "card_reader.leftover_terms",
                                                    "card_reader.leftover_value", "card_reader.points_of")),
    ("unseen cards", ("api.unseen_cards", "api.seen_cards", "card_reader._unseen")),
    ("feed risk", ("card_reader.feed_risk",)),
    ("lay-off and table lookups", ("state.first_layoff_meld", "state.layoff_position", "state.first_swap_meld",
                                   "greedy.do_layoffs", "state.lay_off")),
    ("table copies and dealing the unseen cards", ("api.copy_table", "api.new_table", "api.deal_unseen",
                                                   "sampler._seat_rollout")),
    ("memory allocation", ("malloc", "free", "_int_free", "_int_malloc", "NRT_MemInfo_alloc_aligned",
                           "NRT_MemInfo_call_dtor", "NRT_Allocate", "NRT_Free", "NRT_decref", "NRT_incref",
                           "__memset_avx2_unaligned_erms", "cfree", "_int_malloc", "malloc_consolidate")),
)


def _task(chain: list[str], ctx_name: str) -> str:
    """The task (:data:`TASKS`) a function with call chain ``chain`` (itself first) works on."""
    # card-reader's counting moved to its own module (.counting): its functions keep their task
    names = [c.replace("counting.", "card_reader.") for c in chain if c]
    own = (chain[0] or ctx_name).replace("counting.", "card_reader.")
    for label, fns in TASKS:
        if own in fns or own.split(".")[-1] in fns:
            return label
    for n in names[1:]:
        for label, fns in TASKS:
            if n in fns:
                return label
    return "other (decisions' own code, moves, engine)"


class Profile:
    def __init__(self, cg_file: Path, syms: dict[int, str]):
        self.syms = syms
        self.names: dict[str, str] = {}
        self.self_cost: dict[str, int] = defaultdict(int)  # context -> instructions
        self.self_est: dict[str, int] = defaultdict(int)  # context -> estimated cycles
        self.events: list[str] = []
        self.calls: list[tuple[str, str, int]] = []  # (caller context, callee context, calls)
        self._read(cg_file)

    def _name(self, tok: str) -> str:
        m = re.match(r"\((\d+)\)(?: (.*))?", tok)
        if m:
            if m.group(2):
                self.names[m.group(1)] = m.group(2)
            return self.names[m.group(1)]
        return tok

    def chain(self, ctx: str) -> list[str]:
        """Function names of a context, innermost first (``None`` for non-kernel code)."""
        out = []
        for part in ctx.split("'"):
            m = re.match(r"0x0*([0-9a-f]+)$", part)
            out.append(self.syms.get(int(m.group(1), 16)) if m else None)
        return out

    def _read(self, path: Path) -> None:
        fn = cfn = None
        pending_calls = None
        with open(path) as f:
            for line in f:
                if line.startswith("events:"):
                    self.events = line.split()[1:]
                elif line.startswith("fn="):
                    fn = self._name(line[3:].strip())
                elif line.startswith("cfn="):
                    cfn = self._name(line[4:].strip())
                elif line.startswith("calls="):
                    pending_calls = int(line[6:].split()[0])
                elif line[:1].isdigit() or line[:1] in "+-*":
                    parts = line.split()
                    if len(parts) < 2:
                        continue
                    if pending_calls is not None:
                        self.calls.append((fn, cfn, pending_calls))
                        pending_calls = None
                    else:
                        ev = dict(zip(self.events, (int(x) for x in parts[1:])))
                        self.self_cost[fn] += ev.get("Ir", 0)
                        self.self_est[fn] += ev.get("Ir", 0) + MISPREDICT * (ev.get("Bcm", 0) + ev.get("Bim", 0))

    def summary(self, rounds: int, turns: int) -> dict:
        total = sum(self.self_cost.values())
        est = sum(self.self_est.values())
        parts: dict[str, int] = defaultdict(int)
        funcs: dict[str, int] = defaultdict(int)
        tasks: dict[str, int] = defaultdict(int)
        for ctx, c in self.self_est.items():
            ch = self.chain(ctx)
            parts[_part(ch)] += c
            funcs[ch[0] or ctx.split("'")[0]] += c
            tasks[_task(ch, ctx.split("'")[0])] += c
        # searches: calls into the search from outside it
        searches: dict[str, int] = defaultdict(int)
        for caller, callee, n in self.calls:
            ce = self.chain(callee)[0]
            cr = self.chain(caller)[0]
            if ce in SEARCH_ENTRIES and cr not in SEARCH:
                part = _part(self.chain(callee))
                searches[part.split(":")[0]] += n
        counted: dict[str, int] = defaultdict(int)
        for caller, callee, n in self.calls:
            ce = self.chain(callee)[0]
            if ce in COUNTED and self.chain(caller)[0] != ce:
                counted[ce] += n
        search_ir = parts["draw decision: searches"] + parts["play: searches"]  # estimated cycles
        nsearch = sum(searches.values())
        return {
            "rounds": rounds,
            "turns": turns,
            "instructions": total,
            "instructions_per_round": round(total / rounds),
            "instructions_per_turn": round(total / turns),
            "mispredicted_branches_per_round": round((est - total) / MISPREDICT / rounds),
            "parts_percent": {k: round(100 * v / est, 1) for k, v in sorted(parts.items(), key=lambda x: -x[1])},
            "tasks_percent": {k: round(100 * v / est, 1) for k, v in sorted(tasks.items(), key=lambda x: -x[1])},
            "searches": {
                "total": nsearch,
                "per_turn": round(nsearch / turns, 2),
                "in_draw_decisions_per_turn": round(searches.get("draw decision", 0) / turns, 2),
                "in_plays_per_turn": round(searches.get("play", 0) / turns, 2),
                "cost_per_search": round(search_ir / nsearch) if nsearch else None,
            },
            "calls_per_round": {k: round(v / rounds, 2) for k, v in sorted(counted.items())},
            "top_functions_percent": {k: round(100 * v / est, 1)
                                      for k, v in sorted(funcs.items(), key=lambda x: -x[1])[:25]},
        }


_CPU = r"""
import json, llvmlite.binding as ll
f = ll.get_host_cpu_features()
print(json.dumps([ll.get_host_cpu_name(), f.flatten() if hasattr(f, "flatten") else ""]))
"""


def valgrind_cpu() -> dict:
    """``NUMBA_CPU_NAME`` / ``NUMBA_CPU_FEATURES`` of the processor valgrind presents (it hides
    newer instruction sets such as AVX-512).  The warm-up compiles for it too, so the code
    profiled is the code compiled - and cached - outside valgrind, not a copy compiled under it."""
    out = subprocess.run(["valgrind", "-q", sys.executable, "-c", _CPU], capture_output=True, text=True, check=True)
    name, feats = json.loads(out.stdout.strip().splitlines()[-1])
    return {"NUMBA_CPU_NAME": name, "NUMBA_CPU_FEATURES": feats}


def profile(tree: Tree, probe: dict, cpu: dict) -> dict:
    env = {**tree.env(), **cpu}
    warm = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(probe)], env=env,
                          cwd=tempfile.gettempdir(), capture_output=True, text=True)  # compile outside valgrind
    if warm.returncode != 0:
        raise SystemExit(f"profile: the {tree.label} probe failed: {warm.stderr[-2000:]}")
    with tempfile.TemporaryDirectory() as d:
        ready = Path(d) / "ready"
        out = Path(d) / "callgrind.out"
        cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--branch-sim=yes", "--separate-callers=24",
               "--separate-recs=1", f"--callgrind-out-file={out}", sys.executable, "-c", _PROBE,
               json.dumps({**probe, "ready": str(ready)})]
        proc = subprocess.Popen(cmd, env=env, cwd=tempfile.gettempdir(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        import time

        while not ready.exists():
            if proc.poll() is not None:
                raise SystemExit(f"profile: the {tree.label} probe failed: {proc.stderr.read()[-2000:]}")
            time.sleep(0.2)
        subprocess.run(["callgrind_control", "-i", "on", str(proc.pid)], capture_output=True, check=True)
        syms = {int(a, 16): n for a, n in json.loads((Path(str(ready) + ".syms")).read_text()).items()}
        ready.unlink()
        stdout, stderr = proc.communicate()
        if proc.returncode != 0:
            raise SystemExit(f"profile: the {tree.label} probe failed: {stderr[-2000:]}")
        res = json.loads(stdout.strip().splitlines()[-1])
        return Profile(out, syms).summary(res["rounds"], res["turns"])


def _text(label: str, s: dict) -> str:
    lines = [f"{label}: {s['instructions_per_round']:,} instructions per round, {s['instructions_per_turn']:,} per turn, "
             f"{s['mispredicted_branches_per_round']:,} mispredicted branches per round "
             f"({s['rounds']} rounds, {s['turns']} turns)",
             f"  parts of a turn (% of estimated cycles: instructions + {MISPREDICT} per mispredicted branch):"]
    lines += [f"    {v:5.1f}  {k}" for k, v in s["parts_percent"].items()]
    lines.append("  by task, whatever the decision (% of estimated cycles):")
    lines += [f"    {v:5.1f}  {k}" for k, v in s["tasks_percent"].items()]
    se = s["searches"]
    lines.append(f"  arrangement searches: {se['per_turn']} per turn ({se['in_draw_decisions_per_turn']} in draw "
                 f"decisions, {se['in_plays_per_turn']} in plays), about {se['cost_per_search']:,} cycles each"
                 if se["total"] else "  arrangement searches: none")
    if s["calls_per_round"]:
        lines.append("  calls per round: " + ", ".join(f"{k} {v:,}" for k, v in s["calls_per_round"].items()))
    lines.append("  kernels by their own estimated cycles (%):")
    lines += [f"    {v:5.1f}  {k}" for k, v in s["top_functions_percent"].items()]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    ap.add_argument("--deals", type=int, default=200, help="deals played under callgrind (default 200)")
    ap.add_argument("--lineup", default="greedy,greedy,greedy,greedy", help="line-up P1,P2,... (default 4 x greedy)")
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="rule override (repeatable)")
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--baseline", metavar="REV", help="also profile git revision REV and print ratios")
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args()
    if not shutil.which("valgrind") or not shutil.which("callgrind_control"):
        raise SystemExit("profile: needs valgrind (callgrind) on PATH")
    sets = parse_sets(ap, args.set)
    probe = {"preset": args.preset, "set": sets, "lineup": args.lineup, "deals": args.deals, "seed": args.seed}
    result = {"preset": args.preset, "set": sets, "lineup": args.lineup}
    cpu = valgrind_cpu()
    result["cpu"] = cpu["NUMBA_CPU_NAME"]
    result["current"] = profile(Tree("current", ROOT, None), probe, cpu)
    if args.baseline:
        b = baseline_tree(args.baseline)
        result["baseline"] = {"rev": args.baseline, **profile(b, probe, cpu)}
        result["ratio_instructions_per_round"] = round(
            result["baseline"]["instructions_per_round"] / result["current"]["instructions_per_round"], 3)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(_text("current", result["current"]))
    if args.baseline:
        print()
        print(_text(f"baseline {args.baseline}", result["baseline"]))
        print(f"\nbaseline / current instructions per round: {result['ratio_instructions_per_round']}")


if __name__ == "__main__":
    main()
