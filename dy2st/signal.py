"""paddle.signal: the short-time Fourier transform (stft) and its inverse (istft), composed from
gathers, paddle.fft and an index_add overlap-add, so both are differentiable and convert."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import fft as _fft
from .runtime import ops
from .runtime.dtype import REAL_OF, dtype_name
from .runtime.ops.dims import dims
from .runtime.ops.operands import as_tensor
from .runtime.tensor import Tensor

__all__ = ["stft", "istft"]


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


def _window(window: Any, win_length: int, n_fft: int, dtype: Any, op: str) -> Any:
    """The window, zero-padded on both sides (centred) to n_fft."""
    if window is None:
        window = ops.ones([win_length], dtype)
    else:
        window = as_tensor(window)
        _check(len(dims(window)) == 1 and dims(window)[0] == win_length,
               f"{op}: expected a 1-D window of size win_length ({win_length}), got shape "
               f"{list(dims(window))}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        parts = [ops.zeros([left], window.dtype), window,
                 ops.zeros([n_fft - win_length - left], window.dtype)]
        window = ops.concat(parts, axis=0)
    return window


def _frame_index(length: int, n_fft: int, hop: int, center: bool, pad_mode: str) -> np.ndarray:
    """[frames, n_fft] positions in x (length == x's length: a zero appended by the caller) of
    each frame's samples, after centring pads n_fft // 2 on both sides."""
    pad = n_fft // 2 if center else 0
    padded = length + 2 * pad
    n_frames = 1 + (padded - n_fft) // hop
    pos = hop * np.arange(n_frames)[:, None] + np.arange(n_fft)[None, :] - pad
    if pad_mode == "reflect":
        pos = np.abs(pos)                                   # x[1], x[2], ... before x[0]
        pos = np.where(pos >= length, 2 * (length - 1) - pos, pos)
    else:
        pos = np.where((pos < 0) | (pos >= length), length, pos)   # the appended zero
    return pos


def stft(x: Any, n_fft: int, hop_length: Optional[int] = None, win_length: Optional[int] = None,
         window: Any = None, center: bool = True, pad_mode: str = "reflect",
         normalized: bool = False, onesided: Optional[bool] = None,
         name: Optional[str] = None) -> Any:
    """The short-time Fourier transform of x ([T] or [B, T]): [(B,) n_fft // 2 + 1 (onesided) or
    n_fft, frames], each frame hop_length apart, windowed, centred by padding when `center`."""
    x = as_tensor(x)
    rank = len(dims(x))
    _check(rank in (1, 2), f"stft: x should be a 1-D or 2-D tensor, got rank {rank}")
    if not (x.dtype.is_floating or x.dtype.is_complex):
        x = ops.cast(x, "float32")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    _check(hop > 0, f"stft: hop_length should be > 0, got {hop}")
    _check(0 < win <= n_fft, f"stft: win_length should be in (0, n_fft({n_fft})], got {win}")
    _check(pad_mode in ("reflect", "constant"),
           f'stft: pad_mode should be "reflect" or "constant", got "{pad_mode}"')
    length = dims(x)[-1]
    _check(length >= 0, "stft: the signal length must be known while tracing (declare it in "
                        "the InputSpec)")
    _check(0 < n_fft <= length, f"stft: n_fft should be in (0, seq_length({length})], got {n_fft}")
    _check(not (center and pad_mode == "reflect" and n_fft // 2 >= length),
           f"stft: reflect padding of {n_fft // 2} needs a signal longer than that ({length})")
    x2 = x if rank == 2 else ops.unsqueeze(x, 0)
    real_dtype = REAL_OF.get(x.dtype, x.dtype)
    win_t = _window(window, win, n_fft, real_dtype, "stft")
    if onesided is None:
        onesided = not (x.dtype.is_complex or win_t.dtype.is_complex)
    _check(not (onesided and (x.dtype.is_complex or win_t.dtype.is_complex)),
           "stft: onesided should be False when x or the window is complex")
    index = _frame_index(length, n_fft, hop, center, pad_mode)
    ext = ops.concat([x2, ops.zeros([dims(x2)[0], 1], x2.dtype)], axis=1) \
        if pad_mode == "constant" and center else x2
    frames = ops.index_select(ext, ops.to_tensor(index.reshape(-1)), axis=1)
    frames = ops.reshape(frames, [0, index.shape[0], n_fft]) * win_t
    norm = "ortho" if normalized else "backward"
    if onesided:
        out = _fft.rfft(frames, axis=-1, norm=norm)
    else:
        out = _fft.fft(frames, axis=-1, norm=norm)
    out = ops.transpose(out, [0, 2, 1])
    return out if rank == 2 else ops.squeeze(out, 0)


def istft(x: Any, n_fft: int, hop_length: Optional[int] = None, win_length: Optional[int] = None,
          window: Any = None, center: bool = True, normalized: bool = False,
          onesided: bool = True, length: Optional[int] = None, return_complex: bool = False,
          name: Optional[str] = None) -> Any:
    """The inverse of stft: the signal whose windowed frames have the spectrum x ([n_fft', F] or
    [B, n_fft', F]), by overlap-add divided by the summed squared window."""
    x = as_tensor(x)
    rank = len(dims(x))
    _check(x.dtype.is_complex, f"istft: x should be a complex tensor, got {dtype_name(x.dtype)}")
    _check(rank in (2, 3), f"istft: x should be a 2-D or 3-D complex tensor, got rank {rank}")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    _check(0 < hop <= win, f"istft: hop_length should be in (0, win_length({win})], got {hop}")
    _check(0 < win <= n_fft, f"istft: win_length should be in (0, n_fft({n_fft})], got {win}")
    x3 = x if rank == 3 else ops.unsqueeze(x, 0)
    fft_size, n_frames = dims(x3)[1], dims(x3)[2]
    _check(n_frames > 0, "istft: the number of frames must be known while tracing and > 0")
    want = n_fft // 2 + 1 if onesided else n_fft
    _check(fft_size == want, f"istft: the frequency dim should be {want} (n_fft {n_fft}, "
                             f"onesided={onesided}), got {fft_size}")
    win_t = _window(window, win, n_fft, REAL_OF[x.dtype], "istft")
    norm = "ortho" if normalized else "backward"
    spectra = ops.transpose(x3, [0, 2, 1])                  # [B, frames, n_fft']
    if return_complex:
        _check(not onesided, "istft: onesided should be False when return_complex is True")
        frames = _fft.ifft(spectra, axis=-1, norm=norm)
    else:
        _check(not win_t.dtype.is_complex,
               "istft: the window should be real when return_complex is False")
        if not onesided:
            spectra = spectra[:, :, :n_fft // 2 + 1]
        frames = _fft.irfft(spectra, n=n_fft, axis=-1, norm=norm)
    frames = frames * win_t
    total = n_fft + hop * (n_frames - 1)
    positions = (hop * np.arange(n_frames)[:, None] + np.arange(n_fft)[None, :]).reshape(-1)
    flat = ops.reshape(frames, [0, n_frames * n_fft])
    # overlap-add: each frame's samples added at their positions (total <= frames * n_fft)
    out = ops.index_add(ops.zeros_like(flat[:, :total]), ops.to_tensor(positions), 1, flat)
    envelope = _envelope(win_t, positions, total, n_frames)
    start = n_fft // 2 if center else 0
    stop = total - n_fft // 2 if center and length is None else (
        start + length if length is not None else total)
    out = out[:, start:stop]
    envelope = envelope[start:stop]
    if isinstance(envelope, Tensor):       # eagerly, as Paddle: a traced window is unknown
        _check(float(np.abs(envelope.numpy()).min()) >= 1e-11,
               "istft: the window's overlap-add is 0 somewhere (the NOLA condition fails): "
               "choose a window and hop_length whose squared windows cover every sample")
    out = out / envelope
    if length is not None and dims(out)[-1] < length:
        out = ops.concat([out, ops.zeros([dims(out)[0], length - dims(out)[-1]], out.dtype)],
                         axis=1)
    return out if rank == 3 else ops.squeeze(out, 0)


def _envelope(win_t: Any, positions: np.ndarray, total: int, n_frames: int) -> Any:
    """The overlap-add of the squared window, what istft divides by (differentiable in the
    window, as the window may be a trained parameter)."""
    sq = ops.tile(win_t * win_t, [n_frames])
    return ops.index_add(ops.zeros([total], sq.dtype), ops.to_tensor(positions), 0, sq)
