/* What the dense DP kernels share (dp_rows.cl, dp_batch.cl, subset_enum.cl; OpenCL C 1.2): decision
 * bits and capacity states of [LLMF] (Boyer, El Baz, Elkihel).
 *
 * Build options every DP kernel receives from the host (engine/dp/table.py):
 *   VALUE_T     int or long: int when the sum of all profits fits in 2^31 - 1, else long
 *   DIMS        number of capacity dimensions m (1, 2 or 3)
 *   LOCAL_SIZE  work-group size; also fixes the layout of decision bits below
 */
#ifndef DP_STATES_H
#define DP_STATES_H

#ifndef VALUE_T
#error "VALUE_T must be defined (int or long)"
#endif
#ifndef LOCAL_SIZE
#error "LOCAL_SIZE must be defined"
#endif
#ifndef DIMS
#define DIMS 1
#endif

/* Decision bits (one per item and DP state, the U matrix of Algorithm 2.1 in [LLMF]), packed 32
 * to a word. A row of states is cut into tiles of 32 * LOCAL_SIZE states; in tile t, work-item l
 * owns word t * LOCAL_SIZE + l, whose bit j belongs to state t * 32 * LOCAL_SIZE + j * LOCAL_SIZE + l.
 * Reads and writes of values stay coalesced and each work-item writes one whole word: no atomics. */
#define TILE_STATES (32u * LOCAL_SIZE)

inline ulong decision_word(uint state)
{
    return (ulong)(state / TILE_STATES) * LOCAL_SIZE + state % LOCAL_SIZE;
}

inline uint decision_bit(uint state)
{
    return (state / LOCAL_SIZE) % 32u;
}

/* States are the capacity vectors (c1, c2, c3) flattened row-major:
 * state = c1 * span1 + c2 * span2 + c3, with span1 = (C2+1)(C3+1), span2 = C3+1 for m = 3,
 * span1 = C2+1, span2 = 1 (c3 = 0) for m = 2, and span1 = 1, span2 = 0 (c2 = c3 = 0) for m = 1. */
inline uint3 state_capacity(uint state, uint span1, uint span2)
{
#if DIMS == 1
    return (uint3)(state, 0u, 0u);
#elif DIMS == 2
    const uint c1 = state / span1;
    return (uint3)(c1, state - c1 * span1, 0u);
#else
    const uint c1 = state / span1;
    const uint rest = state - c1 * span1;
    const uint c2 = rest / span2;
    return (uint3)(c1, c2, rest - c2 * span2);
#endif
}

/* Whether an item of weight w fits into the capacity vector cap in every dimension. */
inline int fits(uint3 cap, uint3 w)
{
    return cap.x >= w.x && cap.y >= w.y && cap.z >= w.z;
}

/* Offset between a state and the state w lower in every dimension. */
inline uint shift(uint3 w, uint span1, uint span2)
{
    return w.x * span1 + w.y * span2 + w.z;
}

/* Weight vector of an item from the (n x 3) weights array (unused dimensions hold 0). */
inline uint3 item_weight(__global const uint *weights, uint item)
{
    return (uint3)(weights[3 * item], weights[3 * item + 1], weights[3 * item + 2]);
}

/* One backtracking step (Algorithm 2.1 of [LLMF], steps 8-12): reads whether `item` was taken at
 * the capacity vector `rest` from its decision row `row`, records it, and returns the capacity left. */
inline uint3 backtrack_item(__global const uint *row, __global const uint *weights, uint item, uint3 rest,
                            uint span1, uint span2, __global uchar *selected)
{
    const uint state = shift(rest, span1, span2);
    const uint take = (row[decision_word(state)] >> decision_bit(state)) & 1u;
    selected[item] = (uchar)take;
    return take ? rest - item_weight(weights, item) : rest;
}

#endif
