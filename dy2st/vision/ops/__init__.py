"""paddle.vision.ops: detection and region operators (NMS family, box coding, anchors, YOLO
heads and loss, RoI pooling, deformable convolution) and image file reading."""
from __future__ import annotations

from ...nn.functional.deform_conv import deform_conv2d
from ...nn.layers.deform_conv import DeformConv2D
from .boxes import box_coder, prior_box
from .conv_norm import ConvNormActivation
from .image_io import decode_jpeg, read_file
from .nms import distribute_fpn_proposals, generate_proposals, matrix_nms, nms
from .roi import PSRoIPool, RoIAlign, RoIPool, psroi_pool, roi_align, roi_pool
from .yolo import yolo_box, yolo_loss

# ConvNormActivation is public in Paddle's vision.ops without being in its __all__
__all__ = ["yolo_loss", "yolo_box", "prior_box", "box_coder", "deform_conv2d", "DeformConv2D",
           "distribute_fpn_proposals", "generate_proposals", "read_file", "decode_jpeg",
           "roi_pool", "RoIPool", "psroi_pool", "PSRoIPool", "roi_align", "RoIAlign", "nms",
           "matrix_nms"]
