"""paddle.enable_compat / disable_compat: `import torch` gives proxies of dy2st's modules,
globally or for the imports of chosen modules only, and disable_compat undoes it."""
import importlib
import importlib.util
import sys

import pytest

import dy2st as paddle
from dy2st.utils.torch_proxy import FINDER, ProxyModule

# where a real torch is installed, a refused import finds it instead of failing
REAL_TORCH = importlib.util.find_spec("torch") is not None


def assert_no_proxy(module_name):
    if REAL_TORCH and module_name == "torch":
        assert not isinstance(importlib.import_module("torch"), ProxyModule)
        sys.modules.pop("torch")
        return
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(module_name)


@pytest.fixture
def clean_compat():
    assert not any(m == "torch" or m.startswith("torch.") for m in sys.modules), \
        "these tests assume no real torch is imported"
    yield
    if FINDER in sys.meta_path:
        paddle.disable_compat()


def test_global_compat_maps_torch_names_to_dy2st(clean_compat):
    paddle.enable_compat()
    import torch
    import torch.nn.functional as F
    from torch import nn
    assert torch.sin is paddle.sin and torch.Tensor is paddle.Tensor
    assert nn.Linear is paddle.nn.Linear and torch.nn.functional is F
    assert F.relu is paddle.nn.functional.relu is torch.relu     # Paddle's torch.relu override
    y = torch.matmul(torch.ones([2, 3]), torch.ones([3, 1]))
    assert y.shape == [2, 1] and float(y.sum()) == 6.0
    paddle.disable_compat()
    assert "torch" not in sys.modules
    assert_no_proxy("torch")
    with pytest.warns(UserWarning, match="not enabled"):
        paddle.disable_compat()


def test_scoped_compat_applies_to_the_named_modules_only(clean_compat, tmp_path, monkeypatch):
    (tmp_path / "uses_torch.py").write_text("import torch\nSIN = torch.sin\n")
    (tmp_path / "blocked_user.py").write_text("import torch\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    paddle.enable_compat(scope={"uses_torch"}, blocked_modules="blocked_user")
    assert_no_proxy("torch")          # this module is not in the scope
    assert importlib.import_module("uses_torch").SIN is paddle.sin
    with pytest.warns(UserWarning, match="globally"):
        paddle.enable_compat()
    sys.modules.pop("torch", None)
    if not REAL_TORCH:
        assert_no_proxy("blocked_user")    # blocked even when enabled globally
    for name in ("uses_torch", "blocked_user"):
        sys.modules.pop(name, None)


def test_only_the_torch_backend_exists(clean_compat):
    with pytest.raises(ValueError, match="only 'torch'"):
        paddle.enable_compat(backend="jax")
