"""paddle.vision.datasets: MNIST, FashionMNIST, Cifar10 and Cifar100 read from Paddle's on-disk files;
DatasetFolder and ImageFolder over a directory of images."""
from __future__ import annotations

from .cifar import Cifar10, Cifar100
from .folder import DatasetFolder, ImageFolder
from .mnist import MNIST, FashionMNIST

__all__ = ["MNIST", "FashionMNIST", "Cifar10", "Cifar100", "DatasetFolder",
           "ImageFolder"]
