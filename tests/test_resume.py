"""Interruption and resume: a real `handsim simulate` process is killed mid-run (SIGKILL and
SIGINT), resumed with --resume, and its summary.csv must be byte-identical to an uninterrupted
run's."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

# Long enough (96 chunks, several seconds) that a loaded machine cannot finish the run between the
# test seeing three finished chunks and its signal arriving.
DEALS, CHUNK = 24000, 250
ARGS = ["--lineup", "hold-hand,greedy,greedy", "--threshold", "51", "--threshold", "71",
        "--deals", str(DEALS), "--chunk", str(CHUNK), "--seed", "5", "--jobs", "1", "--no-progress", "-q"]


def _env():
    env = dict(os.environ)
    env["HANDSIM_CHECKPOINT_EVERY"] = "0"  # checkpoint after every finished chunk
    return env


def _run(args, **kw):
    return subprocess.run([sys.executable, "-m", "handsim", "simulate", *args], env=_env(),
                          capture_output=True, text=True, **kw)


def _done_chunks(out: Path) -> int:
    ck = out / "checkpoint.npz"
    if not ck.exists():
        return 0
    try:
        with np.load(ck) as z:
            return len(z["__done__"])
    except Exception:  # being replaced right now
        return 0


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "study"
    r = _run([*ARGS, "--out", str(out)], timeout=900)
    assert r.returncode == 0, r.stderr
    return (out / "summary.csv").read_bytes()


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_run_resumes_to_identical_summary(tmp_path, reference, sig):
    out = tmp_path / "study"
    p = subprocess.Popen([sys.executable, "-m", "handsim", "simulate", *ARGS, "--out", str(out)],
                         env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 600
    while _done_chunks(out) < 3 and p.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert p.poll() is None, "the run finished before it could be interrupted: make it longer"
    p.send_signal(sig)
    _, err = p.communicate(timeout=120)
    if sig == signal.SIGINT:
        assert p.returncode == 130
        assert "--resume" in err and "Traceback" not in err
    else:
        assert p.returncode == -signal.SIGKILL
    done = _done_chunks(out)
    assert 3 <= done < DEALS // CHUNK  # something finished, not everything
    assert not (out / "summary.csv").exists()  # no half-study passed off as a result
    r = _run(["--resume", str(out)], timeout=900)
    assert r.returncode == 0, r.stderr
    assert (out / "summary.csv").read_bytes() == reference


def test_saved_spec_keeps_the_order_of_the_varied_options():
    # run.json and the checkpoint are written with sorted keys; the configurations are the
    # product of the varied options with the first varying slowest, so a reordering would file
    # the chunks played after a resume under the wrong configurations.
    import json

    from handsim.simulate import StudySpec, make_spec

    spec = make_spec(vary={"opening_threshold": [51, 71], "joker_penalty": [15, 30]}, deals=10)
    again = StudySpec.from_json(json.loads(json.dumps(spec.to_json(), sort_keys=True)))
    assert again.vary == (("opening_threshold", (51, 71)), ("joker_penalty", (15, 30)))
    assert [(r.opening_threshold, r.joker_penalty) for r in again.configs()] == [(51, 15), (51, 30), (71, 15), (71, 30)]
