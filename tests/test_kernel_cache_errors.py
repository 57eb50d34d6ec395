"""A kernel cache that cannot be written is named (issue 23, cause 7).

numba writes each compiled kernel to the cache folder (``$HANDSIM_CACHE_DIR``, see
``handsim._kernels``); on a full or read-only device its error is a bare "No space left on device"
that names no path.  handsim's one line names the cache folder and how to move it, exit 1 (a
failure to write), no traceback.  The device is made full by making numba's cache writes fail with
the error a full device gives (ENOSPC), in a fresh interpreter with an empty cache, so the command
really compiles and really tries to write.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap

import pytest

#: A command that compiles a kernel and so writes the cache: the meld search of ``handsim arrange``.
_RUN = textwrap.dedent("""
    import errno, sys
    import numba.core.caching as caching

    def full(self, *args, **kwargs):
        raise OSError(errno.{err}, {text!r})

    caching.IndexDataCacheFile.{method} = full
    from handsim.cli import main
    sys.argv = ["handsim", "arrange", "QH", "KH", "AH", "5S", "5D", "5C"]
    main()
""")


@pytest.mark.parametrize("method", ["_save_data", "_save_index"])
@pytest.mark.parametrize("err, text", [("ENOSPC", "No space left on device"), ("EROFS", "Read-only file system")])
def test_a_cache_that_cannot_be_written_is_named_with_the_way_to_move_it(tmp_path, method, err, text):
    cache = tmp_path / "cache"
    env = {**os.environ, "HANDSIM_CACHE_DIR": str(cache)}
    env.pop("HANDSIM_TRACEBACK", None)
    code = _RUN.format(err=err, text=text, method=method)
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 1, p.stderr
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    # the compile notice, then one line
    assert len(lines) == 2 and lines[0].startswith("Compiling the meld search"), p.stderr
    line = lines[1]
    assert line.startswith("Error: cannot write the compiled-kernel cache in ")
    assert str(cache) in line and text in line and "HANDSIM_CACHE_DIR" in line
    assert getattr(errno, err) in (errno.ENOSPC, errno.EROFS)


def test_other_write_failures_keep_their_own_message():
    """An OSError from elsewhere (not numba's cache) keeps the plain form, naming its file."""
    from handsim.cli._common import _exception_text

    try:
        open("/nonexistent-folder-of-handsim/x", "w")
    except OSError as e:
        msg, code = _exception_text(e)
    assert code == 1
    assert msg == "No such file or directory (/nonexistent-folder-of-handsim/x)"
