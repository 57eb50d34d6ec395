"""Work in a helper thread while the main thread waits, so that Ctrl-C acts at once (a first
call that compiles numba kernels spends a minute outside Python).  Imports nothing heavy: the
command line uses it for commands that compile (``arrange``, ``show-deal``, ``chart``, ...)."""

from __future__ import annotations


def interruptible(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` in a helper thread while this (main) thread waits, so that Ctrl-C or
    a SIGTERM handler acts at once: for a first call that compiles kernels (a minute).  numba's
    compiler spends its longest stretches in LLVM, outside Python: called in the main thread, the
    signal's handler ran only when that returned, seconds to a minute later.  The wait is in the
    main thread, so the handler's exception (``KeyboardInterrupt``) is raised here; the helper is
    a daemon thread, left to end with the process.  What ``fn`` raises is raised here.  Outside
    the main thread ``fn`` is simply called."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return fn(*args, **kwargs)
    box: dict = {}

    def target():
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001 - raised again in the caller's thread
            box["error"] = e

    helper = threading.Thread(target=target, name=f"handsim {getattr(fn, '__name__', 'call')}", daemon=True)
    helper.start()
    while helper.is_alive():
        helper.join(0.1)
    if "error" in box:
        raise box["error"]
    return box.get("value")
