"""Control flow as ops: `cond` (cond.py) and `while` (while_loop.py) over closed sub-blocks, the
loops tracing unrolled (unrolled.py) and the counted loops the executor and ONNX lower
(counted_loop.py). Their gradients are autograd/control_flow_grad.py's."""
from .cond import GENERATED_NAMES, UndefinedVar, cond, is_undefined, merge_branches
from .values import placeholder_like
from .while_loop import probe, static_while, while_loop

__all__ = ["GENERATED_NAMES", "UndefinedVar", "cond", "is_undefined", "merge_branches",
           "placeholder_like", "probe", "static_while", "while_loop"]
