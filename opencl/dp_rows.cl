/* dp-rows: the row-parallel 0-1 knapsack DP for m = 1..3 capacity dimensions.
 * Paper 000, Algorithms 2.1/2.2 (Boyer's Algorithm 1 in paper 002 for m = 1): one launch per item i,
 * one work-item per group of 32 states of row i, recurrence (1) of paper 000:
 *     f_i(c) = max(f_{i-1}(c), f_{i-1}(c - w_i) + p_i)   if c >= w_i in every dimension
 *     f_i(c) = f_{i-1}(c)                                otherwise
 * with U_i(c) = 1 exactly when the second term is strictly larger (the item is taken).
 */
#include "clsolve.h"

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void dp_rows_item(__global const VALUE_T *prev,      /* f_{i-1}, `states` values            */
                  __global VALUE_T *next,            /* f_i                                 */
                  __global uint *decisions,          /* U rows of the current chunk         */
                  __global const uint *weights,      /* n x 3, each clamped to capacity + 1 */
                  __global const VALUE_T *profits,   /* n                                   */
                  const uint states, const uint span1, const uint span2,
                  const ulong words_per_row, const uint chunk_first, const uint item)
{
    const uint lid = get_local_id(0);
    const uint tile = get_group_id(0);
    const uint w1 = weights[3 * item], w2 = weights[3 * item + 1], w3 = weights[3 * item + 2];
    const VALUE_T p = profits[item];
    const uint base = tile * TILE_STATES + lid;
    uint bits = 0;
    for (uint j = 0; j < 32u; ++j) {
        const uint c = base + j * LOCAL_SIZE;
        if (c >= states)
            break;
        const uint3 cap = state_capacity(c, span1, span2);
        const VALUE_T keep = prev[c];
        VALUE_T best = keep;
        if (cap.x >= w1 && cap.y >= w2 && cap.z >= w3) {
            const VALUE_T take = prev[c - (w1 * span1 + w2 * span2 + w3)] + p;
            if (take > keep) {
                best = take;
                bits |= 1u << j;
            }
        }
        next[c] = best;
    }
    decisions[(ulong)(item - chunk_first) * words_per_row + (ulong)tile * LOCAL_SIZE + lid] = bits;
}

/* Backtracking (steps 8-12 of Algorithm 2.1) over the items of one decision chunk, newest first,
 * by a single work-item; `remaining` carries the capacity left from chunk to chunk. */
__kernel void dp_rows_backtrack(__global const uint *decisions, __global const uint *weights,
                                const ulong words_per_row, const uint span1, const uint span2,
                                const uint chunk_first, const uint chunk_items,
                                __global uint *remaining, __global uchar *selected)
{
    if (get_global_id(0) != 0)
        return;
    uint r1 = remaining[0], r2 = remaining[1], r3 = remaining[2];
    for (uint k = chunk_items; k-- > 0;) {
        const uint item = chunk_first + k;
        const uint state = r1 * span1 + r2 * span2 + r3;
        const uint word = decisions[(ulong)k * words_per_row + decision_word(state)];
        const uint take = (word >> decision_bit(state)) & 1u;
        selected[item] = (uchar)take;
        if (take) {
            r1 -= weights[3 * item];
            r2 -= weights[3 * item + 1];
            r3 -= weights[3 * item + 2];
        }
    }
    remaining[0] = r1;
    remaining[1] = r2;
    remaining[2] = r3;
}
