"""``python -m benchmarks``: the same as ``catan-p2p bench``."""

import sys

from benchmarks.run import main

sys.exit(main())
