"""dy2st.optimizer (paddle.optimizer): SGD, Momentum, Adam, AdamW, RMSProp, Adagrad and the
learning rate schedulers in `lr`."""
from . import lr
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .momentum import Momentum
from .optimizer import Optimizer
from .rmsprop import RMSProp
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "RMSProp", "Adagrad", "lr"]
from .adadelta import Adadelta  # noqa: E402
from .adamax import Adamax  # noqa: E402
from .lamb import Lamb  # noqa: E402
from .rprop import Rprop  # noqa: E402

__all__ += ["Adamax", "Adadelta", "Lamb", "Rprop"]
from .asgd import ASGD  # noqa: E402
from .nadam import NAdam  # noqa: E402
from .radam import RAdam  # noqa: E402

__all__ += ["ASGD", "NAdam", "RAdam"]
