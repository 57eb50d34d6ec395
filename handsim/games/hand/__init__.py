"""Classic Hand (هاند, RULES.md §1-7): 2-4 players or 2 v 2, jokers, an opening minimum, a score
per seat and round, matches of rounds.

* :mod:`.game` - the game behind the seam of :mod:`handsim.games` (the protocol of
  :mod:`handsim.games.base`).

Its rules, engine, policies, statistics, reports and move logs are still the package's top-level
modules (:mod:`handsim.rules`, :mod:`handsim._kernels`, :mod:`handsim.policies`,
:mod:`handsim.stats`, :mod:`handsim.report`, :mod:`handsim.trace`); they move here next.
"""
