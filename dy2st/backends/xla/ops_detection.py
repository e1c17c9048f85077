"""The vision ops on XLA: RoI pooling, deformable sampling and YOLO's targets call their numpy
kernels back from the computation (static shapes); the NMS family's output length depends on
the data, so programs using it run on numpy."""
from __future__ import annotations

from .ops_host import host
from .table import lowers, not_lowerable

VISION_HOST_OPS = ("roi_align", "roi_align_grad", "psroi_pool", "psroi_pool_grad", "roi_pool",
                   "roi_pool_grad", "deform_sample", "deform_sample_grad", "yolo_loss_targets")

lowers(*VISION_HOST_OPS)(host)

not_lowerable("its output length depends on the data (the boxes NMS keeps; XLA needs static "
              "shapes)", "nms", "category_nms", "matrix_nms", "generate_proposals")
