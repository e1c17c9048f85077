"""`paddle.static.io`: where Paddle's code also finds the inference-model functions."""
from .inference_model import load_inference_model, save_inference_model

__all__ = ["load_inference_model", "save_inference_model"]
