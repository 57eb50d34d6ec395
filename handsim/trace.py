"""``handsim.trace`` is :mod:`handsim.games.hand.trace` (issue 20 moved classic Hand into ``handsim/games/hand/``);
the old path is kept for one release.

Importing this module makes ``handsim.trace`` the very module object of the new path, so names,
private helpers and monkeypatches are shared, not copied.
"""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("handsim.games.hand.trace")
