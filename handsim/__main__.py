"""``python -m handsim``: the command-line interface."""

from handsim.cli import main

if __name__ == "__main__":
    main()
