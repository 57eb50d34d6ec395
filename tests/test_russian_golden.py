"""Same deals, same play for Russian Hand: the engine against its golden move logs
(``python scripts/golden.py --game russian``; RULES.md section 8).

Every case (each option's variant, 2 to 5 players, every built-in policy) is played again with
the move log on and by the fast path; both must equal the stored files.  An intended change of
play regenerates them (``--game russian --write``) in a commit that says so.
"""

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("golden", Path(__file__).parent.parent / "scripts" / "golden.py")
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)


@pytest.fixture(scope="module")
def stored():
    return golden.load("russian")


def test_golden_files_cover_every_policy_variant_and_player_count(stored):
    from handsim.games.russian.policies.registry import POLICIES
    from handsim.games.russian.rules import PARAMS
    from handsim.policies import split_lineup

    moves, chunks = stored
    cases = golden.russian_cases()
    assert {r["case"] for r in moves} == {c["name"] for c in cases} == set(chunks)
    assert len(moves) == sum(c["deals"] for c in cases)
    assert {c["players"] for c in cases} == {2, 3, 4, 5}
    assert {p.split(":")[0] for c in cases for p in split_lineup(c["lineup"])} == set(POLICIES)
    varied = {k for c in cases for k in c["overrides"]}
    assert varied == {p.name for p in PARAMS}
    # both endings occur, and plays that change the table
    assert any("end=out" in r["result"] for r in moves) and any("end=stock_out" in r["result"] for r in moves)


@pytest.mark.parametrize("case", golden.russian_cases(), ids=lambda c: c["name"])
def test_move_logs_and_fast_path_are_identical(stored, case):
    moves, chunks = stored
    want = [r for r in moves if r["case"] == case["name"]]
    assert golden.diff_moves(want, golden.russian_play_case(case)) == []
    assert golden.diff_chunks({case["name"]: chunks[case["name"]]}, {case["name"]: golden.russian_chunk_case(case)}) == []
