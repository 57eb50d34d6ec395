"""Same deals, same study: a tiny study per game against its pinned outputs (tests/pinned/pin.py).

The golden move logs pin play; these pin what a study makes of it - every CSV byte, report.md, the
checkpoint's arrays and the per-deal columns - so that moving the code (issue 20) cannot change a
result unnoticed.  An intended change rewrites the data with ``python tests/pinned/pin.py --write``.
"""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("pin", Path(__file__).parent / "pinned" / "pin.py")
pin = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pin)


@pytest.fixture(scope="module", params=sorted(pin.STUDIES))
def played(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(f"pinned-{request.param}") / "out"
    pin.play(request.param, out)
    return request.param, pin.digest(out)


def test_pinned_study_files_are_byte_identical(played):
    name, got = played
    want = pin.load(name)
    assert sorted(got["files"]) == sorted(want["files"])
    for fname, text in want["files"].items():
        if got["files"][fname] != text:
            diff = "".join(difflib.unified_diff(text.splitlines(True), got["files"][fname].splitlines(True),
                                                f"pinned/{name}/{fname}", "now", n=1))
            pytest.fail(f"{name}: {fname} differs from the pinned study:\n{diff[:4000]}")


def test_pinned_study_checkpoint_arrays_are_identical(played):
    name, got = played
    want = pin.load(name)
    assert got["arrays"] == want["arrays"]
    assert len(want["arrays"]) >= 10  # a real checkpoint, not an empty one


def test_pinned_study_per_deal_columns_are_identical(played):
    name, got = played
    want = pin.load(name)
    assert got["per_deal"] == want["per_deal"]
    # 2 configurations x 2 line-ups x 24 deals, one row per seat
    seats = 4 if name == "hand" else 3
    assert sum(v["rows"] for v in want["per_deal"].values()) == 2 * 2 * 24 * seats
