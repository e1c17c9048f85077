"""Ops that only gradient (training) programs use, listed as not exportable: an exported model is
an inference graph, and jit.save / onnx.export trace Layers in eval mode without gradients."""
from __future__ import annotations

from .table import not_exportable

TRAINING_ONLY = ("training-only: a gradient kernel that only backward programs use; export the "
                 "inference function (a Layer in eval mode) instead")

# the gradients of tensor arrays (lists built in tensor loops)
not_exportable(TRAINING_ONLY, "array_grad_add", "array_grad_clear", "array_grad_head",
               "array_grad_insert", "array_grad_put", "array_grad_read", "array_grad_split",
               "array_grad_tail", "array_grad_unslice", "array_grad_unstack")
# gradients of forward ops
not_exportable(TRAINING_ONLY, "conv_nd_filter_grad", "conv_nd_input_grad", "cumprod_grad",
               "diag_grad", "embedding_grad", "gather_grad", "gather_nd_grad", "grid_sample_grad",
               "masked_select_grad", "pad_grad", "resample_grad", "split_grad",
               "strided_slice_grad", "tile_grad", "unbind_grad", "grid_sample_grad_grad", "gelu_grad")
# a compiled train step's gradient bookkeeping (a cleared gradient, accumulation onto it)
not_exportable(TRAINING_ONLY, "grad_clear", "grad_accumulate", "grad_present")
# helpers of gradient rules: the winner of each scattered position, a loss's one-hot target
not_exportable(TRAINING_ONLY, "scatter_winners", "hard_label_target")
not_exportable("training-only: a loss, computed in training, not in exported inference graphs",
               "bce_loss", "sigmoid_cross_entropy_with_logits")
not_exportable("a collective across the processes of a data-parallel job: an exported model "
               "runs in one process", "c_allreduce", "c_allgather", "c_broadcast",
               "c_reducescatter", "c_alltoall", "sync_batch_norm_stats")
