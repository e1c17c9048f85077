"""Every ONNX op family at once: importing this module fills table.LOWERINGS and
table.NOT_EXPORTABLE (each family registers its lowerings when it is imported)."""
from __future__ import annotations

from . import (  # noqa: F401  # noqa: F401
               ops_activation,
               ops_array,
               ops_complex,
               ops_control,
               ops_conv,
               ops_creation,
               ops_detection,
               ops_gather,
               ops_grad,
               ops_index,
               ops_linalg,
               ops_math,
               ops_nn,
               ops_pool,
               ops_reduce,
               ops_resample,
               ops_shape,
               ops_side_effects,
               ops_sorting,
               ops_special,
               ops_stats,
               ops_training,
)
from .table import LOWERINGS, NOT_EXPORTABLE  # noqa: F401 - the filled table
