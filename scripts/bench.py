#!/usr/bin/env python
"""Speed of the simulator, printed as JSON (rounds/s = rounds played per second of wall time).

Every figure is measured in a fresh interpreter playing a study through the public driver
(``handsim.simulate.make_spec`` + ``run_study``; compilation excluded, statistics included):

* ``one_core_rounds_per_s``: the study played in one process (``jobs = 1``), median of ``--repeat``;
* ``all_cores_rounds_per_s``: the same study over ``--jobs`` worker processes, and ``scaling``
  (all cores / one core);
* ``first_result_cold_s``: a fresh interpreter with an empty compilation cache playing one deal
  (compilation included) - what a new install pays once; ``first_result_warm_s``: the same with
  the cache filled (every later run; measured on a second run, after one that fills the cache);
* ``peak_rss_mb``: the largest resident memory of a one-core measurement.

With ``--baseline REV`` the same measurements are made, alternately (A B A B ...), on a second
copy of the code taken from git revision ``REV`` (extracted into a temporary folder with its own
compilation cache, kept under ``~/.cache/handsim-bench`` so a second call does not compile it
again), and the JSON gets ``baseline`` figures and the ratios ``current / baseline``.  Absolute
figures move by 5-10 % between runs on a shared machine and by 2x between machines; ratios
measured side by side in one run are what to quote.

Usage::

    python scripts/bench.py                                   # classic, 4 x greedy
    python scripts/bench.py --baseline 2d48880 --skip-cold    # against v0.1.0, side by side
    python scripts/bench.py --policy hold-hand --set opening_threshold=91
    python scripts/bench.py --lineup greedy --lineup hold-hand,greedy,greedy,greedy --set opening_threshold=91
    python scripts/bench.py --preset qahwa --deals 5000
    python scripts/bench.py --policy-file examples/policies/greedy_copy.py --policy my-greedy --skip-cold
    python scripts/bench.py --preset russian --jobs 2 --skip-cold   # Russian Hand: games/s, 4 x greedy,
                                                                    # and the rearrangement searches
    python scripts/bench.py --preset russian --baseline main --skip-cold --deals 3000

With ``--preset russian`` (RULES.md section 8) a deal is one game (``one_core_games_per_s``,
``all_cores_games_per_s``) and ``rearrangement`` gives the table-rearrangement searches:
``solves_per_s`` (calls per second of play, one core), ``dp_searches_per_s`` (those that ran the
dynamic programme), per game, and ``search_turn_share`` (the share of turns that call it).
``load_average`` is the machine's load when the figures were taken.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: Runs in a fresh interpreter with the tree under test first on sys.path; prints one JSON line.
#: Uses only names that every version since v0.1.0 has (make_spec, run_study, Rules.preset, and
#: `handsim.rules`, which the one-release shim keeps for the code since the move to games/hand/).
_PROBE = r"""
import json, resource, sys, time
args = json.loads(sys.argv[1])
from handsim.rules import PARAM_BY_NAME, Rules
from handsim.simulate import make_spec, run_study
rules = Rules.preset(args["preset"])
for k, v in args["set"].items():
    rules = rules.replace(**{k: PARAM_BY_NAME[k].coerce(v)})
kw = {}
if args.get("policy_files"):
    kw["policy_files"] = args["policy_files"]
spec = make_spec(rules, None, args["lineups"], args["players"], args["deals"], seed=args["seed"],
                 chunk=args["chunk"], **kw)
t = time.perf_counter()
res = run_study(spec, jobs=args["jobs"])
wall = time.perf_counter() - t
rps = res.run_info.get("rounds_per_s")
rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(json.dumps({"rounds_per_s": rps, "wall_s": wall, "peak_rss_mb": rss / 1024.0}))
"""

#: Russian Hand (RULES.md section 8): the same study figures, then the same games again by the
#: engine's chunk driver to count the rearrangement searches: calls per game, calls that ran the
#: dynamic programme (the rest are answered by the pruning before it), the share of turns that
#: call it, and calls per second of play (one core).
_RUSSIAN_PROBE = r"""
import json, resource, sys, time
args = json.loads(sys.argv[1])
from handsim.games.russian.game import GAME
from handsim.games.russian.rules import RussianRules
from handsim.policies import lineup_arrays
from handsim.simulate import make_spec, run_study
rules = RussianRules.preset().with_settings([f"{k}={v}" for k, v in args["set"].items()])
spec = make_spec(rules, None, args["lineups"], args["players"], args["deals"], seed=args["seed"], chunk=args["chunk"])
t = time.perf_counter()
res = run_study(spec, jobs=args["jobs"])
wall = time.perf_counter() - t
rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
out = {"rounds_per_s": res.run_info.get("rounds_per_s"), "wall_s": wall, "peak_rss_mb": rss / 1024.0}
if args.get("count_solves"):
    games = turns = solves = dp = sturns = 0
    t = time.perf_counter()
    for lu in spec.lineups:
        pol, pp = lineup_arrays(list(lu))
        r = GAME.run_chunk(rules.to_vector(), pol, pp, spec.players, spec.seed, 0, spec.deals)
        games += spec.deals
        turns += int(r["turns"].sum())
        solves += int(r["solves"].sum())
        dp += int(r["searches"].sum())
        sturns += int(r["search_turns"].sum())
    sec = time.perf_counter() - t
    out.update(games_per_s_chunk=games / sec, solves_per_game=solves / games, dp_searches_per_game=dp / games,
               turns_per_game=turns / games, search_turn_share=sturns / turns, solves_per_s=solves / sec,
               dp_searches_per_s=dp / sec)
print(json.dumps(out))
"""

#: One deal in a fresh interpreter (compilation included): the time to a first result.
_FIRST = r"""
import json, sys, time
t = time.perf_counter()
args = json.loads(sys.argv[1])
from handsim.rules import Rules
from handsim.simulate import make_spec, run_study
kw = {"policy_files": args["policy_files"]} if args.get("policy_files") else {}
if args["preset"] == "russian":
    from handsim.games.russian.rules import RussianRules
    rules = RussianRules.preset()
else:
    rules = Rules.preset(args["preset"])
spec = make_spec(rules, None, args["lineups"], args["players"], 1, seed=0, chunk=1, **kw)
run_study(spec, jobs=1)
print(json.dumps({"seconds": time.perf_counter() - t}))
"""


class Tree:
    """A copy of the code to measure: its root folder (put first on ``PYTHONPATH``) and the
    compilation cache folder it uses (``None``: the user's default cache)."""

    def __init__(self, label: str, root: Path, cache: Path | None):
        self.label, self.root, self.cache = label, root, cache

    def env(self, cache: Path | None = None) -> dict:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(self.root) + os.pathsep + env.get("PYTHONPATH", "")
        env.pop("NUMBA_DISABLE_JIT", None)
        c = cache or self.cache
        if c is not None:
            env["HANDSIM_CACHE_DIR"] = str(c)
            env.pop("NUMBA_CACHE_DIR", None)
        return env

    def run(self, code: str, args: dict, cache: Path | None = None) -> dict:
        out = subprocess.run([sys.executable, "-c", code, json.dumps(args)], env=self.env(cache),
                             cwd=tempfile.gettempdir(), capture_output=True, text=True)
        if out.returncode != 0:
            tail = (out.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise SystemExit(f"bench: the {self.label} code failed: {tail}")
        return json.loads(out.stdout.strip().splitlines()[-1])


def baseline_tree(rev: str) -> Tree:
    """Extract git revision ``rev`` of this repository into a cache folder (once per commit)."""
    try:
        sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", rev + "^{commit}"],
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        raise SystemExit(f"bench: unknown git revision {rev!r}: give a commit, tag or branch of this repository")
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "handsim-bench" / sha[:16]
    tree = base / "tree"
    if not (tree / "handsim" / "__init__.py").exists():
        tmp = Path(tempfile.mkdtemp(prefix="extract-", dir=base.parent if base.parent.exists() else None))
        try:
            with tempfile.TemporaryFile() as f:
                subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", sha], stdout=f, check=True)
                f.seek(0)
                with tarfile.open(fileobj=f) as tar:
                    tar.extractall(tmp, filter="data")
            base.mkdir(parents=True, exist_ok=True)
            if tree.exists():
                shutil.rmtree(tree)
            tmp.rename(tree)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return Tree(f"baseline {rev} ({sha[:10]})", tree, base / "kernel-cache")


def parse_sets(ap: argparse.ArgumentParser, items: list[str]) -> dict:
    """The ``--set KEY=VALUE`` rule overrides as a dict (``ap.error`` on a malformed one)."""
    sets = {}
    for item in items:
        k, sep, v = item.partition("=")
        if not sep:
            ap.error(f"--set {item!r}: expected KEY=VALUE")
        sets[k.strip()] = v.strip()
    return sets


def median(xs):
    return round(statistics.median(xs), 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    ap.add_argument("--deals", type=int, default=20000, help="deals per measurement and line-up (default 20000)")
    ap.add_argument("--policy", action="append", default=[], help="every seat plays this policy (repeatable)")
    ap.add_argument("--lineup", action="append", default=[], help="a line-up P1,P2,... (repeatable)")
    ap.add_argument("--policy-file", action="append", default=[], help="user policy file (current code only)")
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="rule override (repeatable)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes for the all-cores figure")
    ap.add_argument("--repeat", type=int, default=3, help="measurements of each figure (median quoted; default 3)")
    ap.add_argument("--skip-cold", action="store_true", help="skip the cold-cache compilation measurement")
    ap.add_argument("--skip-all-cores", action="store_true", help="skip the all-cores figure")
    ap.add_argument("--baseline", metavar="REV", help="also measure git revision REV, side by side, and print ratios")
    args = ap.parse_args()

    sets = parse_sets(ap, args.set)
    lineups = list(args.policy) + list(args.lineup) or ["greedy"]
    probe = {"preset": args.preset, "set": sets, "lineups": lineups, "players": args.players,
             "deals": args.deals, "seed": args.seed, "chunk": args.chunk,
             "policy_files": [str(Path(p).resolve()) for p in args.policy_file]}

    russian = args.preset.lower() == "russian"
    probe_code = _RUSSIAN_PROBE if russian else _PROBE
    if russian and args.policy_file:
        ap.error("--preset russian: no --policy-file (Russian Hand plays its built-in policies)")
    current = Tree("current", ROOT, None)
    trees = [current]
    if args.baseline:
        if args.policy_file:
            ap.error("--policy-file cannot be measured against a baseline (older code has no user policies)")
        trees.append(baseline_tree(args.baseline))

    from handsim import __version__

    result: dict = {"version": __version__, "preset": args.preset, "set": sets, "players": args.players,
                    "lineups": lineups, "deals": args.deals, "cores": os.cpu_count()}
    figures = {t.label: {} for t in trees}

    if not args.skip_cold:
        for t in trees:
            with tempfile.TemporaryDirectory() as d:
                figures[t.label]["first_result_cold_s"] = round(t.run(_FIRST, probe, Path(d))["seconds"], 2)
    for t in trees:
        # The first run fills (or refreshes, after a code change) each tree's own cache, so the
        # second - the one timed as "warm" - and every timed run below load compiled code.
        t.run(_FIRST, probe)
        figures[t.label]["first_result_warm_s"] = round(t.run(_FIRST, probe)["seconds"], 2)

    one = {t.label: [] for t in trees}
    rss = {t.label: [] for t in trees}
    allc = {t.label: [] for t in trees}
    for _ in range(args.repeat):
        for t in trees:  # alternately: A B A B ...
            r = t.run(probe_code, {**probe, "jobs": 1})
            one[t.label].append(r["rounds_per_s"])
            rss[t.label].append(r["peak_rss_mb"])
        if not args.skip_all_cores:
            for t in trees:
                r = t.run(probe_code, {**probe, "jobs": args.jobs, "deals": args.deals * args.jobs})
                allc[t.label].append(r["rounds_per_s"])
    for t in trees:
        f = figures[t.label]
        f["one_core_rounds_per_s"] = median(one[t.label])
        f["one_core_runs"] = one[t.label]
        f["peak_rss_mb"] = round(max(rss[t.label]), 1)
        if allc[t.label]:
            f["all_cores_jobs"] = args.jobs
            f["all_cores_rounds_per_s"] = median(allc[t.label])
            f["scaling"] = round(f["all_cores_rounds_per_s"] / f["one_core_rounds_per_s"], 2)
        if russian:  # a deal of Russian Hand is one game
            f["one_core_games_per_s"] = f["one_core_rounds_per_s"]
            if "all_cores_rounds_per_s" in f:
                f["all_cores_games_per_s"] = f["all_cores_rounds_per_s"]
    result.update(figures[current.label])
    if russian:
        result["unit"] = "games"
        for t in trees:
            c = t.run(probe_code, {**probe, "jobs": 1, "count_solves": True})
            figures[t.label]["rearrangement"] = {
                k: round(c[k], 4 if k == "search_turn_share" else 1) for k in
                ("solves_per_s", "dp_searches_per_s", "solves_per_game", "dp_searches_per_game", "turns_per_game",
                 "search_turn_share", "games_per_s_chunk")}
        result["rearrangement"] = figures[current.label]["rearrangement"]
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    if args.baseline:
        b = figures[trees[1].label]
        result["baseline"] = {"rev": args.baseline, "label": trees[1].label, **b}
        # ratio of the medians, and the median of the pairwise ratios (robust to drift)
        pairs = [a / c for a, c in zip(one[current.label], one[trees[1].label])]
        result["ratio_one_core"] = round(result["one_core_rounds_per_s"] / b["one_core_rounds_per_s"], 3)
        result["ratio_one_core_pairwise_median"] = round(statistics.median(pairs), 3)
        if allc[current.label]:
            result["ratio_all_cores"] = round(result["all_cores_rounds_per_s"] / b["all_cores_rounds_per_s"], 3)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
