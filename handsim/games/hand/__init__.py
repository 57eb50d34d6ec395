"""Classic Hand (RULES.md §1-7; presets ``classic``, ``saudi``, ``qahwa``, ``partnership``).

Its modules are moving here from the package root (issue 20: one seam, two games); until that
move is done, most of them still live at the top level (``handsim.rules``, ``handsim._kernels``, ...).
"""
