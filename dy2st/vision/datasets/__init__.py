"""paddle.vision.datasets: MNIST, FashionMNIST, Cifar10, Cifar100, Flowers and VOC2012 read from
Paddle's on-disk files; DatasetFolder and ImageFolder over a directory of images."""
from __future__ import annotations

from .cifar import Cifar10, Cifar100
from .flowers import Flowers
from .folder import DatasetFolder, ImageFolder
from .mnist import MNIST, FashionMNIST
from .voc2012 import VOC2012

__all__ = ["MNIST", "FashionMNIST", "Cifar10", "Cifar100", "Flowers", "VOC2012",
           "DatasetFolder", "ImageFolder"]
