"""Classic Hand (هاند, RULES.md §1-7): 2-4 players or 2 v 2, jokers, an opening minimum, a score
per seat and round, matches of rounds.

* :mod:`.game` - the game behind the seam of :mod:`handsim.games` (the protocol of
  :mod:`handsim.games.base`): what the study driver, the command line and the reports ask of it;
* :mod:`.rules` - its options and presets; :mod:`.scoring` - a round's scores (RULES.md §6);
  :mod:`.arrange` - the best arrangement of a hand (the checked wrapper of the numba search);
* :mod:`.kernels` - the numba engine: state, moves, the turn loop, the drivers;
  :mod:`.policies` - the policy API and the built-in policies, the registry, the engines;
* :mod:`.trace` - move logs; :mod:`.checker` - the pure-Python replay checker (the engine's oracle);
* :mod:`.stats`, :mod:`.layout`, :mod:`.tables` - a study's accumulator and its tables;
* :mod:`.report`, :mod:`.sections`, :mod:`.findings`, :mod:`.plots` - a study's report.

The old top-level paths (``handsim.rules``, ``handsim.scoring``, ``handsim.arrange``,
``handsim.trace``, ``handsim.checker``, ``handsim.policies.api`` and the built-in policies'
modules) are the same module objects for one release.
"""
