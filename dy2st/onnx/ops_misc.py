"""Gathering, selection, sorting, scans and statistics: the ops of these families that have no
ONNX lowering yet (each listed so that exporting a program that uses one names it)."""
from __future__ import annotations

from .table import not_exportable

not_exportable("no ONNX lowering written yet",
               "allclose", "equal_all", "isclose",
               "gather", "gather_nd", "put_along_axis", "scatter", "take_along_axis",
               "masked_select", "nonzero", "argsort", "sort", "topk", "unique",
               "cumsum", "cumprod", "logsumexp", "norm", "std", "var")
