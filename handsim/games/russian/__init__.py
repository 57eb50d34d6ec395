"""Russian Hand (هاند روسي, RULES.md §8): 2-5 players, 7 cards each, no jokers; a turn draws one
card or plays - lays down, lays off and rearranges the table freely as long as every meld is
legal when the turn ends; the first to empty the hand wins.

* :mod:`.rules` - the options and the ``russian`` preset;
* :mod:`.rearrange` - the exact best play onto a table (the kernel in :mod:`.kernels.rearrange`);
* :mod:`.kernels` - the engine (numba): the table's state, the moves, the turn loop, the drivers;
* :mod:`.policies` - ``greedy``, ``patient``, ``random`` and their API;
* :mod:`.trace` - move logs; :mod:`.checker` - the pure-Python twin that replays them;
* :mod:`.stats`, :mod:`.report` - the statistics and the report of a study;
* :mod:`.game` - the game behind the seam of :mod:`handsim.games`.
"""
