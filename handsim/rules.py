"""``handsim.rules`` is :mod:`handsim.games.hand.rules` (issue 20 moved classic Hand into ``handsim/games/hand/``);
the old path is kept for one release.

Importing this module makes ``handsim.rules`` the very module object of the new path, so names,
private helpers and monkeypatches are shared, not copied.
"""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("handsim.games.hand.rules")
