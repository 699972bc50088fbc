/* Kernels of dp-states: dynamic programming over lists of states for the 0-1 knapsack (OpenCL C 1.2).
 *
 * A state is a pair (W, P): the weight and profit of one choice of the items decided so far, as in
 * the Nemhauser-Ullmann list algorithm and Pisinger's minknap [Pisinger97]. Items are sorted by
 * decreasing p_j / w_j; the core [s, t] grows around the break item b: every state takes items
 * 0..s-1 and none of t+1..n-1. Deciding item t (add) makes S u (S + (w_t, p_t)); deciding item s
 * (remove) makes S u (S - (w_s, p_s)) [Pisinger97, Sec. 3].
 *
 * One level is five launches:
 *   states_merge    the two sorted lists merged by the merge path (each work-item finds its diagonal
 *                   by binary search, then merges PER_ITEM states), and each work-group's largest P;
 *   states_scan_max exclusive prefix maximum of the work-groups' largest P (one work-group);
 *   states_keep     a state is kept when its P beats every P before it (dominance: no state lighter or
 *                   as light has as much profit) and its upper bound beats the incumbent (Dantzig's
 *                   bound on both sides of the core, [Pisinger97] eq. (6)-(7), compared exactly with
 *                   128-bit products); per work-group: states kept, best feasible P, largest bound;
 *   states_offsets  exclusive sum of the counts, the total, the best feasible state, the largest bound;
 *   states_compact  kept states written in order to the next list.
 *
 * Lists are sorted by W ascending with P ascending too (after dominance both strictly increase).
 * Merge order: W ascending, and of two states with equal W the one with more profit first, so that
 * dominance keeps it.
 *
 * Items are recovered from `bits` and `anchor`: within a block of 64 levels each state carries one
 * bit per level (set when the level's item was toggled) and the index of its ancestor in the list
 * at the start of the block; the host stores (bits, anchor) of every list at a block's end.
 *
 * Build options: LOCAL_SIZE (work-group size), PER_ITEM (states per work-item).
 */
#ifndef LOCAL_SIZE
#error "LOCAL_SIZE must be defined"
#endif
#ifndef PER_ITEM
#error "PER_ITEM must be defined"
#endif

#define CHUNK (LOCAL_SIZE * PER_ITEM)

/* a (from the list) goes before b (from the shifted copy) */
inline int before(long aw, long ap, long bw, long bp)
{
    return aw < bw || (aw == bw && ap >= bp);
}

/* x * y >= u * v for non-negative 64-bit values, exactly (128-bit products) */
inline int product_at_least(ulong x, ulong y, ulong u, ulong v)
{
    ulong hi1 = mul_hi(x, y), hi2 = mul_hi(u, v);
    if (hi1 != hi2)
        return hi1 > hi2;
    return x * y >= u * v;
}

/* floor(a * p / w) for a, p >= 0, w > 0, saturated at LONG_MAX / 2 (a bound, never too small) */
inline long fraction_floor(ulong a, ulong p, ulong w)
{
    ulong q = a / w, r = a % w;
    ulong limit = (ulong)(LONG_MAX / 2);
    if (q != 0 && p > limit / q)
        return (long)limit;
    ulong whole = q * p;
    ulong part = mul_hi(r, p) == 0 ? (r * p) / w : p; /* r < w, so r * p / w < p */
    return (long)min(limit, whole + part);
}

/* Work-group exclusive scan (maximum) of one long per work-item; returns the exclusive value and
 * leaves the group's inclusive maximum in *total. */
inline long group_scan_max(long value, __local long *scratch, long *total)
{
    uint l = get_local_id(0);
    scratch[l] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint offset = 1; offset < LOCAL_SIZE; offset <<= 1) {
        long other = l >= offset ? scratch[l - offset] : LONG_MIN;
        barrier(CLK_LOCAL_MEM_FENCE);
        scratch[l] = max(scratch[l], other);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    long exclusive = l ? scratch[l - 1] : LONG_MIN;
    *total = scratch[LOCAL_SIZE - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return exclusive;
}

/* Work-group exclusive scan (sum) of one uint per work-item; *total gets the group's sum. */
inline uint group_scan_sum(uint value, __local uint *scratch, uint *total)
{
    uint l = get_local_id(0);
    scratch[l] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint offset = 1; offset < LOCAL_SIZE; offset <<= 1) {
        uint other = l >= offset ? scratch[l - offset] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        scratch[l] += other;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint exclusive = l ? scratch[l - 1] : 0u;
    *total = scratch[LOCAL_SIZE - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return exclusive;
}

/* Largest of one long per work-item and the work-item holding it (ties: the lowest index). */
inline void group_argmax(long value, uint index, __local long *values, __local uint *indices,
                         long *best, uint *at)
{
    uint l = get_local_id(0);
    values[l] = value;
    indices[l] = index;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = LOCAL_SIZE / 2; stride > 0; stride >>= 1) {
        if (l < stride && values[l + stride] > values[l]) {
            values[l] = values[l + stride];
            indices[l] = indices[l + stride];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    *best = values[0];
    *at = indices[0];
    barrier(CLK_LOCAL_MEM_FENCE);
}

__kernel void states_merge(__global const long *W, __global const long *P, __global const ulong *bits,
                           __global const uint *anchor, uint n, long dw, long dp, ulong bit, int reset,
                           __global long *MW, __global long *MP, __global ulong *Mbits,
                           __global uint *Manchor, __global long *group_max)
{
    __local long scratch[LOCAL_SIZE];
    uint m = 2u * n;
    uint first = get_global_id(0) * PER_ITEM;
    long largest = -1;
    if (first < m) {
        /* merge path: i states of the list and d - i of the shifted copy come before output d */
        uint d = first;
        long over = (long)d - (long)n; /* not d > n ? d - n : 0, which some compilers lower to a
                                          saturating subtraction that Oclgrind cannot run */
        uint lo = over > 0 ? (uint)over : 0u, hi = min(d, n);
        while (lo < hi) {
            uint mid = (lo + hi) / 2u;
            uint other = d - 1u - mid;
            if (before(W[mid], P[mid], W[other] + dw, P[other] + dp))
                lo = mid + 1u;
            else
                hi = mid;
        }
        uint i = lo, j = d - lo;
        uint last = min(first + PER_ITEM, m);
        for (uint o = first; o < last; ++o) {
            int from_list = j >= n || (i < n && before(W[i], P[i], W[j] + dw, P[j] + dp));
            uint k = from_list ? i : j;
            long w = W[k], p = P[k];
            ulong b = reset ? 0ul : bits[k];
            uint a = reset ? k : anchor[k];
            if (!from_list) {
                w += dw;
                p += dp;
                b |= bit;
            }
            MW[o] = w;
            MP[o] = p;
            Mbits[o] = b;
            Manchor[o] = a;
            largest = max(largest, p);
            if (from_list)
                ++i;
            else
                ++j;
        }
    }
    long total;
    group_scan_max(largest, scratch, &total);
    if (get_local_id(0) == 0)
        group_max[get_group_id(0)] = total;
}

/* Exclusive prefix maximum over `count` values, in place (one work-group; identity -1: P >= 0). */
__kernel void states_scan_max(__global long *values, uint count)
{
    __local long scratch[LOCAL_SIZE];
    long carry = -1;
    for (uint base = 0; base < count; base += CHUNK) {
        uint first = base + get_local_id(0) * PER_ITEM;
        long own[PER_ITEM];
        long running = -1;
        for (uint k = 0; k < PER_ITEM; ++k) {
            own[k] = first + k < count ? values[first + k] : -1;
            running = max(running, own[k]);
        }
        long total;
        long before_me = max(carry, group_scan_max(running, scratch, &total));
        for (uint k = 0; k < PER_ITEM; ++k) {
            if (first + k < count)
                values[first + k] = before_me;
            before_me = max(before_me, own[k]);
        }
        carry = max(carry, total);
    }
}

/* Keep flags: dominance (P beats the prefix maximum) and the bound against the incumbent `best`.
 * Next items: (pt, wt) the next item that can be added (has_add = 0: none), (ps, ws) the next item
 * that can be removed (has_remove = 0: none). */
__kernel void states_keep(__global const long *MW, __global const long *MP, uint m,
                          __global const long *prefix_max, long capacity, long best,
                          int has_add, long pt, long wt, int has_remove, long ps, long ws,
                          __global uchar *keep, __global uint *group_count,
                          __global long *group_best, __global uint *group_best_at, __global long *group_top)
{
    __local long scratch[LOCAL_SIZE];
    __local uint indices[LOCAL_SIZE];
    uint first = get_global_id(0) * PER_ITEM;
    long running = -1;
    for (uint k = 0; k < PER_ITEM; ++k)
        if (first + k < m)
            running = max(running, MP[first + k]);
    long total;
    long seen = max(prefix_max[get_group_id(0)], group_scan_max(running, scratch, &total));
    uint kept = 0;
    long feasible_best = -1, top = -1;
    uint feasible_at = 0;
    for (uint k = 0; k < PER_ITEM; ++k) {
        uint o = first + k;
        if (o >= m)
            break;
        long w = MW[o], p = MP[o];
        int undominated = p > seen;
        seen = max(seen, p);
        int feasible = w <= capacity;
        if (feasible && p > feasible_best) {
            feasible_best = p;
            feasible_at = o;
        }
        int promising;
        long bound;
        if (feasible) {
            long gap = best + 1 - p; /* the bound must reach best + 1 */
            if (has_add) {
                ulong slack = (ulong)(capacity - w);
                promising = gap <= 0 || product_at_least(slack, (ulong)pt, (ulong)gap, (ulong)wt);
                bound = p + fraction_floor(slack, (ulong)pt, (ulong)wt);
            } else {
                promising = gap <= 0;
                bound = p;
            }
        } else {
            long spare = p - best - 1; /* what removals may cost */
            promising = has_remove && spare >= 0 &&
                        product_at_least((ulong)spare, (ulong)ws, (ulong)(w - capacity), (ulong)ps);
            bound = p;
        }
        uchar flag = undominated && promising;
        keep[o] = flag;
        kept += flag;
        if (flag)
            top = max(top, bound);
    }
    uint count;
    group_scan_sum(kept, indices, &count);
    long group_best_value, group_top_value;
    uint at, unused;
    group_argmax(feasible_best, feasible_at, scratch, indices, &group_best_value, &at);
    group_argmax(top, 0u, scratch, indices, &group_top_value, &unused);
    if (get_local_id(0) == 0) {
        group_count[get_group_id(0)] = count;
        group_best[get_group_id(0)] = group_best_value;
        group_best_at[get_group_id(0)] = at;
        group_top[get_group_id(0)] = group_top_value;
    }
}

/* Exclusive sum of the group counts (in place, one work-group); results: [0] states kept, [1] best
 * feasible P (-1: none), [2] its index in the merged list, [3] largest bound of a kept state. */
__kernel void states_offsets(__global uint *counts, uint groups, __global const long *group_best,
                             __global const uint *group_best_at, __global const long *group_top,
                             __global long *results)
{
    __local uint sums[LOCAL_SIZE];
    __local long values[LOCAL_SIZE];
    __local uint indices[LOCAL_SIZE];
    uint carry = 0;
    long best = -1, top = -1;
    uint best_at = 0;
    for (uint base = 0; base < groups; base += CHUNK) {
        uint first = base + get_local_id(0) * PER_ITEM;
        uint own[PER_ITEM];
        uint running = 0;
        for (uint k = 0; k < PER_ITEM; ++k) {
            uint g = first + k;
            own[k] = g < groups ? counts[g] : 0u;
            running += own[k];
            if (g < groups) {
                if (group_best[g] > best) {
                    best = group_best[g];
                    best_at = group_best_at[g];
                }
                top = max(top, group_top[g]);
            }
        }
        uint total;
        uint before_me = carry + group_scan_sum(running, sums, &total);
        for (uint k = 0; k < PER_ITEM; ++k) {
            if (first + k < groups)
                counts[first + k] = before_me;
            before_me += own[k];
        }
        carry += total;
    }
    long group_best_value, group_top_value;
    uint at, unused;
    group_argmax(best, best_at, values, indices, &group_best_value, &at);
    group_argmax(top, 0u, values, indices, &group_top_value, &unused);
    if (get_local_id(0) == 0) {
        results[0] = carry;
        results[1] = group_best_value;
        results[2] = at;
        results[3] = group_top_value;
    }
}

/* The kept states, in order, to the next list. */
__kernel void states_compact(__global const long *MW, __global const long *MP, __global const ulong *Mbits,
                             __global const uint *Manchor, uint m, __global const uchar *keep,
                             __global const uint *offsets, __global long *W, __global long *P,
                             __global ulong *bits, __global uint *anchor)
{
    __local uint scratch[LOCAL_SIZE];
    uint first = get_global_id(0) * PER_ITEM;
    uint kept = 0;
    for (uint k = 0; k < PER_ITEM; ++k)
        if (first + k < m)
            kept += keep[first + k];
    uint total;
    uint out = offsets[get_group_id(0)] + group_scan_sum(kept, scratch, &total);
    for (uint k = 0; k < PER_ITEM; ++k) {
        uint o = first + k;
        if (o < m && keep[o]) {
            W[out] = MW[o];
            P[out] = MP[o];
            bits[out] = Mbits[o];
            anchor[out] = Manchor[o];
            ++out;
        }
    }
}
