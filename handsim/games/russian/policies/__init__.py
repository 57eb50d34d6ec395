"""Russian Hand's policies (RULES.md §8), under the same policy layer as classic Hand.

* :mod:`.api` - what a Russian Hand policy may observe, plan and do (numba);
* :mod:`.greedy`, :mod:`.patient`, :mod:`.random_play` - the built-in policies, one module
  each, declared with :class:`handsim.policies.Policy` (``game="russian"``);
* :mod:`.registry` - every Russian Hand policy by name, and the engine's generated dispatch.

Policies are written as for classic Hand - ``name`` or ``name:key=value,...``, a line-up one
policy per seat - and read by :func:`handsim.policies.parse_policy` /
:func:`handsim.policies.parse_lineup` with ``game="russian"``.
"""

#: The decision functions Russian Hand's engine calls, each of ``(g, seat)``, in the order it calls
#: them, with what each returns: ``play`` stages a play through :mod:`.api` and returns
#: ``api.PLAY``, or returns ``api.DRAW``.
DECISIONS = {"begin_round": "nothing", "begin_turn": "nothing", "play": "api.DRAW (0), or api.PLAY (1) after staging a play"}
#: Those a policy must give.
REQUIRED = ("play",)
