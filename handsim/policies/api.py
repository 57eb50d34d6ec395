"""``handsim.policies.api`` is :mod:`handsim.games.hand.policies.api` (issue 20 moved classic Hand into ``handsim/games/hand/``);
the old path is kept for one release.

Policy files import the policy API by this path (docs/policies.md); it stays the documented
one, and is the same module object as the new one, so a policy file loads unchanged.

Importing this module makes ``handsim.policies.api`` the very module object of the new path, so names,
private helpers and monkeypatches are shared, not copied.
"""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("handsim.games.hand.policies.api")
