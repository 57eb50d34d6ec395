"""Numba kernels of Russian Hand: private, fast, array-in / array-out.

* :mod:`.rearrange` - the exact table-rearrangement search (self-contained);
* :mod:`.state` - one table's state record, the checks on a staged play, the moves;
* :mod:`.engine` - the turn loop and the drivers (the only module that calls the policies,
  through the generated :mod:`.dispatch`).

The compiled code goes where handsim's other kernels go: ``handsim._kernels`` points numba's cache
at a folder named after a hash of every kernel source, these and the Russian Hand policies
included, so a change in any of them recompiles its callers.
"""

import handsim._kernels  # noqa: F401  (sets numba's cache folder)
