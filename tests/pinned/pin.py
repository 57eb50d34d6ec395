#!/usr/bin/env python
"""The pinned studies: one tiny study per game whose outputs are test data.

Each study is 2 configurations x 2 line-ups x 2 chunks, played with ``handsim simulate --jobs 1``
into a new folder.  What is pinned:

* every CSV file and ``report.md``, byte for byte (but for the lines of report.md that hold the
  run's speed, its ``--out`` folder, and the machine, numba and Python that played it);
* ``checkpoint.npz``: each array's dtype, shape and SHA-256 of its bytes (the zip container's
  timestamps are not pinned, nor the run's record ``__run__`` and its clock ``__seconds__``);
* ``per_deal/``: each file's columns with their dtypes and a digest of its values.

``tests/test_pinned_studies.py`` plays them again and compares.  A change that means to alter these
outputs (a new statistic adds columns) rewrites them with ``python tests/pinned/pin.py --write`` in a
commit that says what changed and why; nothing else may move them.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent

#: name -> the ``handsim simulate`` arguments of the pinned study.
STUDIES = {
    "hand": ["--threshold", "51", "--threshold", "71", "--lineup", "greedy,greedy,greedy,greedy",
             "--lineup", "hold-hand,greedy,greedy,greedy", "--deals", "24", "--chunk", "12",
             "--seed", "20261201", "--per-deal"],
    "russian": ["--preset", "russian", "--players", "3", "--vary", "first_round=new_melds,free",
                "--lineup", "greedy,greedy,greedy", "--lineup", "patient,greedy,greedy",
                "--deals", "24", "--chunk", "12", "--seed", "20261201", "--per-deal"],
}


def play(name: str, out: Path) -> None:
    """Play pinned study ``name`` into the new folder ``out`` (``handsim simulate`` in a subprocess)."""
    cmd = [sys.executable, "-m", "handsim", "simulate", *STUDIES[name], "--jobs", "1", "--out", str(out), "-q"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"pinned study {name} failed (exit {p.returncode}): {p.stderr.strip()[-2000:]}")


def digest(folder: Path) -> dict:
    """What is pinned of a study folder: ``{"files": {name: text}, "arrays": {...}, "per_deal": {...}}``."""
    import numpy as np
    import pandas as pd

    files = {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.csv"))}
    report = (folder / "report.md").read_text(encoding="utf-8").replace(str(folder), "OUT")
    report = re.sub(r"(?m)^- \*\*Speed:\*\* .*$", "- **Speed:** (not pinned)", report)
    # the machine and the interpreter that played it (CI's Python need not be the developer's)
    files["report.md"] = re.sub(r"(?m)^- (machine|numba|python): .*$", r"- \1: (not pinned)", report)
    arrays = {}
    with np.load(folder / "checkpoint.npz", allow_pickle=False) as z:
        for key in sorted(set(z.files) - {"__run__", "__seconds__"}):
            a = np.ascontiguousarray(z[key])
            arrays[key] = {"dtype": str(a.dtype), "shape": list(a.shape),
                           "sha256": hashlib.sha256(a.tobytes()).hexdigest()}
    per_deal = {}
    for p in sorted((folder / "per_deal").rglob("*.parquet")):
        df = pd.read_parquet(p)
        values = pd.util.hash_pandas_object(df.astype({c: str for c in df.columns
                                                       if str(df[c].dtype) in ("category", "string")}),
                                            index=False).to_numpy()
        per_deal[str(p.relative_to(folder))] = {
            "columns": {c: str(t) for c, t in df.dtypes.items()}, "rows": len(df),
            "sha256": hashlib.sha256(values.tobytes()).hexdigest()}
    return {"files": files, "arrays": arrays, "per_deal": per_deal}


def write(name: str, d: dict) -> None:
    """Store digest ``d`` as the pinned data of study ``name`` (tests/pinned/NAME/)."""
    folder = HERE / name
    folder.mkdir(exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    for fname, text in d["files"].items():
        (folder / fname).write_text(text, encoding="utf-8")
    (folder / "digests.json").write_text(json.dumps({"arrays": d["arrays"], "per_deal": d["per_deal"]},
                                                    indent=1, sort_keys=True) + "\n", encoding="utf-8")


def load(name: str) -> dict:
    """The pinned data of study ``name`` in the shape :func:`digest` returns."""
    folder = HERE / name
    files = {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir()) if p.name != "digests.json"}
    rest = json.loads((folder / "digests.json").read_text(encoding="utf-8"))
    return {"files": files, **rest}


if __name__ == "__main__":
    import tempfile

    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/pinned/pin.py --write   (rewrites the pinned data: say why in the commit)")
    for study in STUDIES:
        with tempfile.TemporaryDirectory() as tmp:
            play(study, Path(tmp) / "out")
            write(study, digest(Path(tmp) / "out"))
        print(f"wrote tests/pinned/{study}/")
