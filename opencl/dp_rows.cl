/* dp-rows: the row-parallel 0-1 knapsack DP for m = 1..3 capacity dimensions.
 * [LLMF], Algorithms 2.1/2.2 (Boyer's Algorithm 1 in [HC22] for m = 1): one launch per item i,
 * one work-item per group of 32 states of row i (dp_rows_item), or two items per launch
 * (dp_rows_pair, below), or GROUP = 3 or 4 (dp_rows_group), recurrence (1) of [LLMF]:
 *     f_i(c) = max(f_{i-1}(c), f_{i-1}(c - w_i) + p_i)   if c >= w_i in every dimension
 *     f_i(c) = f_{i-1}(c)                                otherwise
 * with U_i(c) = 1 exactly when the second term is strictly larger (the item is taken).
 */
#include "dp_states.h"

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void dp_rows_item(__global const VALUE_T *restrict prev, /* f_{i-1}, `states` values            */
                  __global VALUE_T *restrict next,       /* f_i                                 */
                  __global uint *restrict decisions,     /* U rows of the current chunk, from   */
                  const ulong decisions_offset,          /* this word on                        */
                  __global const uint *weights,      /* n x 3, each clamped to capacity + 1 */
                  __global const VALUE_T *profits,   /* n                                   */
                  const uint states, const uint span1, const uint span2,
                  const ulong words_per_row, const uint chunk_first, const uint item)
{
    const uint lid = get_local_id(0);
    const uint tile = get_group_id(0);
    const uint3 w = item_weight(weights, item);
    const uint s = shift(w, span1, span2);
    const VALUE_T p = profits[item];
    const uint base = tile * TILE_STATES + lid;
    uint bits = 0;
    #pragma unroll 8
    for (uint j = 0; j < 32u; ++j) {
        const uint c = base + j * LOCAL_SIZE;
        if (c >= states)
            continue;  /* not break: keeps the unrolled loads independent */
        const VALUE_T keep = prev[c];
        VALUE_T best = keep;
        if (fits(state_capacity(c, span1, span2), w)) {
            const VALUE_T take = prev[c - s] + p;
            if (take > keep) {
                best = take;
                bits |= 1u << j;
            }
        }
        next[c] = best;
    }
    decisions[decisions_offset + (ulong)(item - chunk_first) * words_per_row + (ulong)tile * LOCAL_SIZE + lid] = bits;
}

/* Two items a = item, b = item + 1 in one pass, so a row is read and written once per two items:
 *     f_a(x) = max(f(x), f(x - w_a) + p_a)                  (f = f_{a-1}, x >= w_a)
 *     f_b(c) = max(f_a(c), f_a(c - w_b) + p_b)              (c >= w_b)
 * reading f at c, c - w_a, c - w_b and c - w_a - w_b (neighbours, mostly cache hits). The decision
 * bits are those of the one-item recurrence: U_a(c) from f_a(c), U_b(c) from f_b(c). */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void dp_rows_pair(__global const VALUE_T *restrict prev, __global VALUE_T *restrict next,
                  __global uint *restrict decisions, const ulong decisions_offset,
                  __global const uint *weights, __global const VALUE_T *profits,
                  const uint states, const uint span1, const uint span2,
                  const ulong words_per_row, const uint chunk_first, const uint item)
{
    const uint lid = get_local_id(0);
    const uint tile = get_group_id(0);
    const uint3 wa = item_weight(weights, item), wb = item_weight(weights, item + 1);
    const uint sa = shift(wa, span1, span2), sb = shift(wb, span1, span2);
    const VALUE_T pa = profits[item], pb = profits[item + 1];
    const uint base = tile * TILE_STATES + lid;
    uint bits_a = 0, bits_b = 0;
    #pragma unroll 8
    for (uint j = 0; j < 32u; ++j) {
        const uint c = base + j * LOCAL_SIZE;
        if (c >= states)
            continue;  /* not break: keeps the unrolled loads independent */
        const uint3 cap = state_capacity(c, span1, span2);
        const VALUE_T f_c = prev[c];
        VALUE_T fa_c = f_c;
        if (fits(cap, wa)) {
            const VALUE_T take = prev[c - sa] + pa;
            if (take > f_c) {
                fa_c = take;
                bits_a |= 1u << j;
            }
        }
        VALUE_T best = fa_c;
        if (fits(cap, wb)) {
            const uint cb = c - sb;
            VALUE_T fa_cb = prev[cb];
            if (fits(cap - wb, wa))
                fa_cb = max(fa_cb, prev[cb - sa] + pa);
            const VALUE_T take = fa_cb + pb;
            if (take > fa_c) {
                best = take;
                bits_b |= 1u << j;
            }
        }
        next[c] = best;
    }
    const ulong word = decisions_offset + (ulong)(item - chunk_first) * words_per_row + (ulong)tile * LOCAL_SIZE + lid;
    decisions[word] = bits_a;
    decisions[word + words_per_row] = bits_b;
}

#ifdef GROUP
/* GROUP (3 or 4) items j = 0 .. GROUP-1 from `item` on, in one pass: f_j(x) = max(f_{j-1}(x),
 * f_{j-1}(x - w_j) + p_j) evaluated for state c at the points x = c - W(S), W(S) the weight of a set
 * S of later items (S in {j+1 ..}, kept as a bit mask), so f (= f_{item-1}) is read at the 2^GROUP
 * points c - W(S) (those inside the capacity: fits), g[S] carries f_j(c - W(S)) from item to item,
 * and g[0] ends as f_{item+GROUP-1}(c). U_j(c) is the one-item recurrence's bit: f_j(c) from the
 * take branch, strictly larger. Weight sums saturate (add_sat): a sum past the capacity never fits. */
#define POINTS (1u << GROUP)
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void dp_rows_group(__global const VALUE_T *restrict prev, __global VALUE_T *restrict next,
                   __global uint *restrict decisions, const ulong decisions_offset,
                   __global const uint *weights, __global const VALUE_T *profits,
                   const uint states, const uint span1, const uint span2,
                   const ulong words_per_row, const uint chunk_first, const uint item)
{
    const uint lid = get_local_id(0);
    const uint tile = get_group_id(0);
    uint3 sum_w[POINTS];
    VALUE_T p[GROUP];
    uint bits[GROUP];
    sum_w[0] = (uint3)(0u, 0u, 0u);
#pragma unroll
    for (uint j = 0; j < GROUP; ++j) {
        const uint3 w = item_weight(weights, item + j);
        p[j] = profits[item + j];
        bits[j] = 0;
#pragma unroll
        for (uint S = 0; S < (1u << j); ++S)
            sum_w[S | (1u << j)] = add_sat(sum_w[S], w);
    }
    const uint base = tile * TILE_STATES + lid;
    for (uint k = 0; k < 32u; ++k) {
        const uint c = base + k * LOCAL_SIZE;
        if (c >= states)
            continue;
        const uint3 cap = state_capacity(c, span1, span2);
        VALUE_T g[POINTS];
#pragma unroll
        for (uint S = 0; S < POINTS; ++S)
            g[S] = fits(cap, sum_w[S]) ? prev[c - shift(sum_w[S], span1, span2)] : 0;  /* 0: never read */
#pragma unroll
        for (uint j = 0; j < GROUP; ++j) {
#pragma unroll
            for (uint S = 0; S < POINTS; S += 2u << j) {  /* the sets of items after j */
                const uint T = S | (1u << j);
                if (fits(cap, sum_w[T])) {
                    const VALUE_T take = g[T] + p[j];
                    if (take > g[S]) {
                        g[S] = take;
                        if (S == 0)
                            bits[j] |= 1u << k;
                    }
                }
            }
        }
        next[c] = g[0];
    }
    const ulong word = decisions_offset + (ulong)(item - chunk_first) * words_per_row + (ulong)tile * LOCAL_SIZE + lid;
#pragma unroll
    for (uint j = 0; j < GROUP; ++j)
        decisions[word + j * words_per_row] = bits[j];
}
#endif

/* Backtracking (steps 8-12 of Algorithm 2.1) over the items of one decision chunk, newest first,
 * by a single work-item; `remaining` carries the capacity left from chunk to chunk. */
__kernel void dp_rows_backtrack(__global const uint *decisions, const ulong decisions_offset,
                                __global const uint *weights,
                                const ulong words_per_row, const uint span1, const uint span2,
                                const uint chunk_first, const uint chunk_items,
                                __global uint *remaining, __global uchar *selected)
{
    if (get_global_id(0) != 0)
        return;
    uint3 rest = (uint3)(remaining[0], remaining[1], remaining[2]);
    for (uint k = chunk_items; k-- > 0;)
        rest = backtrack_item(decisions + decisions_offset + (ulong)k * words_per_row, weights, chunk_first + k, rest,
                              span1, span2, selected);
    remaining[0] = rest.x;
    remaining[1] = rest.y;
    remaining[2] = rest.z;
}
