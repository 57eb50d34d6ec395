"""Classic Hand's numba kernels (RULES.md §1-7): private, fast, array-in / array-out.

:mod:`handsim._kernels` is imported first: it points numba's cache at a folder named after a hash
of every game's kernel sources, before any kernel module is compiled or loaded.
"""

import handsim._kernels  # noqa: F401  (configures the compile cache before any kernel is imported)
