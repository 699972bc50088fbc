/* dp-rows: the row-parallel 0-1 knapsack DP for m = 1..3 capacity dimensions.
 * [LLMF], Algorithms 2.1/2.2 (Boyer's Algorithm 1 in [HC22] for m = 1): one launch per item i,
 * one work-item per group of 32 states of row i (dp_rows_item), or two items per launch
 * (dp_rows_pair, below), or GROUP = 3 or 4 (dp_rows_group), or many passes of GROUP = 1 to 4 items
 * chained in one launch (dp_rows_chain), or one or two items per launch leaving out the states a
 * bound excludes (dp_rows_bounded, build option BOUNDED), or runs of light items on chip, a tile and
 * its halo in local memory (dp_rows_block, build option HALO_ROWS), recurrence (1) of [LLMF]:
 *     f_i(c) = max(f_{i-1}(c), f_{i-1}(c - w_i) + p_i)   if c >= w_i in every dimension
 *     f_i(c) = f_{i-1}(c)                                otherwise
 * with U_i(c) = 1 exactly when the second term is strictly larger (the item is taken).
 * The launches of one or a group of items cover the tiles from `first_tile` on: for m = 1 the host
 * starts them at the tile of C - (the weight of the items after the pass's first), the least
 * capacity a trace-back from C can reach there; states below it are never read back.
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
                  const ulong words_per_row, const uint chunk_first, const uint item,
                  const uint first_tile)
{
    const uint lid = get_local_id(0);
    const uint tile = first_tile + get_group_id(0);
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
                  const ulong words_per_row, const uint chunk_first, const uint item,
                  const uint first_tile)
{
    const uint lid = get_local_id(0);
    const uint tile = first_tile + get_group_id(0);
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

#ifdef HALO_ROWS
/* Several light items per pass on chip (temporal blocking, m = 1): work-group t holds in local memory
 * the states of its tile and the HALO_ROWS x LOCAL_SIZE below it, reads them from f_{item-1} once,
 * applies `count` items (at most MAX_BLOCK, their weights summing to at most the halo) one after
 * another there with the recurrence of dp_rows_item, writes each item's decision words and, at the
 * end, its tile of f_{item+count-1}. Item j's value at state c is exact wherever every state it comes
 * from lies in the window: c >= the window's start + w_item + ... + w_{item+j}; so after the block
 * every state of the tile is exact (the weights sum to at most the halo) and the lower states, some
 * of them not, are never written out. Work-item l keeps the states window + r * LOCAL_SIZE + l in
 * registers (r < BLOCK_ROWS; r >= HALO_ROWS are the tile's, bit r - HALO_ROWS of its decision word). */
#define BLOCK_ROWS (32u + HALO_ROWS)
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void dp_rows_block(__global const VALUE_T *restrict prev, __global VALUE_T *restrict next,
                   __global uint *restrict decisions, const ulong decisions_offset,
                   __global const uint *weights, __global const VALUE_T *profits,
                   const uint states, const ulong words_per_row, const uint chunk_first, const uint item,
                   const uint count, const uint first_tile)
{
    __local VALUE_T window[BLOCK_ROWS * LOCAL_SIZE];
    __local uint block_w[MAX_BLOCK];
    __local VALUE_T block_p[MAX_BLOCK];
    const uint lid = get_local_id(0);
    const uint tile = first_tile + get_group_id(0);
    const long low = (long)tile * TILE_STATES - (long)HALO_ROWS * LOCAL_SIZE;  /* the window's first state */
    for (uint j = lid; j < count; j += LOCAL_SIZE) {
        block_w[j] = item_weight(weights, item + j).x;
        block_p[j] = profits[item + j];
    }
    VALUE_T v[BLOCK_ROWS];
#pragma unroll
    for (uint r = 0; r < BLOCK_ROWS; ++r) {
        const long c = low + (long)(r * LOCAL_SIZE + lid);
        v[r] = c >= 0 && c < (long)states ? prev[c] : 0;  /* 0 outside the row: never an exact state's source */
        window[r * LOCAL_SIZE + lid] = v[r];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* window index i = r * LOCAL_SIZE + l holds state low + i; item j is taken at i where i - w_j is in
     * the window and the state is at least w_j: i >= lowest_take (32-bit tests in the loop) */
    const int top = (int)clamp((long)states - low, 0L, (long)INT_MAX);  /* i < top: a state of the row */
    for (uint j = 0; j < count; ++j) {
        const int w = (int)block_w[j];
        const int lowest_take = (int)clamp(max((long)w, (long)w - low), 0L, (long)INT_MAX);
        const VALUE_T p = block_p[j];
        uint bits = 0;
#pragma unroll
        for (uint r = 0; r < BLOCK_ROWS; ++r) {
            const int i = (int)(r * LOCAL_SIZE + lid);
            if (i >= lowest_take) {
                const VALUE_T take = window[i - w] + p;
                if (take > v[r]) {
                    v[r] = take;
                    if (r >= HALO_ROWS && i < top)
                        bits |= 1u << (r - HALO_ROWS);
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint r = 0; r < BLOCK_ROWS; ++r)
            window[r * LOCAL_SIZE + lid] = v[r];
        barrier(CLK_LOCAL_MEM_FENCE);
        decisions[decisions_offset + (ulong)(item + j - chunk_first) * words_per_row + (ulong)tile * LOCAL_SIZE + lid] = bits;
    }
#pragma unroll
    for (uint r = HALO_ROWS; r < BLOCK_ROWS; ++r) {
        const long c = low + (long)(r * LOCAL_SIZE + lid);
        if (c < (long)states)
            next[c] = v[r];
    }
}
#endif

#ifdef BOUNDED
/* One or two items per pass with states left out by a bound against an incumbent
 * (engine/dp/pruning.py). `live` holds two rows of a bit per state (the decision-bit layout), the
 * previous pass's by the pass's parity (1: the state was kept), then from word `table_word` on a
 * table of three doubles per pass: its first item, its width (1 or 2) and its threshold. A state c
 * after the pass is kept when
 *     f(c) - y . c >= threshold      (threshold = floor + 1 - D_k - y . C, less a margin),
 * the Lagrangian bound of the items after the pass with the prices y (price1..3). A state not kept
 * has no value: the recurrence leaves out every term that reads one, and a state none of whose terms
 * is left is not kept either. So every value kept is that of the solution its decision bits trace
 * back; states whose terms are all left out cost no memory traffic but their bit words.
 * DROPPED_VALUE (tests, with poisoned buffers): written to every state not kept, a value larger than
 * any solution's, so that reading one shows in the answer. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF      /* the test as the host computes it (engine/dp/pruning.py) */

/* Bit j: whether the source c_j - s of state c_j = base + j * LOCAL_SIZE (j = 0..31) was kept, from
 * the two words of `live` its 32 sources lie in (0 for sources below state 0). */
inline uint kept_sources(__global const uint *live, const long words, const uint base, const ulong s)
{
    const long x = (long)base - (long)s;                               /* the source of c_0 */
    const long q = x >= 0 ? x / LOCAL_SIZE : -((LOCAL_SIZE - 1 - x) / LOCAL_SIZE);  /* floor(x / L) */
    const long r = x - q * LOCAL_SIZE;                                 /* word in its tile */
    const long t = q >= 0 ? q / 32 : -((31 - q) / 32);                 /* tile of c_0's source */
    const long low = t * LOCAL_SIZE + r, high = low + LOCAL_SIZE;
    const ulong a = low >= 0 ? live[low] : 0u;
    const ulong b = high >= 0 && high < words ? live[high] : 0u;
    return (uint)(((b << 32) | a) >> (uint)(q - 32 * t));
}

/* The states kept before the first item: every value is 0 (no item taken), kept where the test of
 * all the items passes; one word of `live`'s first row per work-item. */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void dp_rows_bounded_first(__global uint *live, const uint states, const uint span1, const uint span2,
                           const double price1, const double price2, const double price3,
                           const double threshold)
{
    const uint lid = get_local_id(0), tile = get_group_id(0);
    const uint base = tile * TILE_STATES + lid;
    uint kept = 0;
    for (uint j = 0; j < 32u; ++j) {
        const uint c = base + j * LOCAL_SIZE;
        if (c >= states)
            break;
        const uint3 cap = state_capacity(c, span1, span2);
        if (0.0 - (price1 * cap.x + price2 * cap.y + price3 * cap.z) >= threshold)
            kept |= 1u << j;
    }
    live[(ulong)tile * LOCAL_SIZE + lid] = kept;
}

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void dp_rows_bounded(__global const VALUE_T *restrict prev, __global VALUE_T *restrict next,
                     __global uint *restrict decisions, const ulong decisions_offset,
                     __global const uint *weights, __global const VALUE_T *profits,
                     const uint states, const uint span1, const uint span2,
                     const ulong words_per_row, const uint chunk_first,
                     const uint pass_index, __global uint *live, const ulong table_word,
                     const double price1, const double price2, const double price3)
{
    __global const double *table = (__global const double *)(live + table_word);
    const uint item = (uint)table[3 * pass_index], width = (uint)table[3 * pass_index + 1];
    const double threshold = table[3 * pass_index + 2];
    __global const uint *live_prev = live + (pass_index & 1u) * words_per_row;
    __global uint *live_next = live + ((pass_index & 1u) ^ 1u) * words_per_row;
    const uint lid = get_local_id(0);
    const uint tile = get_group_id(0);
    const ulong own_word = (ulong)tile * LOCAL_SIZE + lid;
    const long words = (long)words_per_row;
    const uint base = tile * TILE_STATES + lid;
    const uint3 wa = item_weight(weights, item);
    const int two = width == 2u;
    const uint3 wb = two ? item_weight(weights, item + 1u) : (uint3)(0u, 0u, 0u);
    const uint sa = shift(wa, span1, span2), sb = shift(wb, span1, span2);
    const VALUE_T pa = profits[item], pb = two ? profits[item + 1u] : 0;
    const uint own = live_prev[own_word];
    const uint in_a = kept_sources(live_prev, words, base, sa);
    const uint in_b = two ? kept_sources(live_prev, words, base, sb) : 0u;
    const uint in_ab = two ? kept_sources(live_prev, words, base, (ulong)sa + sb) : 0u;
    const uint any = own | in_a | in_b | in_ab;
    uint bits_a = 0, bits_b = 0, kept = 0;
#pragma unroll 8
    for (uint j = 0; j < 32u; ++j) {
        const uint c = base + j * LOCAL_SIZE;
        if (c >= states || !((any >> j) & 1u))
            continue;  /* not break: keeps the unrolled loads independent */
        const uint3 cap = state_capacity(c, span1, span2);
        const int fit_a = fits(cap, wa), fit_b = two && fits(cap, wb);
        const int fit_ab = fit_b && fits(cap - wb, wa);
        /* every load in bounds (where a term does not fit it reads c) and issued before any is used */
        const VALUE_T f_c = prev[c], f_a = prev[fit_a ? c - sa : c];
        const VALUE_T f_b = prev[fit_b ? c - sb : c], f_ab = prev[fit_ab ? c - sb - sa : c];
        int has = (own >> j) & 1u;                      /* f_a(c): f(c), f(c - w_a) + p_a */
        VALUE_T best = f_c;
        if (fit_a && ((in_a >> j) & 1u) && (!has || f_a + pa > best)) {
            best = f_a + pa;
            has = 1;
            bits_a |= 1u << j;
        }
        int has_b = fit_b && ((in_b >> j) & 1u);        /* f_a(c - w_b), then f_b(c) */
        VALUE_T fa_b = f_b;
        if (fit_ab && ((in_ab >> j) & 1u) && (!has_b || f_ab + pa > fa_b)) {
            fa_b = f_ab + pa;
            has_b = 1;
        }
        if (has_b && (!has || fa_b + pb > best)) {
            best = fa_b + pb;
            has = 1;
            bits_b |= 1u << j;
        }
        if (has && (double)best - (price1 * cap.x + price2 * cap.y + price3 * cap.z) >= threshold) {
            kept |= 1u << j;
            next[c] = best;
        }
    }
#ifdef DROPPED_VALUE
    for (uint j = 0; j < 32u; ++j) {        /* tests: a value not kept is never read */
        const uint c = base + j * LOCAL_SIZE;
        if (c < states && !((kept >> j) & 1u))
            next[c] = DROPPED_VALUE;
    }
#endif
    live_next[own_word] = kept;
    const ulong word = decisions_offset + (ulong)(item - chunk_first) * words_per_row + own_word;
    decisions[word] = bits_a;
    if (two)
        decisions[word + words_per_row] = bits_b;
}
#endif

#ifdef GROUP
/* GROUP (3 or 4) items j = 0 .. GROUP-1 from `item` on, in one pass: f_j(x) = max(f_{j-1}(x),
 * f_{j-1}(x - w_j) + p_j) evaluated for state c at the points x = c - W(S), W(S) the weight of a set
 * S of later items (S in {j+1 ..}, kept as a bit mask), so f (= f_{item-1}) is read at the 2^GROUP
 * points c - W(S) (those inside the capacity: fits), g[S] carries f_j(c - W(S)) from item to item,
 * and g[0] ends as f_{item+GROUP-1}(c). U_j(c) is the one-item recurrence's bit: f_j(c) from the
 * take branch, strictly larger. Weight sums saturate (add_sat): a sum past the capacity never fits. */
#define POINTS (1u << GROUP)

/* The weight sums W(S) of every set S of the GROUP items whose weights are w[0 ..] (bit j of S: item j). */
inline void subset_sums(const uint3 *w, uint3 *sum_w)
{
    sum_w[0] = (uint3)(0u, 0u, 0u);
#pragma unroll
    for (uint j = 0; j < GROUP; ++j)
#pragma unroll
        for (uint S = 0; S < (1u << j); ++S)
            sum_w[S | (1u << j)] = add_sat(sum_w[S], w[j]);
}

/* The weight sums W(S) of the GROUP items from `item` on, and their profits. */
inline void group_items(__global const uint *weights, __global const VALUE_T *profits, const uint item,
                        uint3 *sum_w, VALUE_T *p)
{
    uint3 w[GROUP];
#pragma unroll
    for (uint j = 0; j < GROUP; ++j) {
        w[j] = item_weight(weights, item + j);
        p[j] = profits[item + j];
    }
    subset_sums(w, sum_w);
}

/* f_{item+GROUP-1}(c) from f = f_{item-1} (`prev`), read at the points c - W(S) that fit; bit `bit`
 * of bits[j] is set where item + j is taken at c. */
inline VALUE_T group_state(__global const VALUE_T *prev, const uint c, const uint span1, const uint span2,
                           const uint3 *sum_w, const VALUE_T *p, uint *bits, const uint bit)
{
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
                        bits[j] |= 1u << bit;
                }
            }
        }
    }
    return g[0];
}

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void dp_rows_group(__global const VALUE_T *restrict prev, __global VALUE_T *restrict next,
                   __global uint *restrict decisions, const ulong decisions_offset,
                   __global const uint *weights, __global const VALUE_T *profits,
                   const uint states, const uint span1, const uint span2,
                   const ulong words_per_row, const uint chunk_first, const uint item,
                  const uint first_tile)
{
    const uint lid = get_local_id(0);
    const uint tile = first_tile + get_group_id(0);
    uint3 sum_w[POINTS];
    VALUE_T p[GROUP];
    uint bits[GROUP];
    group_items(weights, profits, item, sum_w, p);
#pragma unroll
    for (uint j = 0; j < GROUP; ++j)
        bits[j] = 0;
    const uint base = tile * TILE_STATES + lid;
    for (uint k = 0; k < 32u; ++k) {
        const uint c = base + k * LOCAL_SIZE;
        if (c < states)
            next[c] = group_state(prev, c, span1, span2, sum_w, p, bits, k);
    }
    const ulong word = decisions_offset + (ulong)(item - chunk_first) * words_per_row + (ulong)tile * LOCAL_SIZE + lid;
#pragma unroll
    for (uint j = 0; j < GROUP; ++j)
        decisions[word + j * words_per_row] = bits[j];
}

#ifdef SPLIT
/* Many passes in one launch (the chain): work-group t owns tile t of the row (TILE_STATES states)
 * for every pass. Pass s applies GROUP items from first + s * GROUP on (fewer in the last pass) to
 * row slot (base + s) % slots of `ring`, writing slot (base + s + 1) % slots, so a launch of at most
 * slots - 1 passes writes each slot once. Pass s of tile t reads the states c - W(S) >= t * TILE_STATES
 * - W(all), so it waits until every tile from the one holding that state up to t - 1 has finished pass
 * s - 1: `progress[u]` counts the passes tile u finished since the solve began (`done` before this
 * launch), stored after a global fence. Tiles wait only on tiles to their left, which started before
 * them (work-groups start in index order, as decoupled look-back scans [MG16] assume), so the launch
 * always progresses. Slots are whole tiles apart (`pitch` = tiles x TILE_STATES) and a slot is written
 * once per launch, so no cache line a work-group reads is still being written. SPLIT work-items share
 * each decision word (SPLIT divides 32): work-item (q, l) computes bits q * 32 / SPLIT .. of word l
 * and ORs them into local memory (two sets of words, by the pass's parity, so the words of a pass
 * are written out, after its progress is stored, while the next pass runs); the words are exactly
 * those of dp_rows_group. The weights and profits of WINDOW_PASSES passes are read into local memory
 * at once, so a pass starts without a read from global memory before it polls its neighbours. */
#define BITS_PER_ITEM (32u / SPLIT)
#define WINDOW_PASSES 32u
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE * SPLIT, 1, 1)))
void dp_rows_chain(__global VALUE_T *ring, const ulong pitch, const uint base, const uint slots,
                   __global uint *restrict decisions, const ulong decisions_offset,
                   __global const uint *weights, __global const VALUE_T *profits,
                   const uint states, const uint span1, const uint span2,
                   const ulong words_per_row, const uint chunk_first, const uint first, const uint count,
                   volatile __global uint *progress, const uint done)
{
    __local uint words[2][GROUP][LOCAL_SIZE];
    __local uint3 window_w[WINDOW_PASSES * GROUP];   /* the items of WINDOW_PASSES passes, read once */
    __local VALUE_T window_p[WINDOW_PASSES * GROUP];
    const uint x = get_local_id(0);
    const uint lid = x % LOCAL_SIZE, q = x / LOCAL_SIZE;
    const uint tile = get_group_id(0);
    const uint start = tile * TILE_STATES;
    const uint end = first + count;
    const uint passes = (count + GROUP - 1u) / GROUP;
    if (q == 0)
        for (uint j = 0; j < GROUP; ++j)
            words[0][j][lid] = words[1][j][lid] = 0;
    for (uint s = 0; s < passes; ++s) {
        const uint item = first + s * GROUP;
        __local uint (*mine)[LOCAL_SIZE] = words[s & 1u];
        if (s % WINDOW_PASSES == 0u) {  /* the window's last readers passed the barriers of pass s - 1 */
            for (uint i = x; i < WINDOW_PASSES * GROUP; i += LOCAL_SIZE * SPLIT) {
                const int real = item + i < end;
                window_w[i] = real ? item_weight(weights, item + i) : (uint3)(UINT_MAX, 0u, 0u);
                window_p[i] = real ? profits[item + i] : 0;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        const uint at = (s % WINDOW_PASSES) * GROUP;
        uint3 w[GROUP], sum_w[POINTS];
        VALUE_T p[GROUP];
        uint bits[GROUP];
#pragma unroll
        for (uint j = 0; j < GROUP; ++j) {
            w[j] = window_w[at + j];
            p[j] = window_p[at + j];
        }
        subset_sums(w, sum_w);
        if (s > 0) {  /* pass s - 1 of the tiles this pass reads */
            uint3 all = (uint3)(0u, 0u, 0u);
            for (uint j = 0; j < min((uint)GROUP, end - item); ++j)
                all = add_sat(all, w[j]);
            const ulong reach = (ulong)all.x * span1 + (ulong)all.y * span2 + all.z;
            const uint lowest = reach >= start ? 0u : (uint)((start - reach) / TILE_STATES);
            for (uint u = lowest + x; u < tile; u += LOCAL_SIZE * SPLIT)
                while (progress[u] < done + s)
                    ;
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        __global const VALUE_T *prev = ring + (ulong)((base + s) % slots) * pitch;
        __global VALUE_T *next = ring + (ulong)((base + s + 1u) % slots) * pitch;
#pragma unroll
        for (uint j = 0; j < GROUP; ++j)
            bits[j] = 0;
        for (uint k = 0; k < BITS_PER_ITEM; ++k) {
            const uint bit = q * BITS_PER_ITEM + k;
            const uint c = start + bit * LOCAL_SIZE + lid;
            if (c < states)
                next[c] = group_state(prev, c, span1, span2, sum_w, p, bits, bit);
        }
#pragma unroll
        for (uint j = 0; j < GROUP; ++j)
            if (bits[j])
                atomic_or(&mine[j][lid], bits[j]);
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        if (x == 0)
            atomic_xchg(&progress[tile], done + s + 1u);
        if (q == 0) {
            const ulong word = decisions_offset + (ulong)(item - chunk_first) * words_per_row + (ulong)tile * LOCAL_SIZE + lid;
#pragma unroll
            for (uint j = 0; j < GROUP; ++j) {
                if (item + j < end)
                    decisions[word + j * words_per_row] = mine[j][lid];
                mine[j][lid] = 0;  /* for pass s + 2, after the next pass's barriers */
            }
        }
    }
}
#endif
#endif

#ifdef STAGE
/* A pipeline of stages (m = 1): the row flows through work-groups in tiles, each work-group a stage
 * applying STAGE items (fewer in a launch's last stage) to every tile in turn with recurrence (1), so
 * a tile waits on the stage before it once per STAGE items, not once per item or pair as in
 * dp_rows_chain. Work-groups take stages in order from a ticket (`progress[0]`), so a stage waits only
 * on a stage taken before it by a running work-group, and the launch always progresses; `progress[1 + s]`
 * counts the tiles stage s has finished (stored after a global fence). Stage s reads f_{item-1} from
 * slot (base + s) % 2 of `between` and writes f_{item+STAGE-1} to the other slot, tile t only after
 * stage s - 1 finished tile t; stage s + 1 writes its slot's tile t only after stage s finished it, and
 * stage s reads each tile of its slot once. Item j of the stage reads f_{item+j-1}(c - w_j): from
 * local memory where that state lies in the tile (two buffers, one barrier an item), else from ring j
 * of the work-group's own `rings` (STAGE rings of `ring` states, ring >= w_j + TILE_STATES or the
 * whole row: state c at c % ring, written when its tile was), read for every item at the tile's start,
 * so the items of a tile wait on one round of reads. Work-item (q, l) holds the states of bits
 * q * STAGE_STATES .. of decision word l of the tile and marks each item's decisions in local memory;
 * after the items the work-group packs them into the words of dp_rows_item. Reads of
 * rows another work-group wrote are volatile (never from a stale L1 line); the rings are read only by
 * the work-group (the compute unit) that wrote them.
 * UNROLL_STAGE (GPUs) unrolls the loop over the items, so that far[] stays in registers. */
#define STAGE_STATES (32u / SPLIT)
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE * SPLIT, 1, 1)))
void dp_rows_pipeline(volatile __global VALUE_T *between, const ulong pitch, const uint base,
                      __global VALUE_T *rings, const uint ring,
                      __global uint *restrict decisions, const ulong decisions_offset,
                      __global const uint *weights, __global const VALUE_T *profits,
                      const uint states, const ulong words_per_row, const uint chunk_first,
                      const uint first, const uint count, volatile __global uint *progress)
{
    __local VALUE_T tile_rows[2][TILE_STATES];   /* f_{item+j-1} and f_{item+j} of the tile */
    __local uchar taken[STAGE][TILE_STATES];   /* U_{item+j} of the tile's states */
    __local uint stage_w[STAGE];
    __local VALUE_T stage_p[STAGE];
    __local uint claimed;
    const uint x = get_local_id(0);
    const uint lid = x % LOCAL_SIZE, q = x / LOCAL_SIZE;
    const uint stages = (count + STAGE - 1u) / STAGE;
    const uint tiles = (states + TILE_STATES - 1u) / TILE_STATES;
    __global VALUE_T *own = rings + (ulong)get_group_id(0) * STAGE * ring;
    for (;;) {
        barrier(CLK_LOCAL_MEM_FENCE);   /* every work-item read the last ticket */
        if (x == 0)
            claimed = atomic_inc(&progress[0]);
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint s = claimed;
        if (s >= stages)
            return;
        const uint item = first + s * STAGE;
        const uint items = min((uint)STAGE, first + count - item);
        for (uint j = x; j < STAGE; j += LOCAL_SIZE * SPLIT) {
            stage_w[j] = j < items ? item_weight(weights, item + j).x : UINT_MAX;
            stage_p[j] = j < items ? profits[item + j] : 0;
        }
        volatile __global const VALUE_T *in = between + (ulong)((base + s) & 1u) * pitch;
        __global VALUE_T *out = (__global VALUE_T *)between + (ulong)((base + s + 1u) & 1u) * pitch;
        barrier(CLK_LOCAL_MEM_FENCE);
        uint w[STAGE];
        VALUE_T p[STAGE];
#pragma unroll
        for (uint j = 0; j < STAGE; ++j) {
            w[j] = stage_w[j];
            p[j] = stage_p[j];
        }
        uint at = 0;   /* the tile's first state % ring */
        for (uint t = 0; t < tiles; ++t) {
            const uint start = t * TILE_STATES;
            if (s > 0 && x == 0)
                while (progress[s] <= t)
                    ;
            barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
            VALUE_T v[STAGE_STATES], far[STAGE][STAGE_STATES];
#pragma unroll
            for (uint k = 0; k < STAGE_STATES; ++k) {
                const uint i = (q * STAGE_STATES + k) * LOCAL_SIZE + lid;   /* the state's place in the tile */
                const uint c = start + i;
                v[k] = c < states ? in[c] : 0;
#pragma unroll
                for (uint j = 0; j < STAGE; ++j) {
                    far[j][k] = 0;   /* never read: the state is past the row, below w_j, or its source in the tile */
                    if (c < states && c >= w[j] && i < w[j]) {
                        const int r = (int)(at + i) - (int)w[j];
                        far[j][k] = own[(ulong)j * ring + (uint)(r < 0 ? r + (int)ring : r)];
                    }
                }
                tile_rows[0][i] = v[k];
                if (c < states)
                    own[at + i] = v[k];   /* ring 0: f_{item-1} */
            }
            barrier(CLK_LOCAL_MEM_FENCE);
#ifdef UNROLL_STAGE   /* GPUs: far[] in registers; PoCL compiles a loop of barriers unrolled in time exponential in STAGE */
#pragma unroll
#else
#pragma unroll 1
#endif
            for (uint j = 0; j < STAGE; ++j) {
                if (j < items) {
                    __local const VALUE_T *before = tile_rows[j & 1u];
                    __local VALUE_T *after = tile_rows[(j + 1u) & 1u];
#pragma unroll
                    for (uint k = 0; k < STAGE_STATES; ++k) {
                        const uint i = (q * STAGE_STATES + k) * LOCAL_SIZE + lid;
                        const uint c = start + i;
                        uchar took = 0;
                        if (c < states && c >= w[j]) {
                            const VALUE_T take = (i >= w[j] ? before[i - w[j]] : far[j][k]) + p[j];
                            if (take > v[k]) {
                                v[k] = take;
                                took = 1;
                            }
                        }
                        taken[j][i] = took;
                        after[i] = v[k];
                        if (j + 1u < items && c < states)
                            own[(ulong)(j + 1u) * ring + at + i] = v[k];   /* ring j + 1: f_{item+j} */
                    }
                    barrier(CLK_LOCAL_MEM_FENCE);
                }
            }
#pragma unroll
            for (uint k = 0; k < STAGE_STATES; ++k) {
                const uint c = start + (q * STAGE_STATES + k) * LOCAL_SIZE + lid;
                if (c < states)
                    out[c] = v[k];
            }
            mem_fence(CLK_GLOBAL_MEM_FENCE);
            barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
            if (x == 0)
                atomic_xchg(&progress[1u + s], t + 1u);
            for (uint e = x; e < items * LOCAL_SIZE; e += LOCAL_SIZE * SPLIT) {   /* word l of item j */
                const uint j = e / LOCAL_SIZE, l = e % LOCAL_SIZE;
                uint word = 0;
                for (uint b = 0; b < 32u; ++b)
                    word |= (uint)taken[j][b * LOCAL_SIZE + l] << b;
                decisions[decisions_offset + (ulong)(item + j - chunk_first) * words_per_row + (ulong)t * LOCAL_SIZE + l] = word;
            }
            at += TILE_STATES;
            if (at == ring)
                at = 0;
        }
    }
}
#endif

/* Backtracking (steps 8-12 of Algorithm 2.1) over the items of one decision chunk, newest first,
 * `remaining` carrying the capacity left from chunk to chunk: BACK_DEPTH items a round (opencl/walk.h). */
#define WALK_WIDTH 3
#include "walk.h"
__kernel __attribute__((reqd_work_group_size(BACK_GROUP, 1, 1)))
void dp_rows_backtrack(__global const uint *decisions, const ulong decisions_offset,
                       __global const uint *weights,
                       const ulong words_per_row, const uint span1, const uint span2,
                       const uint chunk_first, const uint chunk_items,
                       __global uint *remaining, __global uchar *selected)
{
    __local uint3 window[BACK_WINDOW];  /* window[q]: the weight of item chunk_first + window_top - 1 - q */
    __local uchar taken[BACK_GROUP];
    __local uint3 shared_rest;
    const uint x = get_local_id(0);
    const uint depth = walk_depth(x);  /* work-item x reads item top - 1 - depth */
    const uint set = walk_set(x);      /* at rest - W(set) */
    uint3 rest = walk_start(remaining, &shared_rest);
    uint window_top = chunk_items;
    for (uint top = chunk_items; top > 0u;) {
        const uint round = min((uint)BACK_DEPTH, top);
        if (window_stale(top, chunk_items, round, &window_top)) {
            for (uint q = x; q < min(BACK_WINDOW, top); q += BACK_GROUP)
                window[q] = item_weight(weights, chunk_first + top - 1u - q);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        const uint near = window_top - top;  /* window[near + d]: the item d places below the first */
        if (walk_reads(x, round)) {
            const uint3 sum = set_weight(window, near, depth, set);
            uint bit = 0u;
            if (fits(rest, sum)) {
                const uint state = shift(rest - sum, span1, span2);
                const ulong row = decisions_offset + (ulong)(top - 1u - depth) * words_per_row;
                bit = (decisions[row + decision_word(state)] >> decision_bit(state)) & 1u;
            }
            taken[x] = (uchar)bit;
        }
        rest = end_round(taken, window, &shared_rest, near, round, rest, selected, chunk_first + top - 1u);
        top -= round;
    }
    walk_finish(remaining, rest);
}
