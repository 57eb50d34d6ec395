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


def worker_guard(parent: int | None = None) -> None:
    """Make this (worker) process end when its parent process ends, however that ends (even
    killed with SIGKILL): the initializer of every pool of worker processes.

    On Linux the kernel sends this process SIGKILL when its parent ends (``prctl``
    ``PR_SET_PDEATHSIG``); elsewhere, or if that call fails, a daemon thread checks every half
    second that the parent is still ``os.getppid()`` and ends the process (``os._exit(1)``) when it
    is not (it runs only when the worker is in Python, so an idle worker ends; one stuck in compiled
    code ends on Linux only).  A parent that has already ended ends the process at once.
    ``parent`` is the parent's process id (``os.getppid()`` if not given).  Worker processes forked
    from a handsim process hold none of its folder locks: :mod:`handsim._io` closes them in every
    forked child.
    """
    import os
    import signal
    import sys
    import threading
    import time

    parent = os.getppid() if parent is None else parent
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(1, int(signal.SIGKILL), 0, 0, 0) == 0:  # 1: PR_SET_PDEATHSIG
                if os.getppid() != parent:  # the parent ended before the call
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="handsim parent watch", daemon=True).start()


def stop_pool(ex, grace: float = 5.0) -> bool:
    """Stop a ``concurrent.futures.ProcessPoolExecutor`` on an interruption or an error, instead of
    ``with``'s wait for every item submitted: drop the items not started, give those under way
    ``grace`` seconds, then kill the worker processes if they have not all ended.  Returns whether
    workers had to be killed (an item that did not return)."""
    import contextlib

    procs = list((getattr(ex, "_processes", None) or {}).values())  # (the executor offers no public way)
    manager = getattr(ex, "_executor_manager_thread", None)
    ex.shutdown(wait=False, cancel_futures=True)
    if manager is not None:
        manager.join(grace)
    if manager is None or not manager.is_alive():
        return False
    for p in procs:
        with contextlib.suppress(Exception):
            p.kill()
    for p in procs:
        with contextlib.suppress(Exception):
            p.join(2.0)
    return True


class worker_pool:
    """``with worker_pool(jobs) as ex:`` a ``concurrent.futures.ProcessPoolExecutor`` of ``jobs``
    worker processes (forked where the system can) that end with this process however it ends
    (:func:`worker_guard`), and that an interruption or an error inside the block stops at once
    (:func:`stop_pool`: the items not started are dropped, those under way get ``grace`` seconds)
    instead of playing every item submitted first."""

    def __init__(self, jobs: int, grace: float = 5.0):
        self.jobs, self.grace, self.ex = jobs, grace, None

    def __enter__(self):
        import concurrent.futures as cf
        import multiprocessing as mp
        import os

        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None
        self.ex = cf.ProcessPoolExecutor(max_workers=self.jobs, mp_context=ctx, initializer=worker_guard,
                                         initargs=(os.getpid(),))
        return self.ex

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            self.ex.shutdown(wait=True)
        else:
            stop_pool(self.ex, self.grace)
