"""paddle.vision.datasets: MNIST, FashionMNIST, Cifar10 and Cifar100 read from Paddle's on-disk files."""
from __future__ import annotations

from .cifar import Cifar10, Cifar100
from .mnist import MNIST, FashionMNIST

__all__ = ["MNIST", "FashionMNIST", "Cifar10", "Cifar100"]
