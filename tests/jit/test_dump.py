"""`dy2st dump`: dump() directly and through the command line's main (tests/support_cli.py)."""
import textwrap

import pytest

from dy2st.jit.dump import DumpError, dump
from dy2st.static import InputSpec
from tests.support_cli import run_cli

MODEL = textwrap.dedent('''
    import dy2st as paddle


    def first(x):
        if x.mean() > 0:
            y = x * 2
        else:
            y = x - 1
        return y


    def second(x, n):
        i = 0
        while i < n:
            x = x + 1
            i += 1
        return x


    class Block(paddle.nn.Layer):
        def forward(self, x):
            return x and x
''')


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    return path


def cli(*args, cwd):
    return run_cli("dump", *args, cwd=cwd)


def test_dump_every_function(model_file):
    out = dump(str(model_file))
    assert out.index("# ---- first (model.py:5)") < out.index("# ---- second") < \
        out.index("# ---- Block.forward")
    assert "_jst.IfElse(" in out and "_jst.While(" in out and "_jst.And(" in out


def test_dump_one_function(model_file):
    out = dump(f"{model_file}:first")
    assert "# ---- first" in out and "second" not in out
    assert "def true_fn_0():" in out
    compile(out, "dump", "exec")


def test_dump_method_by_qualname(model_file):
    out = dump(f"{model_file}:Block.forward")
    assert "def forward(self, x):" in out and "_jst.And(" in out


def test_dump_until_a_pass(model_file):
    out = dump(f"{model_file}:first", passes=["return"])
    assert "# after pass return" in out
    assert "_jst.IfElse" not in out and "if x.mean() > 0:" in out
    out = dump(f"{model_file}:first", passes=["ifelse"])
    assert "_jst.IfElse(" in out and "_jst.Call(" not in out     # call runs after ifelse


def test_dump_program(model_file):
    out = dump(f"{model_file}:first", program=True,
               input_specs=[InputSpec([None, 4], "float32", "x")])
    assert "# program" in out
    assert "cond(" in out
    assert "float32[-1, 4]" in out or "float32[?, 4]" in out or "[None, 4]" in out


@pytest.mark.parametrize("target,fragment", [
    ("missing.py", "no such file"),
    ("model.py:nope", "nope"),
])
def test_dump_errors_direct(model_file, target, fragment):
    with pytest.raises(DumpError, match=fragment):
        dump(str(model_file.parent / target))


def test_dump_unknown_pass(model_file):
    with pytest.raises(DumpError, match="unknown pass"):
        dump(str(model_file), passes=["nonsense"])


def test_cli_dump_file(model_file):
    proc = cli(model_file, cwd=model_file.parent)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip() == dump(str(model_file)).rstrip()


def test_cli_dump_qualname_and_pass(model_file):
    proc = cli(f"{model_file}:second", "--pass", "loop", cwd=model_file.parent)
    assert proc.returncode == 0, proc.stderr
    assert "# after pass loop" in proc.stdout and "_jst.While(" in proc.stdout
    assert "first" not in proc.stdout


def test_cli_dump_program(model_file):
    proc = cli(f"{model_file}:first", "--program", "--input-spec", "x:float32[None,4]",
               cwd=model_file.parent)
    assert proc.returncode == 0, proc.stderr
    assert "# program" in proc.stdout and "cond(" in proc.stdout
    assert "model.py:6" in proc.stdout      # ops carry the user's line


def one_line_error(proc, *fragments):
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    for frag in fragments:
        assert frag in proc.stderr, proc.stderr


def test_cli_missing_file(tmp_path):
    one_line_error(cli(tmp_path / "absent.py", cwd=tmp_path), "absent.py")


def test_cli_syntax_error_names_the_line(tmp_path):
    bad = tmp_path / "bad.py"
    source = "def f(x):\n    return x\n\ndef g(x:\n    pass\n"
    bad.write_text(source)
    proc = cli(bad, cwd=tmp_path)
    one_line_error(proc, "bad.py")
    try:        # the line this Python's parser blames (4 on 3.10+, 5 on 3.9)
        compile(source, "bad.py", "exec")
    except SyntaxError as e:
        line = e.lineno
    assert f"line {line}" in proc.stderr, proc.stderr


def test_cli_unknown_function(model_file):
    one_line_error(cli(f"{model_file}:does_not_exist", cwd=model_file.parent), "does_not_exist")


def test_cli_program_needs_input_spec(model_file):
    proc = cli(f"{model_file}:first", "--program", cwd=model_file.parent)
    one_line_error(proc, "--input-spec")
