"""bnb's measured constants: thresholds, node sizes and the first guesses of step costs."""

#: Lists shorter than this are branched by the host (NumPy); the paper switches at 192 nodes.
#: Measured with ``clsolve bench bnb`` on the H100 (ci/results/bench-bnb-h100.json, the
#: host_threshold sweep over ten n = 500 correlated instances): a device step costs about 200 us
#: (two launches and one synchronizing read), a host step over the short lists that the dominance
#: filter leaves about 130 us, so the host keeps lists of up to a few thousand nodes.
HOST_THRESHOLD = 4096
#: Device bytes per node of the list: two buffer sets of (W, P, U, L: 8 bytes, s: 4 bytes) with room
#: for both sons (2 slots), the keep flags (2 bytes) and the origin records (2 x 4 bytes).
NODE_BYTES = 2 * 2 * 36 + 2 + 8
#: Items the host's greedy lower bound visits at most per step (the device's visits all).
HOST_GREEDY_ITEMS = 64
#: Device lists up to this many nodes are filtered for dominance on the host after each step
#: (36 bytes a node each way).
DOMINANCE_MAX_NODES = 2**20
#: The smallest ``max_nodes`` taken: a list cut into chunks of fewer nodes is explored almost node by
#: node, each chunk paying a step's fixed costs (a search of hours on instances a DP solves at once).
MIN_NODES = 256
#: Host bytes per node of a list (W, P, S, U, L as int64).
HOST_NODE_BYTES = 40
#: How often the host bytes of the search are counted (the lists grow at most a few hundred MB/s).
BUDGET_CHECK_SECONDS = 0.02
#: Model of one device step (two launches, one small read, one small write) for ``auto``.
STEP_SECONDS = {"gpu": 6e-5, "other": 2e-4}
#: ``auto``'s estimate multiplies the step model by this when the root's bounds do not meet (the
#: tree's size is unknown): 30, three times dp-states' margin, because on every instance of
#: ``clsolve bench hard-kp`` (H100) dp-states proved what bnb proved, in less time, and more besides.
OPEN_GAP_MARGIN = 30
#: Bytes of one node on the wire (W, P, U, L: 8 bytes, s: 4 bytes).
WIRE_NODE_BYTES = 36
#: Seconds per byte of first touching fresh host memory (page faults): about 0.4 GB/s on a 2-core
#: virtual machine, the slowest host measured (a bare host is several times faster).
HOST_TOUCH_SECONDS = 3e-9
#: First guesses of what the uninterruptible parts of a step cost (overhead s, s per unit); each is
#: replaced by measurements as the search runs (``clsolve.runtime.deadline.Rate``).
FIRST_RATES = {
    "device step": (1e-4, 1e-9),
    "device step (cpu)": (1e-4, 2e-8),
    "host step": (1e-4, 3e-7),
    "filter": (1e-4, 3e-7),
    "transfer": (1e-4, 1e-9),
}
U32_MASK = 0xFFFFFFFF
