"""Classic Hand (هاند, RULES.md §1-7): 2-4 players or 2 v 2, jokers, an opening minimum, a score
per seat and round, matches of rounds.

* :mod:`.game` - the game behind the seam of :mod:`handsim.games` (the protocol of
  :mod:`handsim.games.base`): what the study driver, the command line and the reports ask of it;
* :mod:`.stats`, :mod:`.layout`, :mod:`.tables` - a study's accumulator and its tables;
* :mod:`.report`, :mod:`.sections`, :mod:`.findings`, :mod:`.plots` - a study's report.

Its rules, engine, policies and move logs are still the package's top-level modules
(:mod:`handsim.rules`, :mod:`handsim._kernels`, :mod:`handsim.policies`, :mod:`handsim.trace`);
they move here next.
"""
