"""The `dy2st` command end to end: `dy2st.cli.main` run in this process as `python -m dy2st`
would run it (a fresh process costs about a second of CPU each; the suite starts ~70), and
`python -m dy2st` itself in a subprocess where a fresh process is what is checked: the entry
point, a saved model running without its source, PATH without graphviz."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dy2st
from dy2st import static
from dy2st.format.concrete import ConcreteProgram
from dy2st.format.spec_text import format_input_spec, parse_input_spec
from dy2st.jit import translated_layer
from dy2st.static import InputSpec, nn as snn
from tests.support_cli import run_cli

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cli_process(*args, cwd, env=None):
    """`python -m dy2st ARGS` in a fresh process."""
    env = dict(os.environ, PYTHONPATH=REPO, **(env or {}))
    return subprocess.run([sys.executable, "-m", "dy2st", *map(str, args)], cwd=str(cwd), env=env,
                          capture_output=True, text=True, timeout=120)


def cli(*args, cwd):
    """`dy2st ARGS` run by dy2st.cli.main in this process (see tests/support_cli.py)."""
    return run_cli(*args, cwd=cwd)


def user_error(proc, *fragments):
    """Status 2 and one clear line on stderr, no traceback."""
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for frag in fragments:
        assert frag in proc.stderr, proc.stderr


@pytest.fixture
def model(tmp_path):
    """x:float32[None,3], n:int64[] -> (y, count): a cond, a while and a parameter."""
    w = dy2st.Parameter(np.array([1.0, -1.0, 2.0], np.float32), name="w")
    prog = static.Program()
    with static.program_guard(prog):
        x = static.data("x", [None, 3], "float32")
        n = static.data("n", [], "int64")
        y = snn.cond(x.sum() > 0, lambda: x * w, lambda: x - w)
        i, y = snn.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y + 1.0),
                              [dy2st.zeros([], "int64"), y])
    prog.fetch_names = [y.name, i.name]
    from dy2st.runtime.pytree import LEAF
    concrete = ConcreteProgram(prog, [InputSpec([None, 3], "float32", "x"),
                                      InputSpec([], "int64", "n")],
                               ("tuple", (LEAF, LEAF)), [("var", 0), ("var", 1)])
    from dy2st.format import save_concrete
    save_concrete(concrete, str(tmp_path / "model"))
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    np.save(tmp_path / "n.npy", np.array(3))
    return tmp_path / "model"


def test_inspect(model):
    proc = cli("inspect", model, cwd=model.parent)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for frag in ("format: dy2st.model version 1", "x: float32[None, 3]", "n: int64[]",
                 "outputs: (value, value)", "out.0: float32[-1, 3]", "out.1: int64[]",
                 "control flow: cond x1, while x1", "parameters: 1 tensor(s), 3 values, 12 bytes",
                 "w: float32[3]"):
        assert frag in out, out
    assert [ln.split() for ln in out.splitlines() if ln.strip().startswith("while ")] == [["while", "1"]]
    assert "program(" not in out
    full = cli("inspect", str(model) + ".json", "--program", cwd=model.parent)
    assert full.returncode == 0 and "program(x: float32[-1, 3], n: int64[])" in full.stdout
    assert "body_block" in full.stdout


def test_run_prints_outputs(model):
    proc = cli("run", model, "--input", "x.npy", "--input", "n.npy", cwd=model.parent)
    assert proc.returncode == 0, proc.stderr
    assert "out.0: float32[2, 3]" in proc.stdout and "[[4., 2., 5.],\n [4., 2., 5.]]" in proc.stdout
    assert "out.1: int64[]\n3" in proc.stdout


def test_run_writes_npz_and_accepts_named_inputs(model):
    np.save(model.parent / "xneg.npy", -np.ones((5, 3), np.float32))
    proc = cli("run", model, "--input", "n=n.npy", "--input", "x=xneg.npy", "--output", "o.npz",
               cwd=model.parent)
    assert proc.returncode == 0, proc.stderr
    with np.load(model.parent / "o.npz") as out:
        assert sorted(out.files) == ["out.0", "out.1"]
        np.testing.assert_array_equal(out["out.0"], np.tile([1.0, 3.0, -0.0], (5, 1)))
        assert int(out["out.1"]) == 3


@pytest.mark.parametrize("make, fragments", [
    (lambda d: np.save(d / "bad.npy", np.ones((2, 3))), ["input 'x' expects float32[None, 3], got "
                                                        "float64[2, 3]"]),
    (lambda d: np.save(d / "bad.npy", np.ones((2, 4), np.float32)), ["got float32[2, 4]"]),
    (lambda d: np.save(d / "bad.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True),
     ["bad.npy: not a .npy array file"]),
    (lambda d: (d / "bad.npy").write_text("hello"), ["bad.npy: not a .npy array file"]),
])
def test_run_refuses_bad_inputs(model, make, fragments):
    make(model.parent)
    user_error(cli("run", model, "--input", "bad.npy", "--input", "n.npy", cwd=model.parent),
               *fragments)


def test_run_wrong_number_of_inputs_and_missing_files(model):
    user_error(cli("run", model, "--input", "x.npy", cwd=model.parent), "missing 'n' (int64[])")
    user_error(cli("run", model, "--input", "nope.npy", cwd=model.parent),
               "nope.npy: no such input file")
    user_error(cli("run", model.parent / "other", "--input", "x.npy", cwd=model.parent),
               "other.json: no such model file")


def test_model_format_errors_are_user_errors(model):
    text = (model.parent / "model.json").read_text()
    (model.parent / "model.json").write_text(text[:100])
    user_error(cli("inspect", model, cwd=model.parent), "model.json", "is not valid JSON")
    (model.parent / "model.json").write_text(text.replace('"format_version": 1', '"format_version": 7'))
    user_error(cli("inspect", model, cwd=model.parent), "format version 7")


def test_usage_errors(tmp_path):
    assert cli("--help", cwd=tmp_path).returncode == 0
    proc = cli(cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert cli("frobnicate", cwd=tmp_path).returncode == 2


# ----------------------------------------------------------------------------- export / dump
def test_export_refusals(tmp_path):
    (tmp_path / "user_model.py").write_text(textwrap.dedent("""
        import dy2st
        class NotALayer:
            pass
        VALUE = 3
        def f(x):
            return x * 2.0
    """))
    (tmp_path / "broken.py").write_text("raise RuntimeError('boom at import')\n")
    spec = ["--input-spec", "x:float32[None,3]", "-o", "out/m"]
    user_error(cli("export", "missing.py:f", *spec, cwd=tmp_path), "missing.py: no such file")
    user_error(cli("export", "user_model.py", *spec, cwd=tmp_path), "expected MODULE_OR_FILE:OBJECT")
    user_error(cli("export", "user_model.py:g", *spec, cwd=tmp_path), "has no attribute 'g'")
    user_error(cli("export", "user_model.py:NotALayer", *spec, cwd=tmp_path),
               "NotALayer is a class but not a dy2st.nn.Layer")
    user_error(cli("export", "user_model.py:VALUE", *spec, cwd=tmp_path),
               "VALUE is not a Layer or a function (it is a int)")
    user_error(cli("export", "broken.py:f", *spec, cwd=tmp_path),
               "cannot import broken.py: RuntimeError: boom at import")
    user_error(cli("export", "no_such_module_xyz:f", *spec, cwd=tmp_path),
               "cannot import no_such_module_xyz: ModuleNotFoundError")
    user_error(cli("export", "user_model.py:f", "--input-spec", "x:float33[3]", "-o", "m",
                   cwd=tmp_path), "unknown dtype 'float33'")


def _has_jit_save():
    import dy2st.jit
    return hasattr(dy2st.jit, "save")


@pytest.mark.skipif(not _has_jit_save(), reason="dy2st.jit.save is not available yet")
@pytest.mark.parametrize("target", ["user_net.py:f", "user_net:Net", "user_net.py:make"])
def test_export_then_inspect_and_run(tmp_path, target):
    (tmp_path / "user_net.py").write_text(textwrap.dedent("""
        import dy2st
        import dy2st.nn as nn

        def f(x):
            if x.sum() > 0:
                return x * 2.0
            return x - 1.0

        class Net(nn.Layer):
            def __init__(self):
                super().__init__()
                self.scale = self.create_parameter([3], default_initializer=nn.initializer.Constant(2.0))

            def forward(self, x):
                if x.sum() > 0:
                    return x * self.scale
                return x - 1.0

        make = Net()
    """))
    proc = cli("export", target, "--input-spec", "x:float32[None,3]", "-o", "out/m", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    np.save(tmp_path / "pos.npy", np.ones((4, 3), np.float32))
    np.save(tmp_path / "neg.npy", -np.ones((2, 3), np.float32))
    os.remove(tmp_path / "user_net.py")                     # the model runs without its source
    insp = cli("inspect", "out/m", cwd=tmp_path)
    assert insp.returncode == 0 and "control flow: cond x" in insp.stdout, insp.stdout + insp.stderr
    # fresh processes: nothing of the source is left in them
    cli_process("run", "out/m", "--input", "pos.npy", "--output", "pos_out.npz", cwd=tmp_path)
    cli_process("run", "out/m", "--input", "neg.npy", "--output", "neg_out.npz", cwd=tmp_path)
    with np.load(tmp_path / "pos_out.npz") as out:
        np.testing.assert_array_equal(out["out"], np.full((4, 3), 2.0, np.float32))
    with np.load(tmp_path / "neg_out.npz") as out:
        np.testing.assert_array_equal(out["out"], np.full((2, 3), -2.0, np.float32))


def test_dump_user_errors_exit_2(tmp_path):
    user_error(cli("dump", "does_not_exist.py", cwd=tmp_path))
    user_error(cli("dump", "x.py", "--input-spec", "nonsense", cwd=tmp_path), "bad input spec")


# ----------------------------------------------------------------------------- spec text
@pytest.mark.parametrize("text, spec", [
    ("x:float32[None,10]", InputSpec([None, 10], "float32", "x")),
    ("float32[3]", InputSpec([3], "float32")),
    ("int64[]", InputSpec([], "int64")),
    (" ids : int32[ ?, -1 , 4 ] ", InputSpec([None, None, 4], "int32", "ids")),
    ("mask:bool[2]", InputSpec([2], "bool", "mask")),
])
def test_parse_input_spec(text, spec):
    assert parse_input_spec(text) == spec
    assert parse_input_spec(format_input_spec(spec)) == spec


@pytest.mark.parametrize("text, message", [
    ("x:float32", "expected NAME:DTYPE[DIMS]"),
    ("x:float[3]", "unknown dtype 'float'"),
    ("x:float32[3,a]", "dim 'a' is not a size"),
    (":float32[3]", "the name before ':' is empty"),
    ("x:float32[3]]", "expected NAME:DTYPE[DIMS]"),
    ("float32[\u00b2]", "dim '\u00b2' is not a size"),          # a superscript two
    ("x:float32[\u0663,4]", "dim '\u0663' is not a size"),      # an Arabic-Indic three
    ("x:float32[3.5]", "dim '3.5' is not a size"),
    ("x:float32[-2]", "dim '-2' is not a size"),
])
def test_parse_input_spec_errors(text, message):
    with pytest.raises(ValueError) as info:
        parse_input_spec(text)
    assert message in str(info.value) and repr(text) in str(info.value)


# ----------------------------------------------------------------------------- one line, never a traceback
def one_line(proc, status, *fragments):
    """`status` and one line on stderr naming every fragment, no traceback."""
    assert proc.returncode == status, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for frag in fragments:
        assert frag in proc.stderr, proc.stderr


def test_dump_program_of_a_function_whose_trace_fails(tmp_path):
    (tmp_path / "bad.py").write_text(textwrap.dedent("""
        import dy2st as paddle

        def f(x):
            return paddle.matmul(x, paddle.ones([7, 2]))
    """))
    proc = cli("dump", "bad.py:f", "--program", "--input-spec", "x:float32[2,3]", cwd=tmp_path)
    one_line(proc, 1, "bad.py:5", "matmul")
    proc = cli("--traceback", "dump", "bad.py:f", "--program", "--input-spec", "x:float32[2,3]",
               cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" in proc.stderr


def test_dump_honours_a_pep_263_encoding_declaration(tmp_path):
    body = 'import dy2st as paddle\n\ndef g(x):\n    s = "caf\xe9"\n    return x + 1.0\n'
    (tmp_path / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\n" + body.encode("latin-1"))
    proc = cli("dump", "latin.py:g", "--program", "--input-spec", "x:float32[2]", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "caf\xe9" in proc.stdout and "add(" in proc.stdout


def test_dump_of_a_file_that_is_not_utf8(tmp_path):
    body = 'def g(x):\n    s = "caf\xe9"\n    return x\n'
    (tmp_path / "broken.py").write_bytes(body.encode("latin-1"))
    one_line(cli("dump", "broken.py:g", cwd=tmp_path), 2, "broken.py", "utf-8", "PEP 263")
    (tmp_path / "bogus.py").write_bytes(b"# -*- coding: no-such-codec -*-\n" + body.encode())
    one_line(cli("dump", "bogus.py:g", cwd=tmp_path), 2, "bogus.py", "no-such-codec")


def test_run_output_into_a_missing_directory(model):
    proc = cli("run", model, "--input", "x.npy", "--input", "n.npy", "--output",
               "missing/out.npz", cwd=model.parent)
    one_line(proc, 2, "missing/out.npz", "does not exist")


def test_run_input_whose_header_claims_2_pow_40_elements(model):
    import io

    from numpy.lib import format as npy
    buf = io.BytesIO()
    npy.write_array_header_1_0(buf, {"descr": "<f4", "fortran_order": False, "shape": (2 ** 40,)})
    (model.parent / "huge.npy").write_bytes(buf.getvalue() + b"\0" * 16)
    proc = cli("run", model, "--input", "huge.npy", "--input", "n.npy", cwd=model.parent)
    one_line(proc, 2, "huge.npy", "1099511627776")


def test_a_model_failing_while_it_runs_is_one_line_with_status_1(tmp_path):
    from dy2st.format import save_concrete
    from dy2st.runtime.pytree import LEAF
    from dy2st.runtime.side_effects import assert_true
    prog = static.Program()
    with static.program_guard(prog):
        x = static.data("x", [None], "float32")
        assert_true(dy2st.all(x > 0), "x must be positive")
        y = x * 2.0
    prog.fetch_names = [y.name]
    save_concrete(ConcreteProgram(prog, [InputSpec([None], "float32", "x")], LEAF, [("var", 0)]),
                  str(tmp_path / "m"))
    np.save(tmp_path / "neg.npy", np.array([1.0, -1.0], np.float32))
    one_line(cli("run", "m", "--input", "neg.npy", cwd=tmp_path), 1, "x must be positive",
             "test_cli.py")


NET_SOURCE = textwrap.dedent("""
    import dy2st as paddle

    class Net(paddle.nn.Layer):
        def __init__(self, hidden=4):
            super().__init__()
            self.fc = paddle.nn.Linear(3, hidden)

        def forward(self, x):
            y = self.fc(x)
            if y.sum() > 0:
                y = y * 2
            return y
""")


@pytest.fixture
def net_file(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(NET_SOURCE)
    return path


def test_version(tmp_path):
    proc = cli_process("--version", cwd=tmp_path)              # the `python -m dy2st` entry point
    assert proc.returncode == 0 and proc.stdout.strip() == f"dy2st {dy2st.__version__}"


@pytest.mark.parametrize("command", [None, "dump", "export", "inspect", "run"])
def test_every_help_has_an_example(tmp_path, command):
    proc = cli(*([command] if command else []), "--help", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "examples:" in proc.stdout and "dy2st " + (command or "") in proc.stdout


@pytest.mark.parametrize("wrong, meant", [("--inputspec", "--input-spec"), ("--ouput", "--output"),
                                          ("--input_spec", "--input-spec")])
def test_a_misspelled_option_names_the_closest(net_file, wrong, meant):
    proc = cli("export", f"{net_file}:Net", wrong, "x", "-o", net_file.parent / "m",
               cwd=net_file.parent)
    user_error(proc, f"unknown option {wrong} (did you mean {meant}?)")


def test_an_argparse_error_is_one_line(net_file):
    proc = cli("export", f"{net_file}:Net", "--opset-version", "x", "-o", "m", cwd=net_file.parent)
    user_error(proc, "invalid int value: 'x'", "see dy2st export --help")
    user_error(cli("export", cwd=net_file.parent), "required")


def test_a_top_level_option_after_the_command_says_where_it_goes(net_file):
    proc = cli("inspect", net_file, "--traceback", cwd=net_file.parent)
    user_error(proc, "--traceback belongs before the command")


def test_dump_accepts_a_layer_class(net_file):
    proc = cli("dump", f"{net_file}:Net", "--program", "--input-spec", "x:float32[None,3]",
               cwd=net_file.parent)
    assert proc.returncode == 0, proc.stderr
    assert "Net.forward" in proc.stdout and "cond(" in proc.stdout and "linear(" in proc.stdout


def test_dump_graph_writes_dot(net_file):
    out = net_file.parent / "net.dot"
    proc = cli("dump", f"{net_file}:Net", "--program", "--input-spec", "x:float32[None,3]",
               "--graph", out, cwd=net_file.parent)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert text.startswith('digraph "Net.forward"') and "cluster_b1" in text
    assert 'label="float32[?, 3]"' in text and "net.py:" in text


def test_dump_graph_needs_one_program(net_file):
    user_error(cli("dump", net_file, "--graph", net_file.parent / "g.dot", cwd=net_file.parent),
               "--graph draws one Program")


def test_dump_svg_without_graphviz_says_how_to_install(net_file, tmp_path):
    env_path = tmp_path / "empty-bin"
    env_path.mkdir()
    proc = cli_process("dump", f"{net_file}:Net", "--program", "--input-spec", "x:float32[None,3]",
                       "--graph", tmp_path / "g.svg", cwd=tmp_path, env={"PATH": str(env_path)})
    user_error(proc, "apt-get install graphviz")
    assert not (tmp_path / "g.svg").exists()


def test_export_with_init_and_params_matches_the_trained_layer(net_file):
    folder = net_file.parent
    sys.path.insert(0, str(folder))
    try:
        import net as user_module
    finally:
        sys.path.remove(str(folder))
    trained = user_module.Net(hidden=5)
    dy2st.save(trained.state_dict(), str(folder / "net.pdparams"))
    x = np.random.RandomState(0).randn(2, 3).astype(np.float32)
    np.save(folder / "x.npy", x)
    proc = cli("export", f"{net_file}:Net", "--init", '{"hidden": 5}', "--params",
               folder / "net.pdparams", "--input-spec", "x:float32[None,3]", "-o", folder / "m",
               cwd=folder)
    assert proc.returncode == 0, proc.stderr
    loaded = dy2st.jit.load(str(folder / "m"))
    np.testing.assert_allclose(loaded(x).numpy(), trained(dy2st.to_tensor(x)).numpy(), rtol=1e-5)


@pytest.mark.parametrize("extra, fragment", [
    (["--init", "{hidden: 5}"], "--init is not valid JSON"),
    (["--init", "[5]"], "--init must be a JSON object"),
    (["--init", '{"width": 5}'], "cannot create Net(width=5)"),
    (["--params", "missing.pdparams"], "missing.pdparams: no such parameters file"),
    (["--params", "net.py"], "not a state dict saved with paddle.save"),
])
def test_export_init_and_params_errors_are_one_line(net_file, extra, fragment):
    proc = cli("export", f"{net_file}:Net", *extra, "-o", net_file.parent / "m",
               cwd=net_file.parent)
    user_error(proc, fragment)


def test_params_of_another_shape_are_refused(net_file):
    folder = net_file.parent
    dy2st.save({"fc.weight": np.zeros((3, 7), np.float32), "fc.bias": np.zeros(7, np.float32)},
               str(folder / "wide.pdparams"))
    user_error(cli("export", f"{net_file}:Net", "--params", folder / "wide.pdparams", "-o",
                   folder / "m", cwd=folder), "wide.pdparams", "shape")


def test_dump_builds_a_layer_class_with_init(net_file):
    proc = cli("dump", f"{net_file}:Net", "--init", '{"hidden": 6}', "--program", "--input-spec",
               "x:float32[None,3]", cwd=net_file.parent)
    assert proc.returncode == 0, proc.stderr
    assert "float32[3, 6]" in proc.stdout
    proc = cli("dump", f"{net_file}:Net", "--init", '{"hidden": 6}', "--explain", "--input-spec",
               "x:float32[2,3]", cwd=net_file.parent)
    assert proc.returncode == 0, proc.stderr
    assert "Net.forward" in proc.stdout and "breaks: 0" in proc.stdout
    user_error(cli("dump", f"{net_file}:Net", "--init", '{"width": 6}', "--program",
                   "--input-spec", "x:float32[None,3]", cwd=net_file.parent),
               "cannot build Net(width=6)")

@pytest.mark.parametrize("spec", ["float32[\u00b2]", "x:float32[3,\u0663]", "x:float[3]"])
def test_bad_input_spec_on_the_command_line_is_quoted(tmp_path, spec):
    (tmp_path / "m.py").write_text("def f(x):\n    return x + 1\n")
    for command in (["dump", "m.py:f", "--program"], ["export", "m.py:f", "-o", "out"]):
        proc = cli(*command, "--input-spec", spec, cwd=tmp_path)
        one_line(proc, 2, "bad input spec", repr(spec))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("command", ["inspect", "run"])
def test_a_fifo_in_place_of_the_parameters_file_is_refused_not_waited_on(model, command):
    import json
    with open(f"{model}.json", encoding="utf-8") as f:
        npz = os.path.join(model.parent, json.load(f)["parameters_file"]["file"])
    os.unlink(npz)
    os.mkfifo(npz)
    args = [command, model] + (["--input", "x.npy", "--input", "n.npy"] if command == "run" else [])
    one_line(cli(*args, cwd=model.parent), 2, "FIFO", npz)


def test_run_with_a_loop_bound(model):
    """The fixture's while runs n turns: 3 fit a bound of 3, 4 do not (status 1, one line
    naming the while op and the bound)."""
    np.save(model.parent / "four.npy", np.array(4))
    ok = cli("run", model, "--input", "x.npy", "--input", "n.npy", "--max-loop-iterations", "3",
             cwd=model.parent)
    assert ok.returncode == 0, ok.stderr
    one_line(cli("run", model, "--input", "x.npy", "--input", "four.npy",
                 "--max-loop-iterations", "3", cwd=model.parent),
             1, "more than 3 iterations", "while op")
    user_error(cli("run", model, "--max-loop-iterations", "-1", cwd=model.parent), ">= 0")


@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"), reason="no SIGALRM")
def test_run_records_no_backward(model, monkeypatch):
    """A CLI run is inference: recording a backward of the model's trainable parameter kept every
    loop turn's values (3 million turns of this model held 630 MB)."""
    def recording(*args, **kwargs):
        raise AssertionError("dy2st run recorded a backward")
    monkeypatch.setattr(translated_layer, "call_with_grad", recording)
    proc = cli("run", model, "--input", "x.npy", "--input", "n.npy", cwd=model.parent)
    assert proc.returncode == 0, proc.stderr
    assert dy2st.is_grad_enabled()


def test_run_with_a_timeout(model):
    """n = 10**12 turns would take days: --timeout ends the run (status 1, one line). In a
    process of its own, as a user runs it: in an xdist worker the alarm once went unanswered and
    the run grew to 18 GB."""
    np.save(model.parent / "huge.npy", np.array(10 ** 12))
    proc = cli_process("run", model, "--input", "x.npy", "--input", "huge.npy", "--timeout", "1",
                       cwd=model.parent)
    one_line(proc, 1, "ran longer than the --timeout of 1 s")
    user_error(cli("run", model, "--timeout", "0", cwd=model.parent), "--timeout")
