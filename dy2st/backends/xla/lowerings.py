"""Every XLA op family at once: importing this module fills table.LOWERINGS and
table.NOT_LOWERABLE (each family registers its lowerings when it is imported; none imports jax
before a program is compiled)."""
from __future__ import annotations

from . import (  # noqa: F401  # noqa: F401
               ops_array,
               ops_collective,
               ops_complex,
               ops_control,
               ops_conv,
               ops_creation,
               ops_detection,
               ops_fft,
               ops_grad,
               ops_host,
               ops_index,
               ops_linalg,
               ops_math,
               ops_nn,
               ops_random,
               ops_reduce,
               ops_shape,
)
from .table import LOWERINGS, NOT_LOWERABLE  # noqa: F401 - the filled table
