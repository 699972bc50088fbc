"""What the multidimensional knapsack's branch and bounds share, on the host: the greedy completion
(``greedy``), the surrogate relaxation and its bound per level (``surrogate``), reduced-cost fixing
at the root (``fixing``), and the search's outcome turned into a solution (``outcome``).
``mkp-bnb`` searches on the host, ``mkp-dfs`` on the device, both over these."""
