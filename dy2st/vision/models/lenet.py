"""LeNet as Paddle defines it (features: two conv blocks; fc: three Linear layers)."""
from __future__ import annotations

from typing import Any

from ... import nn
from ...runtime import ops


class LeNet(nn.Layer):
    """LeNet-5 for 1x28x28 images; num_classes <= 0 drops the fc head."""

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        if num_classes > 0:
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84),
                                    nn.Linear(84, num_classes))

    def forward(self, inputs: Any) -> Any:
        x = self.features(inputs)
        if self.num_classes > 0:
            x = ops.flatten(x, 1)
            x = self.fc(x)
        return x
