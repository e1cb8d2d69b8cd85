#!/usr/bin/env python3
"""A ``pre-receive`` hook for a shared catan_p2p remote (see ``catan_p2p/net/hook.py``).

``catan-p2p host init PATH`` installs it for you. By hand, in a bare repository whose
server has catan_p2p installed for the Python that runs this file:

    cp tools/pre_receive.py /srv/catan.git/hooks/pre-receive && chmod +x $_
"""

from __future__ import annotations

import sys

from catan_p2p.net.hook import check_update, main

__all__ = ["check_update", "main"]

if __name__ == "__main__":
    sys.exit(main())
