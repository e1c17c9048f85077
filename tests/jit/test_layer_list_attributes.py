"""A list kept on a Layer (`self.acc`, `self.d["k"]`, a sublayer's `self.sub.acc`) that forward
grows in a tensor loop: the output and the list after each call agree with eager in both
full_graph settings; jit.save carries a list made anew per call and refuses one kept between
calls that forward reads."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit.grown_state import GrownStateError
from dy2st.static import InputSpec

ROWS = (3, 2, 4)        # another row count on every call


class MadeAnew(paddle.nn.Layer):
    def forward(self, x):
        self.acc = []
        for r in x:
            self.acc.append(r * 2.0)
        return paddle.stack(self.acc).sum()


class Kept(paddle.nn.Layer):
    """The list of `__init__` grows on every call: eager's stack sees all earlier rows too."""

    def __init__(self):
        super().__init__()
        self.acc = []

    def forward(self, x):
        for r in x:
            self.acc.append(r * 2.0)
        return paddle.stack(self.acc).sum()


class Cleared(Kept):
    def forward(self, x):
        self.acc.clear()
        for r in x:
            self.acc.append(r * 2.0)
        return paddle.stack(self.acc).sum()


class DictEntry(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.d = {"k": []}

    def forward(self, x):
        self.d["k"] = []
        for r in x:
            self.d["k"].append(r - 1.0)
        return paddle.stack(self.d["k"]).sum()


class DictEntryCleared(DictEntry):
    def forward(self, x):
        self.d["k"].clear()
        for r in x:
            self.d["k"].extend([r - 1.0])
        return paddle.stack(self.d["k"]).sum()


class Doubler(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.acc = []

    def forward(self, r):
        return r * 2.0


class SublayerList(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.sub = Doubler()

    def forward(self, x):
        self.sub.acc = []
        for r in x:
            self.sub.acc.append(self.sub(r))
        return paddle.stack(self.sub.acc).sum()


class SublayerListCleared(SublayerList):
    def forward(self, x):
        self.sub.acc.clear()
        for r in x:
            self.sub.acc.append(self.sub(r))
        return paddle.stack(self.sub.acc).sum()


class GrownUnderIf(paddle.nn.Layer):
    def forward(self, x):
        self.acc = [x[0]]
        if x.sum() > 0:             # 3 and 4 rows: true; 2 rows: false
            self.acc.append(x[1] * 2.0)
        return paddle.stack(self.acc).sum()


class GrownInWhile(paddle.nn.Layer):
    def forward(self, x):
        self.acc = []
        i = paddle.to_tensor(0)
        while i < x.shape[0]:
            self.acc.append(x[i] * 2.0)
            i = i + 1
        return paddle.stack(self.acc).sum()


def _held(layer):
    """The list the forward grows, as the Layer holds it after a call."""
    if isinstance(layer, DictEntry):
        return layer.d["k"]
    if isinstance(layer, SublayerList):
        return layer.sub.acc
    return layer.acc


def _x(rows):
    return paddle.to_tensor(np.arange(rows * 2, dtype="float32").reshape(rows, 2) - 1.5)


LAYERS = [MadeAnew, Kept, Cleared, DictEntry, DictEntryCleared, SublayerList,
          SublayerListCleared, GrownUnderIf, GrownInWhile]


@pytest.mark.parametrize("full_graph", [False, True])
@pytest.mark.parametrize("cls", LAYERS, ids=lambda c: c.__name__)
def test_output_and_list_after_each_call_agree_with_eager(cls, full_graph):
    eager, layer = cls(), cls()
    static = paddle.jit.to_static(layer, full_graph=full_graph)
    for rows in ROWS:
        want = eager(_x(rows))
        got = static(_x(rows))
        np.testing.assert_allclose(got.numpy(), want.numpy(), err_msg=f"rows={rows}")
        held, eager_held = _held(layer), _held(eager)
        assert type(held) is list and len(held) == len(eager_held), f"rows={rows}"
        for h, w in zip(held, eager_held):
            assert isinstance(h, paddle.Tensor)
            np.testing.assert_allclose(h.numpy(), w.numpy())


@pytest.mark.parametrize("cls", [MadeAnew, Cleared, DictEntryCleared, SublayerList,
                                 GrownUnderIf],
                         ids=lambda c: c.__name__)
def test_a_list_made_anew_per_call_is_saved(cls, tmp_path):
    layer = cls()
    layer(_x(2))          # a list left by an earlier call is no input of the saved program
    spec = [InputSpec([None, 2], "float32")]
    paddle.jit.save(paddle.jit.to_static(layer, input_spec=spec), str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    eager = cls()
    for rows in ROWS:
        np.testing.assert_allclose(loaded(_x(rows)).numpy(), eager(_x(rows)).numpy(),
                                   err_msg=f"rows={rows}")


def test_a_list_kept_between_calls_is_refused_by_save(tmp_path):
    spec = [InputSpec([None, 2], "float32")]
    with pytest.raises(GrownStateError, match=r"Kept.forward grows the list `self.acc` .*line "
                                              r"\d+\) without making it anew.*reads it"):
        paddle.jit.save(paddle.jit.to_static(Kept(), input_spec=spec), str(tmp_path / "m"))
    assert not (tmp_path / "m.json").exists() and not list(tmp_path.iterdir())


class Logged(paddle.nn.Layer):
    """A list only appended to (a log no call reads) does not change what a call returns."""

    def __init__(self):
        super().__init__()
        self.log = []

    def forward(self, x):
        y = x * 3.0
        self.log.append(y.shape[0])
        return y


def test_a_kept_list_that_forward_never_reads_is_saved(tmp_path):
    spec = [InputSpec([None, 2], "float32")]
    paddle.jit.save(paddle.jit.to_static(Logged(), input_spec=spec), str(tmp_path / "m"))
    np.testing.assert_allclose(paddle.jit.load(str(tmp_path / "m"))(_x(2)).numpy(),
                               _x(2).numpy() * 3.0)
