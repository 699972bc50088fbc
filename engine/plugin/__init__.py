"""What a solver plugin is and how the engine finds one: the contract (``contract``: ``Solver``,
``BatchSolver``, ``Plan``), the registry of installed plugins by name (``registry``, with
``registry.testing`` for tests), and the option checks every plugin shares (``options``)."""
