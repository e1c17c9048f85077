"""The ONNX standing of the special-function, bit-arithmetic and sampling ops added for API
coverage: none has an ONNX operator that computes it exactly, so each is listed with why."""
from __future__ import annotations

from .table import not_exportable

not_exportable("ONNX has no gamma-family, inverse-erf or Bessel operators (a polynomial "
               "approximation would not match dy2st's float64 kernels)",
               "lgamma", "digamma", "polygamma", "erfinv", "i0", "i0e", "i1", "i1e", "gammainc",
               "gammaincc")
not_exportable("ONNX has no gcd / lcm / nextafter operators, and its BitShift is defined for "
               "unsigned integers only", "gcd", "lcm", "nextafter", "bitwise_shift")
not_exportable("random sampling: ONNX's random ops cannot reproduce dy2st's generator",
               "poisson", "binomial", "standard_gamma")
not_exportable("the output length depends on the values (runs of equal entries, the most "
               "frequent value), which ONNX's Unique does not compute", "unique_consecutive",
               "mode_index")
