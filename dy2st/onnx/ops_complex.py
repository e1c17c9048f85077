"""The complex and FFT ops in the ONNX table: ONNX has complex tensor types, but no operator
computes on them (its DFT takes and returns the [..., 2] real form), so these are refused."""
from __future__ import annotations

from .table import not_exportable

COMPLEX_REASON = ("ONNX operators do not compute on complex tensors; export a model whose "
                  "inputs, parameters and outputs are real (take paddle.real / paddle.abs "
                  "before returning)")

not_exportable(COMPLEX_REASON, "complex", "real", "imag", "conj", "angle", "as_complex", "as_real",
               "eig")
not_exportable(COMPLEX_REASON, "fft_c2c", "fft_r2c", "fft_c2r", "fft_r2c_grad", "fft_c2r_grad")
