#!/usr/bin/env python
"""Speed of the simulator, printed as JSON (rounds/s = deals played per second of wall time).

Measures, for classic rules, 4 players, every seat ``greedy``:

* ``one_core_rounds_per_s``: one chunk played in this process (one core);
* ``all_cores_rounds_per_s``: a study over all cores (worker processes), as ``simulate`` runs it;
* ``first_result_cold_s``: a fresh interpreter with an empty numba cache playing one deal
  (compilation included) - what a new install pays once;
* ``first_result_warm_s``: the same with the cache filled (every later run).

Usage::

    python scripts/bench.py [--deals 20000] [--policy greedy] [--preset classic] [--skip-cold]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

_FIRST = (
    "import time; t=time.perf_counter(); "
    "from handsim.rules import Rules; from handsim.simulate import run_chunk; "
    "from handsim.policies import lineup_arrays, parse_policy; "
    "run_chunk(Rules.preset('{preset}').to_vector(), *lineup_arrays([parse_policy('{policy}')]*4), 4, 0, 0, 1); "
    "print(time.perf_counter()-t)"
)


def first_result(preset: str, policy: str, cache_dir: str | None) -> float:
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    if cache_dir:
        env["NUMBA_CACHE_DIR"] = cache_dir
    t = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _FIRST.format(preset=preset, policy=policy)],
        env=env, capture_output=True, text=True, check=True,
    )
    float(out.stdout.strip().splitlines()[-1])
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20000, help="deals per measurement (default 20000)")
    ap.add_argument("--policy", default="greedy")
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--skip-cold", action="store_true", help="skip the cold-cache compilation measurement")
    args = ap.parse_args()

    from handsim import __version__
    from handsim.policies import lineup_arrays, parse_policy
    from handsim.rules import Rules
    from handsim.simulate import make_spec, run_chunk, run_study

    result: dict = {"version": __version__, "preset": args.preset, "players": 4, "policy": args.policy,
                    "cores": os.cpu_count()}
    if not args.skip_cold:
        with tempfile.TemporaryDirectory() as d:
            result["first_result_cold_s"] = round(first_result(args.preset, args.policy, d), 2)
    result["first_result_warm_s"] = round(first_result(args.preset, args.policy, None), 2)

    rules = Rules.preset(args.preset)
    pol, pp = lineup_arrays([parse_policy(args.policy)] * 4)
    run_chunk(rules.to_vector(), pol, pp, 4, 0, 0, 2)  # load compiled code
    t = time.perf_counter()
    run_chunk(rules.to_vector(), pol, pp, 4, 1, 0, args.deals)
    dt = time.perf_counter() - t
    result["one_core_rounds_per_s"] = round(args.deals / dt, 1)

    spec = make_spec(rules, None, [args.policy], 4, args.deals * args.jobs, seed=2, chunk=2000)
    t = time.perf_counter()
    run_study(spec, jobs=args.jobs)
    dt = time.perf_counter() - t
    result["all_cores_jobs"] = args.jobs
    result["all_cores_rounds_per_s"] = round(spec.deals / dt, 1)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
