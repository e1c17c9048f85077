"""Every model family runs on each backend: to_static and jit.load read $DY2ST_BACKEND, which
this fixture sets (the xla runs skip where jax is not installed)."""
import importlib.util

import pytest

BACKENDS = ["numpy", "xla"]


@pytest.fixture(autouse=True, params=BACKENDS)
def backend(request, monkeypatch):
    if request.param == "xla" and importlib.util.find_spec("jax") is None:
        pytest.skip("jax is not installed (pip install 'dy2st[xla]')")
    monkeypatch.setenv("DY2ST_BACKEND", request.param)
    return request.param
