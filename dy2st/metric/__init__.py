"""dy2st.metric: Paddle's evaluation metrics (accuracy and the Metric classes)."""
from .metrics import Accuracy, Metric, Precision, Recall, accuracy

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "accuracy"]
from .auc import Auc  # noqa: E402

__all__ += ["Auc"]
