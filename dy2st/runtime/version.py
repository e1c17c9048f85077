"""The package version (`dy2st.__version__`), where every layer may read it: saved models and
state files record it."""

__version__ = "0.1.0"
