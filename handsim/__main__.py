"""``python -m handsim``: the command-line interface."""

from handsim.cli import main

if __name__ == "__main__":
    try:
        main()
    finally:
        # CPython (3.8 to at least 3.12) remembers a KeyboardInterrupt that ended an exec() of a
        # string (numba and dataclasses generate code that way) even when handsim caught it, and
        # under `python -m` then ends the process by SIGINT instead of with handsim's exit code
        # (130 after its "Interrupted" line).  An exec() of a string that ends normally clears it.
        exec("")
