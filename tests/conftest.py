"""Settings shared by every test."""

import pytest


@pytest.fixture(autouse=True)
def _no_compile_notices(request, monkeypatch):
    """A command's output must not depend on whether a kernel happens to be compiled already: that
    depends on the tests run before and on the machine's cache (CI starts cold).  So commands say
    nothing about compiling, except in tests marked ``compile_notices``."""
    if request.node.get_closest_marker("compile_notices"):
        return
    import handsim.cli._common as common

    monkeypatch.setattr(common, "COMPILE_NOTICES", False)  # compile_notice: it listens to numba itself
