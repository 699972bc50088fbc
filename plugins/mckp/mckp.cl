/* mckp: the multi-class 0-1 knapsack DP of [HC22] (Huang and Chou), m = 1.
 *
 * Items are grouped (equal value, or equal weight) and each group sorted so that taking k of its
 * items means taking its first k (lightest first when the value is shared, most valuable first when
 * the weight is shared; Theorem 2). The host passes, for each group, the prefix sums
 *     W_k = sumW(i, k)   (Eq. 5; clamped to `states`, so a clamped W_k never fits)
 *     P_k = value of the first k items   (V_i * k in Eq. 4 when grouped by value)
 * for k = 1..|G_i|, stored at prefix_w[first + k - 1], prefix_p[first + k - 1]. One launch per
 * group computes row i from row i - 1 (Eq. 4):
 *     f_i(j) = max_{0 <= k <= |G_i|, W_k <= j} f_{i-1}(j - W_k) + P_k
 * and, when RECORD is 1, the k that attains it (the count of the group's items taken at capacity j),
 * from which the host or mckp_backtrack recovers the items.
 *
 * Build options: VALUE_T (int or long), LOCAL_SIZE (work-group size), and:
 *   COUNT_T     uchar, ushort or uint: wide enough for the largest group
 *   RECORD      1: write the counts row; 0: values only
 *   TILE_ITEMS  items of a group held in local memory at a time (groups are processed in tiles)
 *   COLUMNS     capacities per work-item (j, j + LOCAL_SIZE, ...), sharing each local-memory read
 *   ATOMIC      for mckp_scatter: 0 atomic_max on int, 1 atom_max on long (cl_khr_int64_extended_atomics),
 *               2 a compare-and-swap loop on long (cl_khr_int64_base_atomics)
 */

#ifndef COUNT_T
#define COUNT_T uint
#endif
#ifndef RECORD
#define RECORD 1
#endif
#ifndef COLUMNS
#define COLUMNS 1
#endif

/* The full method (Algorithm 2 with the optimisations of Sect. 5.5, Table 3 "MCKP"): one work-item
 * per output capacity (no concurrent writes, no atomics), the group's prefix sums in local memory,
 * the running maximum in registers, the loop cut once W_k passes the capacity. A work-group stops
 * loading tiles once W_k passes its largest capacity. */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void mckp_gather_local(__global const VALUE_T *restrict prev, __global VALUE_T *restrict next,
                       __global COUNT_T *restrict counts, const ulong counts_offset,
                       __global const uint *restrict prefix_w, __global const VALUE_T *restrict prefix_p,
                       const uint first, const uint size, const uint states)
{
    __local uint tile_w[TILE_ITEMS];
    __local VALUE_T tile_p[TILE_ITEMS];
    const uint lid = (uint)get_local_id(0);
    const uint start = (uint)get_group_id(0) * (LOCAL_SIZE * COLUMNS);
    const uint base = start + lid;
    const uint last = min(start + LOCAL_SIZE * COLUMNS, states) - 1u;
    VALUE_T best[COLUMNS];
    uint best_k[COLUMNS];
    for (uint c = 0; c < COLUMNS; ++c) {
        const uint j = base + c * LOCAL_SIZE;
        best[c] = j < states ? prev[j] : 0;
        best_k[c] = 0;
    }
    for (uint t0 = 0; t0 < size; t0 += TILE_ITEMS) {
        if (prefix_w[first + t0] > last)
            break;  /* the same for the whole work-group: no work-item needs this tile */
        const uint len = min((uint)TILE_ITEMS, size - t0);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint t = lid; t < len; t += LOCAL_SIZE) {
            tile_w[t] = prefix_w[first + t0 + t];
            tile_p[t] = prefix_p[first + t0 + t];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint t = 0; t < len; ++t) {
            const uint w = tile_w[t];
            if (w > last)
                break;
            const VALUE_T p = tile_p[t];
            for (uint c = 0; c < COLUMNS; ++c) {
                const uint j = base + c * LOCAL_SIZE;
                if (j < states && w <= j) {
                    const VALUE_T take = prev[j - w] + p;
                    if (take > best[c]) {
                        best[c] = take;
                        best_k[c] = t0 + t + 1;
                    }
                }
            }
        }
    }
    for (uint c = 0; c < COLUMNS; ++c) {
        const uint j = base + c * LOCAL_SIZE;
        if (j < states) {
            next[j] = best[c];
#if RECORD
            counts[counts_offset + j] = (COUNT_T)best_k[c];
#endif
        }
    }
}

/* Table 3 "w/o SharedMem": the same recurrence, the prefix sums read from global memory. */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void mckp_gather_global(__global const VALUE_T *restrict prev, __global VALUE_T *restrict next,
                        __global COUNT_T *restrict counts, const ulong counts_offset,
                        __global const uint *restrict prefix_w, __global const VALUE_T *restrict prefix_p,
                        const uint first, const uint size, const uint states)
{
    const uint j = (uint)get_global_id(0);
    if (j >= states)
        return;
    VALUE_T best = prev[j];
    uint best_k = 0;
    for (uint t = 0; t < size; ++t) {
        const uint w = prefix_w[first + t];
        if (w > j)
            break;
        const VALUE_T take = prev[j - w] + prefix_p[first + t];
        if (take > best) {
            best = take;
            best_k = t + 1;
        }
    }
    next[j] = best;
#if RECORD
    counts[counts_offset + j] = (COUNT_T)best_k;
#endif
}

#ifdef ATOMIC
#if ATOMIC == 1
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#elif ATOMIC == 2
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif

inline void max_into(__global VALUE_T *cell, VALUE_T value)
{
#if ATOMIC == 0
    atomic_max((volatile __global int *)cell, value);
#elif ATOMIC == 1
    atom_max((volatile __global long *)cell, value);
#else
    long seen = *(volatile __global long *)cell;
    while (seen < value) {
        const long before = atom_cmpxchg((volatile __global long *)cell, seen, value);
        if (before == seen)
            break;
        seen = before;
    }
#endif
}

/* Table 3 "w/o Opt": one work-item per input capacity i, scattering f_{i-1}(i) + P_k into
 * next[i + W_k] with an atomic maximum (next starts as a copy of prev). Values only; the counts come
 * from mckp_counts afterwards. */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void mckp_scatter(__global const VALUE_T *restrict prev, __global VALUE_T *next,
                  __global const uint *restrict prefix_w, __global const VALUE_T *restrict prefix_p,
                  const uint first, const uint size, const uint states)
{
    const uint i = (uint)get_global_id(0);
    if (i >= states)
        return;
    const VALUE_T from = prev[i];
    const uint room = states - 1u - i;
    for (uint t = 0; t < size; ++t) {
        const uint w = prefix_w[first + t];
        if (w > room)
            break;
        max_into(next + i + w, from + prefix_p[first + t]);
    }
}
#endif

/* For the scatter variant: the smallest k that attains next[j] (Eq. 4), once next is final. */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void mckp_counts(__global const VALUE_T *restrict prev, __global const VALUE_T *restrict next,
                 __global COUNT_T *restrict counts, const ulong counts_offset,
                 __global const uint *restrict prefix_w, __global const VALUE_T *restrict prefix_p,
                 const uint first, const uint size, const uint states)
{
    const uint j = (uint)get_global_id(0);
    if (j >= states)
        return;
    const VALUE_T target = next[j];
    uint k = 0;
    if (prev[j] != target) {
        for (uint t = 0; t < size; ++t) {
            const uint w = prefix_w[first + t];
            if (w > j)
                break;
            if (prev[j - w] + prefix_p[first + t] == target) {
                k = t + 1;
                break;
            }
        }
    }
    counts[counts_offset + j] = (COUNT_T)k;
}

/* Trace-back over the count rows of groups [group_begin, group_begin + groups), newest first, by a
 * single work-item: k = count of group i at the capacity left, capacity -= W_k. The rows start at
 * counts[counts_offset]; `remaining` carries the capacity from one segment of rows to the previous
 * one; taken[i] receives k. */
__kernel void mckp_backtrack(__global const COUNT_T *counts, const ulong counts_offset, const ulong states,
                             __global const uint *prefix_w, __global const uint *group_first,
                             const uint group_begin, const uint groups,
                             __global uint *remaining, __global uint *taken)
{
    if (get_global_id(0) != 0)
        return;
    uint rest = remaining[0];
    for (uint g = groups; g-- > 0;) {
        const uint k = counts[counts_offset + (ulong)g * states + rest];
        taken[group_begin + g] = k;
        if (k > 0)
            rest -= prefix_w[group_first[group_begin + g] + k - 1u];
    }
    remaining[0] = rest;
}
