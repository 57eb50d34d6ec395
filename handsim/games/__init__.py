"""The games handsim plays, each behind the same seam (options and presets, state, moves, a
driver, a pure-Python checker twin, a result record): ``russian`` (RULES.md section 8).

Classic Hand still lives at the package top level (``handsim.rules``, ``handsim._kernels``).
"""
