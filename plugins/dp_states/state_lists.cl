/* Kernels of dp-states: dynamic programming over lists of states for the 0-1 knapsack (OpenCL C 1.2).
 *
 * A state is a pair (W, P): the weight and profit of one choice of the items decided so far, as in
 * the Nemhauser-Ullmann list algorithm and Pisinger's minknap [Pisinger97]. Items are sorted by
 * decreasing p_j / w_j; the core [s, t] grows around the break item b: every state takes items
 * 0..s-1 and none of t+1..n-1. Deciding item t (add) makes S u (S + (w_t, p_t)); deciding item s
 * (remove) makes S u (S - (w_s, p_s)) [Pisinger97, Sec. 3].
 *
 * One level is six launches:
 *   states_partition the merge path's split at each work-group's first output (binary search);
 *   states_merge    the two sorted lists merged by the merge path (each work-group stages its two runs
 *                   in local memory, each work-item finds its diagonal there by binary search and
 *                   merges PER_ITEM states), and each work-group's largest P;
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
 * Each work-group takes a chunk of CHUNK consecutive states, PER_ITEM per work-item; chunks are read
 * and written through local memory so that global reads and writes are coalesced.
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

/* The work-group's chunk of states [base, base + CHUNK) of src (m in all) into local memory, read
 * coalesced; `missing` past m. */
inline void load_chunk(__global const long *src, __local long *dst, uint base, uint m, long missing)
{
    for (uint k = get_local_id(0); k < CHUNK; k += LOCAL_SIZE)
        dst[k] = base + k < m ? src[base + k] : missing;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Local stage[0, count) to dst[base, base + count), written coalesced. */
inline void store_chunk(__local const long *stage, __global long *dst, uint base, uint count)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = get_local_id(0); k < count; k += LOCAL_SIZE)
        dst[base + k] = stage[k];
    barrier(CLK_LOCAL_MEM_FENCE);
}

inline void store_chunk_uint(__local const uint *stage, __global uint *dst, uint base, uint count)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = get_local_id(0); k < count; k += LOCAL_SIZE)
        dst[base + k] = stage[k];
    barrier(CLK_LOCAL_MEM_FENCE);
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

/* The merge path's split of each work-group's chunk [Green, McColl, Bader 2012; Merrill and Grimshaw's
 * ModernGPU]: splits[g] is how many states of the list come before output g * CHUNK of the merge
 * (the rest of those outputs are states of the shifted copy), by binary search along that diagonal,
 * one work-item per chunk boundary (groups + 1 of them). */
__kernel void states_partition(__global const long *W, __global const long *P, uint n, long dw, long dp,
                               uint groups, __global uint *splits)
{
    uint g = get_global_id(0);
    if (g > groups)
        return;
    uint m = 2u * n;
    uint d = min(g * (uint)CHUNK, m);
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
    splits[g] = lo;
}

/* The list's states [a0, a0 + na) then the copy's [b0, b0 + nb) of one field into local memory, read
 * coalesced; `shift` is added to the copy's. */
inline void load_runs(__global const long *src, __local long *dst, uint a0, uint na, uint b0, uint nb, long shift)
{
    for (uint k = get_local_id(0); k < na + nb; k += LOCAL_SIZE)
        dst[k] = k < na ? src[a0 + k] : src[b0 + k - na] + shift;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The work-group's chunk of the merge: the list's states [a0, a1) and the copy's [b0, b1) (from
 * states_partition) staged in local memory, then each work-item finds its PER_ITEM outputs' sources
 * by the merge path within the chunk and every field goes out through local memory, coalesced. */
__kernel void states_merge(__global const long *W, __global const long *P, __global const ulong *bits,
                           __global const uint *anchor, uint n, long dw, long dp, ulong bit, int reset,
                           __global const uint *splits,
                           __global long *MW, __global long *MP, __global ulong *Mbits,
                           __global uint *Manchor, __global long *group_max)
{
    __local long scratch[LOCAL_SIZE];
    __local long lw[CHUNK], lp[CHUNK];
    uint m = 2u * n, g = get_group_id(0);
    uint d0 = g * CHUNK, d1 = min(d0 + (uint)CHUNK, m);
    uint a0 = splits[g], a1 = splits[g + 1u];
    uint na = a1 - a0, b0 = d0 - a0, nb = (d1 - a1) - b0;
    uint count = na + nb;
    load_runs(W, lw, a0, na, b0, nb, dw);
    load_runs(P, lp, a0, na, b0, nb, dp);
    uint mine = get_local_id(0) * PER_ITEM;
    uint src[PER_ITEM];
    long ow[PER_ITEM], op[PER_ITEM];
    long largest = -1;
    uint own = mine < count ? min((uint)PER_ITEM, count - mine) : 0u;
    if (own) {
        long over = (long)mine - (long)nb;
        uint lo = over > 0 ? (uint)over : 0u, hi = min(mine, na);
        while (lo < hi) {
            uint mid = (lo + hi) / 2u;
            uint other = na + mine - 1u - mid;
            if (before(lw[mid], lp[mid], lw[other], lp[other]))
                lo = mid + 1u;
            else
                hi = mid;
        }
        uint i = lo, j = mine - lo;
        for (uint k = 0; k < own; ++k) {
            int from_list = j >= nb || (i < na && before(lw[i], lp[i], lw[na + j], lp[na + j]));
            uint at = from_list ? i++ : na + j++;
            src[k] = at;
            ow[k] = lw[at];
            op[k] = lp[at];
            largest = max(largest, op[k]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < own; ++k) {
        lw[mine + k] = ow[k];
        lp[mine + k] = op[k];
    }
    store_chunk(lw, MW, d0, count);
    store_chunk(lp, MP, d0, count);
    /* bits: the source's (none after a block's start), the level's bit for states of the copy; the
     * runs are read even then, so that no barrier sits in a branch */
    load_runs((__global const long *)bits, lw, a0, na, b0, nb, 0);
    for (uint k = 0; k < own; ++k)
        ow[k] = (reset ? 0l : lw[src[k]]) | (src[k] < na ? 0l : (long)bit);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < own; ++k)
        lw[mine + k] = ow[k];
    store_chunk(lw, (__global long *)Mbits, d0, count);
    /* anchors: the source's ancestor, or after a block's start the source's index in the list */
    __local uint *stage = (__local uint *)lp;
    for (uint k = get_local_id(0); k < count; k += LOCAL_SIZE)
        stage[k] = k < na ? anchor[a0 + k] : anchor[b0 + k - na];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint oa[PER_ITEM];
    for (uint k = 0; k < own; ++k)
        oa[k] = reset ? (src[k] < na ? a0 + src[k] : b0 + src[k] - na) : stage[src[k]];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < own; ++k)
        stage[mine + k] = oa[k];
    store_chunk_uint(stage, Manchor, d0, count);
    long total;
    group_scan_max(largest, scratch, &total);
    if (get_local_id(0) == 0)
        group_max[g] = total;
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

/* The bound of the rounded relaxation (clsolve_plugins.dp_states.relaxed): the items still outside
 * the core are those not yet removed (L, all taken: weight wl, profit pl) and those not yet added.
 * Taking them or not is a 0-1 knapsack over L and the rest with capacity C - W + wl and profit
 * offset P - pl; with every weight rounded down to a multiple of `grain` its optimum is at most
 * row[(C - W + wl) / grain], the row of the DP over (a superset of) those items. Returns LONG_MIN
 * when even removing all of L leaves the state too heavy. */
inline long relaxed_bound(long w, long p, long capacity, __global const long *row, uint width, long grain,
                          long wl, long pl)
{
    long rest = capacity - w + wl;
    if (rest < 0)
        return LONG_MIN;
    long index = rest / grain;
    return p - pl + row[min(index, (long)width - 1)];
}

/* The cluster bound (clsolve_plugins.dp_states.clusters): with the outside items as in relaxed_bound
 * and capacity rest = C - W + wl left, their best profit is at most
 * (V[k] + rate * rest + extra) / denominator, where (S, V) is the Pareto list (S and V ascending,
 * S[0] = 0) of the sums of the clustered items' bases and their values p * denominator - rate * w,
 * and k the last index with S[k] <= rest (binary search). Returns LONG_MIN when even removing all of
 * L leaves the state too heavy. */
inline long cluster_bound(long w, long p, long capacity, __global const long *S, __global const long *V,
                          uint count, long rate, long extra, long denominator, long wl, long pl)
{
    long rest = capacity - w + wl;
    if (rest < 0)
        return LONG_MIN;
    uint low = 0, high = count;
    while (high - low > 1) {
        uint mid = low + (high - low) / 2;
        if (S[mid] <= rest)
            low = mid;
        else
            high = mid;
    }
    return p - pl + (V[low] + rate * rest + extra) / denominator;
}

/* Keep flags: dominance (P beats the prefix maximum) and the bound against the incumbent `best`.
 * Next items: (pt, wt) the next item that can be added (has_add = 0: none), (ps, ws) the next item
 * that can be removed (has_remove = 0: none). Where `width` > 0, the bound is also at most the
 * rounded relaxation's (relaxed_bound, `row` of `width` entries); where `ccount` > 0, also at most
 * the cluster bound (cluster_bound, lists `cS`, `cV` of `ccount` states). */
__kernel void states_keep(__global const long *MW, __global const long *MP, uint m,
                          __global const long *prefix_max, long capacity, long best,
                          int has_add, long pt, long wt, int has_remove, long ps, long ws,
                          __global const long *row, uint width, long grain, long wl, long pl,
                          __global const long *cS, __global const long *cV, uint ccount, long crate,
                          long cextra, long cdenominator, long cwl, long cpl,
                          __global uchar *keep, __global uint *group_count,
                          __global long *group_best, __global uint *group_best_at, __global long *group_top)
{
    __local long scratch[LOCAL_SIZE];
    __local uint indices[LOCAL_SIZE];
    __local long lw[CHUNK], lp[CHUNK];
    __local uchar flags[CHUNK];
    uint first = get_global_id(0) * PER_ITEM;
    uint mine = get_local_id(0) * PER_ITEM, base = get_group_id(0) * CHUNK;
    load_chunk(MW, lw, base, m, 0);
    load_chunk(MP, lp, base, m, -1);
    long running = -1;
    for (uint k = 0; k < PER_ITEM; ++k)
        running = max(running, lp[mine + k]);
    long total;
    long seen = max(prefix_max[get_group_id(0)], group_scan_max(running, scratch, &total));
    uint kept = 0;
    long feasible_best = -1, top = -1;
    uint feasible_at = 0;
    for (uint k = 0; k < PER_ITEM; ++k) {
        uint o = first + k;
        if (o >= m)
            break;
        long w = lw[mine + k], p = lp[mine + k];
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
        if (width && promising) {
            long relaxed = relaxed_bound(w, p, capacity, row, width, grain, wl, pl);
            promising = relaxed > best;
            bound = min(bound, relaxed);
        }
        if (ccount && promising) {
            long clustered = cluster_bound(w, p, capacity, cS, cV, ccount, crate, cextra, cdenominator, cwl, cpl);
            promising = clustered > best;
            bound = min(bound, clustered);
        }
        uchar flag = undominated && promising;
        flags[mine + k] = flag;
        kept += flag;
        if (flag)
            top = max(top, bound);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = get_local_id(0); k < CHUNK && base + k < m; k += LOCAL_SIZE)
        keep[base + k] = flags[k];
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

/* One field of the kept states, in order, to the next list: read coalesced into `in`, the kept ones
 * packed into `out` at their ranks (the work-item's from `rank`), written coalesced. */
inline void compact_field(__global const long *src, __global long *dst, uint base, uint m, uint out_base,
                          uint count, uint rank, __local const uchar *flags, __local long *in,
                          __local long *out)
{
    load_chunk(src, in, base, m, 0);
    uint mine = get_local_id(0) * PER_ITEM;
    for (uint k = 0; k < PER_ITEM; ++k)
        if (flags[mine + k])
            out[rank++] = in[mine + k];
    store_chunk(out, dst, out_base, count);
}

/* The kept states, in order, to the next list. */
__kernel void states_compact(__global const long *MW, __global const long *MP, __global const ulong *Mbits,
                             __global const uint *Manchor, uint m, __global const uchar *keep,
                             __global const uint *offsets, __global long *W, __global long *P,
                             __global ulong *bits, __global uint *anchor)
{
    __local uint scratch[LOCAL_SIZE];
    __local uchar flags[CHUNK];
    __local long in[CHUNK], out[CHUNK];
    uint base = get_group_id(0) * CHUNK, mine = get_local_id(0) * PER_ITEM;
    for (uint k = get_local_id(0); k < CHUNK; k += LOCAL_SIZE)
        flags[k] = base + k < m ? keep[base + k] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint kept = 0;
    for (uint k = 0; k < PER_ITEM; ++k)
        kept += flags[mine + k];
    uint count;
    uint rank = group_scan_sum(kept, scratch, &count);
    uint out_base = offsets[get_group_id(0)];
    compact_field(MW, W, base, m, out_base, count, rank, flags, in, out);
    compact_field(MP, P, base, m, out_base, count, rank, flags, in, out);
    compact_field((__global const long *)Mbits, (__global long *)bits, base, m, out_base, count, rank, flags,
                  in, out);
    /* anchors are 32-bit: the same through uint views of the local arrays */
    __local uint *in_uint = (__local uint *)in, *out_uint = (__local uint *)out;
    for (uint k = get_local_id(0); k < CHUNK; k += LOCAL_SIZE)
        in_uint[k] = base + k < m ? Manchor[base + k] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < PER_ITEM; ++k)
        if (flags[mine + k])
            out_uint[rank++] = in_uint[mine + k];
    store_chunk_uint(out_uint, anchor, out_base, count);
}

/* One item of the rounded relaxation's DP (clsolve_plugins.dp_states.relaxed): the row of the best
 * profit at each rounded capacity r < width, after item (w, p) with its weight rounded down:
 * next[r] = max(row[r], row[r - w] + p). */
__kernel void relaxed_item(__global const long *row, __global long *next, uint width, uint w, long p)
{
    uint r = get_global_id(0);
    if (r >= width)
        return;
    long value = row[r];
    if (r >= w)
        value = max(value, row[r - w] + p);
    next[r] = value;
}
