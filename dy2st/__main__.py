"""`python -m dy2st`: the same command line as the `dy2st` script."""
import sys

from .cli import main

sys.exit(main())
