"""Same deals, same play: the engine against the golden move logs of ``scripts/golden.py``.

Every golden case (each preset and a few rule variants, 2/3/4 players and 2 v 2, every built-in
policy and non-default parameters) is replayed with the move log on and must give the stored
log and result event for event; the fast path (``run_chunk``, ``run_match_chunk``) must give
the stored per-deal rows.  An intended change of play regenerates the files
(``python scripts/golden.py --write``) in a commit that says so; ``--check`` lists what changed.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("golden", Path(__file__).parent.parent / "scripts" / "golden.py")
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)


@pytest.fixture(scope="module")
def stored():
    return golden.load()


def test_golden_files_cover_every_builtin_policy_preset_and_player_count(stored):
    from handsim.policies import parse_lineup
    from handsim.games.hand.rules import PRESETS

    moves, chunks = stored
    cases = golden.cases()
    assert {r["case"] for r in moves} == {c["name"] for c in cases}
    assert len(moves) == sum(c["deals"] for c in cases)
    assert set(chunks) == {c["name"] for c in cases + golden.match_cases()}
    assert set(PRESETS) <= {c["preset"] for c in cases}
    assert {c["players"] for c in cases} == {2, 3, 4, 5}
    labels = {s.label for c in cases for s in parse_lineup(c["lineup"])}
    assert {"greedy", "hold-hand", "random", "greedy:support_hand=1", "card-reader"} <= labels
    from handsim.policies.registry import BUILTIN_IDS

    assert set(BUILTIN_IDS) <= {s.name for c in cases for s in parse_lineup(c["lineup"])}  # every built-in plays
    assert any(lab.startswith("card-reader:") for lab in labels)
    # the 2 v 2 cases include every new player
    team = {s.name for c in cases if c["preset"] == "partnership" for s in parse_lineup(c["lineup"])}
    assert {"card-reader", "sampler", "searcher"} <= team
    assert any(lab.startswith("hold-hand:") for lab in labels)
    # the logs exercise the rare moves too
    logs = " ".join(r["log"] for r in moves).split()
    for token in ("OH", "V"):
        assert token in logs
    for prefix in ("S", "L", "R:", "p"):
        assert any(t.startswith(prefix) for t in logs), prefix


@pytest.mark.parametrize("case", golden.cases(), ids=lambda c: c["name"])
def test_move_logs_are_identical(stored, case):
    moves, _ = stored
    want = [r for r in moves if r["case"] == case["name"]]
    got = golden.play_case(case)
    assert golden.diff_moves(want, got) == []


@pytest.mark.parametrize("case", golden.cases() + golden.match_cases(), ids=lambda c: c["name"])
def test_fast_path_rows_are_identical(stored, case):
    _, chunks = stored
    got = {case["name"]: golden.chunk_case(case)}
    assert golden.diff_chunks({case["name"]: chunks[case["name"]]}, got) == []


def test_a_changed_log_is_reported_with_its_first_differing_event():
    a = {"case": "x", "deal": 3, "dealer": 0, "log": "T0 x7H T1 dKS x9D", "result": "r"}
    b = dict(a, log="T0 x7H T1 dKS xKS")
    assert golden.diff_moves([a], [b]) == ["x deal 3: event 5 (turn 2): golden 'x9D', now 'xKS'"]
    assert golden.diff_moves([a], [dict(a, result="s")]) == ["x deal 3: same moves, result golden 'r', now 's'"]
    assert golden.diff_chunks({"c": {"score": [[1, 2], [3, 4]]}}, {"c": {"score": [[1, 2], [3, 5]]}}) == [
        "c score: rows [1] differ (first: golden [3, 4], now [3, 5])"]
