"""A refused run leaves --out as it was: with --force, a policy file that does not compile (or whose
play returns a float) is refused before anything of the old results is deleted; without, no folder
is left behind.  A closed standard input and a scheduler address where something else than a dask
scheduler listens are one-line errors (exit 2)."""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from handsim.cli import cli

BAD_PLAY = """
from numba import njit
from handsim.policies import Policy
from handsim.games.hand.policies.greedy import choose_draw_greedy, play_greedy

@njit(cache=True)
def choose_draw(g, seat):
    return choose_draw_greedy(g, seat, False)

@njit(cache=True)
def play(g, seat):
    x = undefined_name_here
    return play_greedy(g, seat, False)

@njit(cache=True)
def float_play(g, seat):
    return 1.5

"""
DECLARE = {"ko-badone": 'BAD = Policy("ko-badone", help="x", params=(), choose_draw=choose_draw, play=play)\n',
           "ko-floaty": 'FLOATY = Policy("ko-floaty", help="x", params=(), choose_draw=choose_draw, play=float_play)\n'}


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=True)


def error_line(result) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory) -> dict[str, Path]:
    """One policy file per broken policy (every policy of a file is compiled)."""
    base = tmp_path_factory.mktemp("pol")
    files = {}
    for name, declare in DECLARE.items():
        files[name] = base / f"{name}.py"
        files[name].write_text(textwrap.dedent(BAD_PLAY) + declare)
    return files


@pytest.fixture(scope="module")
def bad_file(bad_files) -> Path:
    return bad_files["ko-badone"]


@pytest.fixture(scope="module")
def old_runs(tmp_path_factory) -> dict[str, Path]:
    """A finished study, tournament and tuning run (the results --force would replace)."""
    base = tmp_path_factory.mktemp("old")
    runs = {"simulate": ["simulate", "--policy", "greedy", "--deals", 10],
            "tournament": ["tournament", "--policy", "greedy", "--policy", "random", "--players", 2, "--deals", 5],
            "tune": ["tune", "hold-hand", "--param", "bail_turn=4:5", "--against", "greedy", "--deals", 5]}
    out = {}
    for kind, args in runs.items():
        out[kind] = base / kind
        result = run(*args, "--jobs", 1, "--out", out[kind], "-q")
        assert result.exit_code == 0, result.output
    return out


def refused_args(kind: str, bad_file: Path, policy: str) -> list:
    if kind == "simulate":
        return ["simulate", "--policy-file", bad_file, "--policy", policy, "--deals", 10]
    if kind == "tournament":
        return ["tournament", "--policy-file", bad_file, "--policy", "greedy", "--policy", policy, "--players", 2,
                "--deals", 5]
    return ["tune", "hold-hand", "--param", "bail_turn=4:5", "--policy-file", bad_file, "--against",
            f"{policy},greedy,greedy", "--deals", 10]


@pytest.mark.parametrize("kind", ["simulate", "tournament", "tune"])
@pytest.mark.parametrize("policy, why", [("ko-badone", "play of policy 'ko-badone' (play) does not compile"),
                                         ("ko-floaty", "play of policy 'ko-floaty' (float_play) returns float64, not an "
                                                    "integer")])
def test_force_keeps_the_old_results_when_a_policy_does_not_compile(kind, policy, why, old_runs, bad_files):
    bad_file = bad_files[policy]
    folder = old_runs[kind]
    before = snapshot(folder)
    assert "run.json" in before and len(before) >= 5
    line = error_line(run(*refused_args(kind, bad_file, policy), "--jobs", 1, "--out", folder, "--force", "-q"))
    assert f"policy file {bad_file}: {why}" in line
    assert snapshot(folder) == before  # every file still there, byte for byte


@pytest.mark.parametrize("kind", ["simulate", "tournament", "tune"])
def test_a_refused_run_leaves_no_folder(kind, bad_file, tmp_path):
    out = tmp_path / "nf3"
    line = error_line(run(*refused_args(kind, bad_file, "ko-badone"), "--jobs", 1, "--out", out, "-q"))
    assert "does not compile" in line
    assert not out.exists()
    # so the same command, with a policy that compiles, is not refused as "already exists"
    if kind == "tune":
        result = run("tune", "hold-hand", "--param", "bail_turn=4:5", "--against", "greedy", "--deals", 5,
                     "--jobs", 1, "--out", out, "-q")
        assert result.exit_code == 0, result.output
        assert (out / "best.toml").is_file()


@pytest.mark.parametrize("command", ["check", "score"])
def test_closed_standard_input_is_one_line(command):
    proc = subprocess.run([sys.executable, "-m", "handsim", command, "-"], stdin=None, capture_output=True,
                          text=True, preexec_fn=lambda: os.close(0), timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [f"Error: cannot read standard input: it is closed "
                                                f"(see 'handsim {command} --help')"]
    assert proc.stdout == ""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_a_scheduler_address_where_no_dask_scheduler_listens_is_refused(tmp_path, monkeypatch):
    """A web server accepts the connection but never answers dask: refused in one line (dask's
    client alone would wait for ever), before the output folder is made."""
    import handsim.study.runner

    def must_not_run(*args, **kw):
        raise AssertionError("the study was started")

    monkeypatch.setattr(handsim.study.runner, "run_study", must_not_run)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        out = tmp_path / "x"
        line = error_line(run("simulate", "--policy", "greedy", "--deals", 5, "--scheduler", f"localhost:{port}",
                              "--out", out))
        assert f"scheduler address 'localhost:{port}': what listens there is not a dask scheduler" in line
        assert not out.exists()
        for kind in ("tournament", "tune"):
            args = refused_args(kind, Path("unused"), "greedy")
            args = [a for a in args if a not in ("--policy-file", Path("unused"))]
            line = error_line(run(*args, "--scheduler", f"tcp://127.0.0.1:{port}", "--out", out))
            assert f"scheduler address 'tcp://127.0.0.1:{port}': what listens there is not a dask scheduler" in line
            assert not out.exists()
    finally:
        server.shutdown()
        server.server_close()
