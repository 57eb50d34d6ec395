"""Numba kernels of Russian Hand: private, fast, array-in / array-out.

Each kernel module here is self-contained (it calls no kernel in another file), so numba's
per-file compilation cache can never hold a stale caller.  The compiled code goes where
handsim's other kernels go (``handsim._kernels`` points numba's cache there on import).
"""

import handsim._kernels  # noqa: F401  (sets numba's cache folder)
