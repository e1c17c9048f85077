"""nn never imports jit: jit registers the converter a user Layer's forward runs through while a
Program is traced (runtime.registry.hooks.layer_forward)."""
import ast
import pathlib
import subprocess
import sys
import textwrap

import dy2st
from dy2st.runtime.registry import hooks

NN = pathlib.Path(dy2st.__file__).parent / "nn"


def test_no_nn_module_imports_jit():
    offenders = []
    for path in NN.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and "jit" in (node.module or "").split("."):
                offenders.append(f"{path.relative_to(NN)}:{node.lineno}")
            if isinstance(node, ast.Import) and any("jit" in a.name.split(".") for a in node.names):
                offenders.append(f"{path.relative_to(NN)}:{node.lineno}")
    assert not offenders, offenders


def test_jit_registers_the_layer_converter():
    import dy2st.jit.convert_call as convert_call
    assert hooks.layer_forward is convert_call.converted_forward


def test_a_static_program_converts_a_user_layers_tensor_if(tmp_path):
    script = tmp_path / "build.py"
    script.write_text(textwrap.dedent("""
        import sys
        import dy2st as paddle
        from dy2st import static

        class Gate(paddle.nn.Layer):
            def __init__(self):
                super().__init__()
                self.fc = paddle.nn.Linear(3, 3)

            def forward(self, x):
                y = self.fc(x)
                if y.sum() > 0:
                    y = y * 2.0
                else:
                    y = y - 1.0
                return y

        assert "dy2st.jit" not in sys.modules
        main = static.Program()
        with static.program_guard(main):
            x = static.data("x", [None, 3], "float32")
            y = Gate()(x)
        print(" ".join(op.type for op in main.global_block().ops))
    """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         cwd=str(pathlib.Path(dy2st.__file__).parent.parent), check=True)
    assert "cond" in out.stdout.split()
