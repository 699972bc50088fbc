/* 0-1 knapsack on the wavefront model of [OM] (Sec. II-C-2, eq. 4; Fig. 3b). Row i of the
 * grid (item i) depends on row i - 1 only, so the sweep goes row by row: one launch per item, every
 * capacity of the row in parallel, two value rows live on the device, and each finished row of
 * decisions (bit c of row i: item i is taken at capacity c) is the chunk kept for the trace-back,
 * on the device or streamed to host memory.
 *
 * Build options: VALUE_T (int or long), LOCAL_SIZE (a multiple of 32), BACK_DEPTH (the trace-back's
 * items a round).
 */

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void kp_row(__global const VALUE_T *restrict previous, __global VALUE_T *restrict next,
            __global uint *restrict decisions, const ulong decision_offset, const uint capacity,
            const uint weight, const VALUE_T profit)
{
    __local uint taken[LOCAL_SIZE];
    const uint c = get_global_id(0);
    const uint l = get_local_id(0);
    uint take = 0;
    if (c <= capacity) {
        const VALUE_T keep = previous[c];
        VALUE_T best = keep;
        if (c >= weight) {
            const VALUE_T with_item = previous[c - weight] + profit;  /* eq. (4) */
            if (with_item > keep) {
                best = with_item;
                take = 1;
            }
        }
        next[c] = best;
    }
    taken[l] = take;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < LOCAL_SIZE / 32u) {
        uint word = 0;
        for (uint b = 0; b < 32u; ++b)
            word |= taken[l * 32u + b] << b;
        const uint index = get_group_id(0) * (LOCAL_SIZE / 32u) + l;
        if (index * 32u <= capacity)
            decisions[decision_offset + index] = word;
    }
}

/* The trace-back ([OM]'s chunks kept on the device): items first + count - 1 down to first, whose
 * decision rows start at word rows[item] of `decisions`, from the capacity left in rest[0] (item
 * taken at c: bit c of its row); rest[0] is left for the launch of the items before. BACK_DEPTH items
 * a round (opencl/walk.h); the row offsets come into local memory with the weights. */
#define WALK_WIDTH 1
#include "walk.h"
__kernel __attribute__((reqd_work_group_size(BACK_GROUP, 1, 1)))
void kp_backtrack(__global const uint *decisions, __global const ulong *rows,
                  __global const uint *weights, const uint first, const uint count,
                  __global uint *rest, __global uchar *selected)
{
    __local uint window_w[BACK_WINDOW];    /* item first + window_top - 1 - q at q */
    __local ulong window_row[BACK_WINDOW];
    __local uchar taken[BACK_GROUP];
    __local uint shared_c;
    const uint x = get_local_id(0);
    const uint depth = walk_depth(x);
    const uint set = walk_set(x);
    uint c = walk_start(rest, &shared_c);
    uint window_top = count;
    for (uint top = count; top > 0u;) {
        const uint round = min((uint)BACK_DEPTH, top);
        if (window_stale(top, count, round, &window_top)) {
            for (uint q = x; q < min(BACK_WINDOW, top); q += BACK_GROUP) {
                window_w[q] = weights[first + top - 1u - q];
                window_row[q] = rows[first + top - 1u - q];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        const uint near = window_top - top;
        if (walk_reads(x, round)) {
            const uint sum = set_weight(window_w, near, depth, set);
            const uint at = c - sum;  /* read only where sum <= c */
            taken[x] = sum <= c ? (uchar)((decisions[window_row[near + depth] + at / 32u] >> (at % 32u)) & 1u) : 0;
        }
        c = end_round(taken, window_w, &shared_c, near, round, c, selected, first + top - 1u);
        top -= round;
    }
    walk_finish(rest, c);
}

#ifdef HALO_ROWS
/* Temporal blocking of the rows (several light items per launch; the scheme of dp_rows_block in
 * plugins/dp_rows/dp_rows.cl, in this file's bit layout). Work-group t holds in local memory the states
 * t * TILE - HALO_ROWS * LOCAL_SIZE .. (t + 1) * TILE - 1 of row `item` - 1 (the window), read once,
 * applies `count` items (at most MAX_BLOCK, their weights summing to at most the halo) one after
 * another there with eq. (4), writes each item's decision words for the tile and, at the end, the
 * tile of row `item` + count - 1. After item j the state at window index i is exact where every
 * state it comes from lies in the window, i >= w_item + ... + w_{item+j}; so the whole tile is exact
 * after the block, and the lower states, some of them not, are never written out. Work-item l keeps
 * the states window + r * LOCAL_SIZE + l in registers (r < WINDOW_ROWS; r >= HALO_ROWS: the tile's).
 * Its decision of tile state s goes to taken[s] (a byte), and work-item l < TILE / 32 packs bytes
 * 32 l .. 32 l + 31 into the tile's word l, as kp_row packs its work-group's bits.
 * Build options: TILE_ROWS, HALO_ROWS, MAX_BLOCK. */
#define TILE (TILE_ROWS * LOCAL_SIZE)
#define WINDOW_ROWS (TILE_ROWS + HALO_ROWS)
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void kp_block(__global const VALUE_T *restrict previous, __global VALUE_T *restrict next,
              __global uint *restrict decisions, const ulong decision_offset, const ulong row_words,
              const uint capacity, __global const uint *weights, __global const VALUE_T *profits,
              const uint item, const uint count)
{
    __local VALUE_T window[WINDOW_ROWS * LOCAL_SIZE];
    __local uchar taken[TILE];
    __local uint block_w[MAX_BLOCK];
    __local VALUE_T block_p[MAX_BLOCK];
    const uint l = get_local_id(0);
    const uint t = get_group_id(0);
    const long low = (long)t * TILE - (long)HALO_ROWS * LOCAL_SIZE;  /* the window's first state */
    const long states = (long)capacity + 1;
    for (uint j = l; j < count; j += LOCAL_SIZE) {
        block_w[j] = weights[item + j];
        block_p[j] = profits[item + j];
    }
    VALUE_T v[WINDOW_ROWS];
#pragma unroll
    for (uint r = 0; r < WINDOW_ROWS; ++r) {
        const long c = low + (long)(r * LOCAL_SIZE + l);
        v[r] = c >= 0 && c < states ? previous[c] : 0;  /* 0 outside the row: never an exact state's source */
        window[r * LOCAL_SIZE + l] = v[r];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* window index i holds state low + i; item j is taken at i where the state is in the row and at
     * least w_j, and i - w_j is in the window: lowest_take <= i < top (32-bit tests in the loop) */
    const int top = (int)clamp(states - low, 0L, (long)INT_MAX);
    const uint words = TILE / 32u;
    for (uint j = 0; j < count; ++j) {
        const int w = (int)block_w[j];
        const int lowest_take = (int)clamp(max((long)w, (long)w - low), 0L, (long)INT_MAX);
        const VALUE_T p = block_p[j];
#pragma unroll
        for (uint r = 0; r < WINDOW_ROWS; ++r) {
            const int i = (int)(r * LOCAL_SIZE + l);
            uchar take = 0;
            if (i >= lowest_take && i < top) {
                const VALUE_T with_item = window[i - w] + p;  /* eq. (4) */
                if (with_item > v[r]) {
                    v[r] = with_item;
                    take = 1;
                }
            }
            if (r >= HALO_ROWS)
                taken[(r - HALO_ROWS) * LOCAL_SIZE + l] = take;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint r = 0; r < WINDOW_ROWS; ++r)
            window[r * LOCAL_SIZE + l] = v[r];
        if (l < words) {
            uint word = 0;
            for (uint q = 0; q < 4u; ++q) {
                const uchar8 b = vload8(q, taken + 32u * l);
                word |= ((uint)b.s0 | (uint)b.s1 << 1 | (uint)b.s2 << 2 | (uint)b.s3 << 3 | (uint)b.s4 << 4
                         | (uint)b.s5 << 5 | (uint)b.s6 << 6 | (uint)b.s7 << 7) << (8u * q);
            }
            const ulong index = (ulong)t * words + l;
            if (index * 32u <= capacity)
                decisions[decision_offset + (ulong)j * row_words + index] = word;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#pragma unroll
    for (uint r = HALO_ROWS; r < WINDOW_ROWS; ++r) {
        const long c = low + (long)(r * LOCAL_SIZE + l);
        if (c < states)
            next[c] = v[r];
    }
}
#endif
