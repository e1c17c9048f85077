"""ifelse pass: if / elif / else and ternaries on tensor and Python predicates, eager == static."""
import re

import numpy as np
import pytest

import dy2st as paddle


def if_elif_else(x):
    if x.mean() > 1:
        y = x * 2
    elif x.mean() > -1:
        y = x - 1
    else:
        y = -x
    return y


def ternary_tensor(x):
    z = x + 1 if x.sum() > 0 else x * 3
    return z * 2


def python_predicate(x, flag):
    if flag:
        y = x + 1
    else:
        y = x - 1
    return y


def python_ternary(x, n):
    return x * 2 if n > 2 else x


def nested(x, y):
    if x.sum() > 0:
        if y.sum() > 0:
            out = x + y
        else:
            out = x - y
    else:
        if y.mean() > 1:
            out = y * 2
        else:
            out = x * y
    return out


def nested_mixed(x, mode):
    if mode == "double":
        if x.sum() > 0:
            r = x * 2
        else:
            r = x * -2
    else:
        r = x if x.max() > 0 else x - 10
    return r


def branch_local_name(x):
    if x.sum() > 0:
        tmp = x * 3
        out = tmp + 1
    else:
        out = x
    return out


def name_only_in_one_branch(x):
    if x.sum() > 0:
        y = x + 1
    return y


def deleted_in_branch(x):
    tmp = x + 1
    if x.sum() > 0:
        out = tmp * 2
        del tmp
    else:
        out = tmp - 1
    return out


def aug_assign(x):
    y = x * 1
    if x.sum() > 0:
        y += 10
        y *= 2
    else:
        y -= 1
    return y


def dict_target(x):
    d = {"k": x, "other": 1}
    if x.sum() > 0:
        d["k"] = x * 2
    else:
        d["k"] = x - 1
    return d["k"], d["other"]


def subscript_target(x):
    y = x * 1
    if x.sum() > 0:
        y[0] = 7.0
    else:
        y[1] = -7.0
    return y


class Box:
    def __init__(self):
        self.v = None


def attribute_target(x):
    box = Box()
    box.v = x
    if x.sum() > 0:
        box.v = x + 5
    return box.v


class Scaler(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.last = None

    def forward(self, x):
        if x.mean() > 0:
            self.last = x * 2
        else:
            self.last = x * -1
        return self.last + 1


def several_outputs(x):
    a = x
    b = x * 0
    if x.sum() > 0:
        a = x + 1
        b = x + 2
    else:
        b = x - 2
    return a, b


def tensor_and_python_outputs(x):
    if x.sum() > 0:
        y = x + 1
        n = 1
    else:
        y = x - 1
        n = 1
    return y, n


POS = np.array([1.0, 2.0, 3.0], np.float32)
MID = np.array([-0.5, 0.0, 0.5], np.float32)
NEG = np.array([-3.0, -4.0, -5.0], np.float32)


def test_if_elif_else_every_branch(check):
    sf = check(if_elif_else, POS, MID, NEG)
    assert sf.num_programs == 1
    assert "cond" in str(sf.program)


def test_ternary_on_tensor(check):
    sf = check(ternary_tensor, POS, NEG)
    assert "IfElseExpr" in sf.code
    assert "cond" in str(sf.program)


def test_python_predicate_stays_python(check):
    sf = check(python_predicate, (POS, True), (POS, False), (NEG, True))
    assert sf.num_programs == 2          # the bool is part of the key
    assert "cond(" not in str(sf.program)


def test_python_ternary(check):
    sf = check(python_ternary, (POS, 3), (POS, 1))
    assert "cond(" not in str(sf.program)


@pytest.mark.parametrize("xs,ys", [(POS, POS), (POS, NEG), (NEG, POS * 5), (NEG, NEG)])
def test_nested_tensor_ifs(check, xs, ys):
    check(nested, (xs, ys))


def test_nested_tensor_inside_python(check):
    check(nested_mixed, (POS, "double"), (NEG, "double"), (POS, "other"), (NEG, "other"))


def ifelse_names_and_outputs(code):
    """[(names, live outputs)] of each _jst.IfElse call in converted code."""
    found = []
    for m in re.finditer(r"_jst\.IfElse\(.*, (\([^()]*\)), (\([^()]*\))\)", code):
        names, outputs = eval(m.group(1)), eval(m.group(2))
        found.append((names, [names[i] for i in outputs]))
    return found


def test_branch_local_name_is_not_an_output(check):
    sf = check(branch_local_name, POS, NEG)
    [(names, live)] = ifelse_names_and_outputs(sf.code)
    assert "tmp" in names           # written in a branch: restored between branches ...
    assert live == ["out"]          # ... but only the live name is merged


def test_name_defined_in_one_branch(check):
    # only the path that defines the name is valid Python; static agrees on it
    check(name_only_in_one_branch, POS, MID + 1)


def test_name_defined_in_one_branch_python_false_path_raises():
    sf = paddle.jit.to_static(name_only_in_one_branch)
    with pytest.raises(Exception):
        name_only_in_one_branch(paddle.to_tensor(NEG))
    # static: the undefined path yields the sentinel; using it must fail or give the true path
    out = sf(paddle.to_tensor(POS))
    np.testing.assert_allclose(out.numpy(), POS + 1)


def test_del_in_branch(check):
    check(deleted_in_branch, POS, NEG)


def test_augmented_assignment_in_branches(check):
    check(aug_assign, POS, NEG)


def test_dict_item_assigned_in_branches(check):
    check(dict_target, POS, NEG)


def test_subscript_assigned_in_branches(check):
    check(subscript_target, POS, NEG)


def test_attribute_assigned_in_branch(check):
    check(attribute_target, POS, NEG)


def test_self_attribute_in_layer_branch(assert_same):
    for data in (POS, NEG):
        layer = Scaler()
        eager = layer(paddle.to_tensor(data))
        eager_last = layer.last
        slayer = paddle.jit.to_static(Scaler())
        static = slayer(paddle.to_tensor(data))
        assert_same(eager, static)
        assert_same(eager_last, slayer.last) if not isinstance(slayer.last, paddle.static.Variable) else None


def test_several_outputs(check):
    check(several_outputs, POS, NEG)


def test_tensor_and_python_outputs(check):
    check(tensor_and_python_outputs, POS, NEG)


def test_code_uses_ifelse_helpers():
    code = paddle.jit.to_static(if_elif_else).code
    assert code.count("_jst.IfElse(") == 2            # elif is a nested if
    assert "def true_fn_" in code and "def false_fn_" in code
    # the converted function is valid Python
    compile(code, "<code>", "exec")


def raise_in_tensor_branch(x):
    if (x < 0).any():
        raise ValueError("negative input")
    else:
        y = x * 2
    return y


def test_raise_in_tensor_branch_happens_only_when_run_through(check):
    import inspect
    X = np.array([0.5, -1.5, 2.0], "float32")
    sf = check(raise_in_tensor_branch, np.abs(X) + 1.0, np.abs(X) * 3.0)
    assert sf.num_programs == 1
    lines, start = inspect.getsourcelines(raise_in_tensor_branch)
    line = start + next(i for i, ln in enumerate(lines) if "raise ValueError" in ln)
    with pytest.raises(ValueError) as info:
        sf(paddle.to_tensor(-np.abs(X) - 1.0))
    msg = str(info.value)
    assert "negative input" in msg and f"line {line}" in msg and 'raise ValueError("negative input")' in msg
    assert sf.num_programs == 1     # the same program raised when run: no re-trace


def assigned_on_one_path_used_under_same_condition(x):
    if x.sum() > 0:
        z = x * 2.0
    if x.mean() > 0:
        y = z + 1
    else:
        y = x
    return y


def assigned_on_one_path_used_after(x):
    if x.sum() > 0:
        z = x * 2.0
    y = z + 1.0
    return y


def test_name_assigned_on_one_path_fails_only_when_used_on_the_other(check):
    X = np.array([0.5, -1.5, 2.0], "float32")
    check(assigned_on_one_path_used_under_same_condition, np.abs(X), -np.abs(X))
    sf = paddle.jit.to_static(assigned_on_one_path_used_after)
    np.testing.assert_allclose(sf(paddle.to_tensor(np.abs(X))).numpy(), np.abs(X) * 2.0 + 1.0)
    with pytest.raises(UnboundLocalError) as info:      # eager raises it too on this path
        sf(paddle.to_tensor(-np.abs(X)))
    assert "'z'" in str(info.value) and "z = x * 2.0" in str(info.value)
    assert sf.num_programs == 1
