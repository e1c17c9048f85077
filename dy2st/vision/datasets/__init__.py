"""paddle.vision.datasets: MNIST, FashionMNIST and Cifar10 read from Paddle's on-disk files."""
from __future__ import annotations

from .cifar import Cifar10
from .mnist import MNIST, FashionMNIST

__all__ = ["MNIST", "FashionMNIST", "Cifar10"]
