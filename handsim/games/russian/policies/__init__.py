"""Russian Hand's policies (RULES.md §8), under the same policy layer as classic Hand.

* :mod:`.api` - what a Russian Hand policy may observe, plan and do (numba);
* :mod:`.greedy`, :mod:`.patient`, :mod:`.random_play` - the built-in policies, one module
  each, declared with :class:`handsim.policies.Policy` (``game="russian"``);
* :mod:`.registry` - every Russian Hand policy by name, and the engine's generated dispatch.

Policies are written as for classic Hand - ``name`` or ``name:key=value,...``, a line-up one
policy per seat - and read by :func:`handsim.policies.parse_policy` /
:func:`handsim.policies.parse_lineup` with ``game="russian"``.
"""
