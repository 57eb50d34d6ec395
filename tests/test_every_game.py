"""Every registered game answers the same walls (issue 20), driven by the game registry as pgx's
``api_test`` and OpenSpiel's ``integration_tests/api_test.py`` are: a game added to
:data:`handsim.games.GAMES` is swept by these tests without a line of its own here.

For each game:

* its golden move logs replay: one stored case of each of its presets, event for event
  (``tests/test_golden.py`` and ``tests/test_russian_golden.py`` replay every case);
* the replay checker passes a few deals of every preset, played with the game's default policy;
* its pinned study (``tests/pinned/``) stopped (``kill``) after its first chunk and resumed gives the pinned
  CSV bytes, checkpoint arrays and per-deal columns - the resume is byte-identical to the
  uninterrupted run - and its report renders as Markdown and HTML;
* the per-deal columns are its record declaration's (``records.py``), and a chunk's arrays are
  what the record allocates, of the declared dtypes and shapes;
* every built-in policy gives the entry points its game requires and none it does not call.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from handsim.games import GAMES, PRESETS, get_game

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


golden = _load("golden", ROOT / "scripts" / "golden.py")
pin = _load("pin", ROOT / "tests" / "pinned" / "pin.py")

#: Only a guard against a hung child, never a measure.
HANG_GUARD = 1200


def _records(game: str):
    return importlib.import_module(f"handsim.games.{game}.records")


def _players(game, rules) -> int:
    if getattr(rules, "partnership", False) or getattr(rules, "decks", "two") == "by_players":
        return 4  # 2 v 2; decks=by_players plays 4 or 5 players (one deck is not implemented yet)
    return min(max(3, game.min_players), game.max_players)


@pytest.fixture(scope="module", params=GAMES)
def game(request):
    return get_game(request.param)


def test_the_registry_lists_each_game_with_its_presets_and_pinned_study():
    assert set(GAMES) == set(PRESETS) == set(pin.STUDIES) == set(golden.GAMES)
    for name in GAMES:
        g = get_game(name)
        assert g.name == name and g.min_players >= 2 and g.max_players >= g.min_players
        for preset in PRESETS[name]:
            assert isinstance(g.preset(preset), g.rules_class())
        # the registry's list repeats the game's own presets (a preset added to one must be added
        # to the other, in the same order: the first is the game's default)
        own = importlib.import_module(f"handsim.games.{name}.rules").PRESETS
        assert tuple(own) == PRESETS[name], name


def test_golden_logs_of_each_preset_replay(game):
    moves, _ = golden.load(game.name)
    cases, play = golden.GAMES[game.name]["cases"](), golden.GAMES[game.name]["play"]
    by_preset = {}
    for c in cases:
        by_preset.setdefault(c.get("preset", PRESETS[game.name][0]), c)
    assert set(by_preset) == set(PRESETS[game.name])  # every preset has golden cases
    for preset, case in by_preset.items():
        want = [r for r in moves if r["case"] == case["name"]]
        assert want, case["name"]
        assert play(case) == want, f"{game.name} {preset}: case {case['name']} plays differently"


def test_the_checker_passes_deals_of_every_preset(game):
    for preset in PRESETS[game.name]:
        rules = game.preset(preset)
        players = _players(game, rules)
        lineup = [game.default_policy] * players
        from handsim.policies import parse_lineup

        specs = parse_lineup(",".join(lineup), game=game.name)
        for deal in range(3):
            trace = game.trace_deal(rules, specs, deal, 11, players)
            assert game.check_deal(trace) == [], f"{game.name} {preset} deal {deal}"


def test_a_chunk_is_its_record(game):
    """The arrays a chunk returns are the record's fields, of their dtypes and shapes (the record
    allocates them), and the record's check refuses an array of another dtype."""
    from handsim.errors import StudyError
    from handsim.policies import lineup_arrays, parse_lineup

    rules = game.preset(PRESETS[game.name][0])
    players = _players(game, rules)
    pol, pp = lineup_arrays(parse_lineup(",".join([game.default_policy] * players), game=game.name))
    res = game.run_chunk(rules.to_vector(), pol, pp, players, 3, 0, 4)
    record = game.record(False)
    assert list(res) == list(record.names)
    record.check(res, 4, players)
    assert int(res["turns"].min()) > 0 and not res["err"].any()
    bad = dict(res, turns=res["turns"].astype(np.int64))
    with pytest.raises(StudyError, match="field 'turns' is int64"):
        record.check(bad, 4, players)
    with pytest.raises(StudyError, match="missing \\['err'\\]"):
        record.check({k: v for k, v in res.items() if k != "err"}, 4, players)


def test_every_builtin_policy_gives_its_games_entry_points(game):
    from handsim.policies.declare import ENTRY_POINTS, decisions_of
    from handsim.policies.registry import registry_of

    decisions, required = decisions_of(game.name)
    assert set(required) <= set(decisions) <= set(ENTRY_POINTS)
    policies = registry_of(game.name).builtin_policies()
    assert game.default_policy in {p.name for p in policies}
    for p in policies:
        given = {k for k in ENTRY_POINTS if getattr(p, k, None) is not None}
        assert set(required) <= given, p.name
        assert given <= set(decisions), p.name
        assert set(p.entry_points()) == given, p.name


def _simulate(args, **env):
    e = {k: v for k, v in os.environ.items() if k != "HANDSIM_TEST_HOLD_AFTER"}
    e.update(env)
    return subprocess.Popen([sys.executable, "-m", "handsim", "simulate", *args], env=e, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


@pytest.fixture(scope="module")
def resumed(game, tmp_path_factory):
    """The game's pinned study, stopped (``kill``: SIGTERM) after its first chunk and resumed.  (Not
    SIGINT: a test run started in the background of a shell ignores it, and so would the child.)"""
    out = tmp_path_factory.mktemp(f"every-{game.name}") / "out"
    p = _simulate([*pin.STUDIES[game.name], "--jobs", "1", "--no-progress", "--out", str(out), "-q"],
                  HANDSIM_TEST_HOLD_AFTER="1")
    lines = []
    for line in p.stderr:
        lines.append(line)
        if "handsim: test hold after " in line:
            break
    os.killpg(p.pid, signal.SIGTERM)
    _, rest = p.communicate(timeout=HANG_GUARD)
    assert p.returncode == 143, "".join(lines) + rest
    assert not (out / "summary.csv").exists()
    r = _simulate(["--resume", str(out), "--no-progress", "-q"])
    _, err = r.communicate(timeout=HANG_GUARD)
    assert r.returncode == 0, err
    return out


def test_a_stopped_study_resumes_to_the_pinned_outputs(game, resumed):
    got, want = pin.digest(resumed), pin.load(game.name)
    csvs = sorted(k for k in want["files"] if k.endswith(".csv"))
    assert len(csvs) >= 3
    for name in csvs:
        assert got["files"][name] == want["files"][name], f"{game.name}: {name} after a resume"
    assert got["arrays"] == want["arrays"]
    assert got["per_deal"] == want["per_deal"]


def test_the_report_renders_in_both_formats(game, resumed):
    md = (resumed / "report.md").read_text(encoding="utf-8")
    html = (resumed / "report.html").read_text(encoding="utf-8")
    assert md.startswith("# ") and "In brief" in md
    assert html.lstrip().lower().startswith("<!doctype html>") and "In brief" in html and html.rstrip().endswith("</html>")
    pngs = sorted(resumed.glob("*.png"))
    assert pngs
    for png in pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png.name
        assert f"]({png.name})" in md, png.name  # every figure is shown by the Markdown report ...
    assert html.count('<img src="data:image/png;base64,') == len(pngs)  # ... and embedded in the page


def test_the_per_deal_columns_are_the_record_declaration(game, resumed):
    import pandas as pd

    rec = _records(game.name)
    parts = sorted((resumed / "per_deal").rglob("*.parquet"))
    assert parts
    df = pd.read_parquet(parts[0])
    declared = [c.name for c in rec.COLUMNS]
    fields = set(game.record(False).names)
    assert all(c.field in fields for c in rec.COLUMNS)
    ids = ["deal", "config", "lineup", "seat", "policy"]
    spec_varying = [c for c in df.columns if c not in ids + declared + ["position"]]
    assert list(df.columns) == ids + declared + (["position"] if "position" in df.columns else []) + spec_varying
    assert spec_varying  # the pinned studies vary one option: its column comes last
