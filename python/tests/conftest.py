"""Put the package of this source tree first on the path (tests run from anywhere)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
