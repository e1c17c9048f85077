"""Pass tests import their random-program helpers (random_programs.py) from this folder."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
