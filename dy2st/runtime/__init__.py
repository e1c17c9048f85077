"""The framework user code runs on: eager Tensors, the static Program IR, the op registry and the
executor that compiles Programs."""
from . import ops, side_effects, control_flow, collective  # noqa: F401 - registers every op
from . import tensor_methods

tensor_methods.install()
