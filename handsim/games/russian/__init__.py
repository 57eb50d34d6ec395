"""Russian Hand (هاند روسي, RULES.md §8): 2-5 players, 7 cards each, no jokers; a turn draws one
card or plays - lays down, lays off and rearranges the table freely as long as every meld is
legal when the turn ends; the first to empty the hand wins.

* :mod:`.rules` - the options and the ``russian`` preset;
* :mod:`.rearrange` - the exact best play onto a table (the kernel in :mod:`.kernels.rearrange`);
* :mod:`.checker` - the pure-Python check of a play.
"""
