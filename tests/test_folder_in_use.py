"""A folder a run is still starting in is "in use" from the first moment (issue 23, cause 5).

A study, tournament or tuning run claims its output folder (``handsim._io.FolderLock``) before it
writes anything; until its first run.json or checkpoint, ``handsim report`` and ``--resume`` of that
folder used to say "not a study folder" (for ~10 s: the compile and the first chunk).  The lock
decides: every command that reads a run's folder refuses it as in use, naming the holder, exit 2,
and leaves it as it was.  A second process holds the lock here, as a starting run does.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from handsim.cli import cli

_HOLD = textwrap.dedent("""
    import sys, time
    from handsim._io import FolderLock
    lock = FolderLock(sys.argv[1]).acquire(sys.argv[2])
    print("held", flush=True)
    time.sleep(120)
""")


@pytest.fixture
def held(tmp_path):
    """A folder that another process holds (as ``handsim simulate`` does while it starts), empty
    but for the lock file."""
    folder = tmp_path / "starting"
    folder.mkdir()
    p = subprocess.Popen([sys.executable, "-c", _HOLD, str(folder), "handsim simulate"], stdout=subprocess.PIPE,
                         text=True)
    try:
        assert p.stdout.readline().strip() == "held"
        yield folder
    finally:
        p.kill()
        p.wait()
        p.stdout.close()


@pytest.mark.parametrize("args", [
    ["report", "{f}"],
    ["report", "{f}", "--format", "md"],
    ["simulate", "--resume", "{f}"],
    ["tournament", "--resume", "{f}"],
    ["tune", "--resume", "{f}"],
])
def test_a_folder_a_run_is_starting_in_is_in_use(held, args):
    before = sorted(p.name for p in held.iterdir())
    r = CliRunner().invoke(cli, [a.format(f=held) for a in args])
    assert r.exit_code == 2, r.output
    line = r.output.strip().splitlines()[-1]
    assert line.startswith(f"Error: {held} is in use by another handsim process (handsim simulate: process ")
    assert "not a study folder" not in r.output and "nothing to resume" not in r.output
    assert sorted(p.name for p in held.iterdir()) == before == [".handsim.lock"]


def test_a_leftover_lock_file_nobody_holds_is_no_claim(tmp_path):
    """The lock file of a run that ended (even killed) claims nothing: the folder is judged by what
    it holds, as before."""
    folder = tmp_path / "ended"
    folder.mkdir()
    (folder / ".handsim.lock").write_text("handsim simulate: process 1 on nowhere since 2026-01-01\n")
    r = CliRunner().invoke(cli, ["report", str(folder)])
    assert r.exit_code == 2
    assert "is not a study folder" in r.output and "in use" not in r.output
    r = CliRunner().invoke(cli, ["simulate", "--resume", str(folder)])
    assert r.exit_code == 2
    assert "not a study folder" in r.output and "in use" not in r.output
