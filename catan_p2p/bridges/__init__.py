"""Bridges to other Catan implementations (optional extras; only the commands, tools and
benchmarks import them, and ``strategies`` imports catanatron only when asked for it).

``catanatron``: our positions and actions in catanatron's terms and back, its players
as seats of our games, and its engine as an outside referee of our rules. It needs
``pip install catanatron`` (the ``bench`` and ``dev`` extras install it).
"""
