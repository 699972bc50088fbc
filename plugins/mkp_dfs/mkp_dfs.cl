/* mkp-dfs: depth-first branch and bound for the multidimensional 0-1 knapsack, one subtree per
 * work-item.
 *
 * Items are in the host's branching order (decreasing p_j / (u . w_j), [GP85]). A subtree is the
 * set of nodes whose decisions on items 0..root-1 are those of its path's bits; a work-item walks
 * its subtree depth first, the child with item d before the child without it, and its whole state
 * is the decision bits x of the node it stands on and that node's level d: in that order a 0 on the
 * path means the branch with the item is done (or the item did not fit), so backtracking goes to the
 * deepest 1 at or past the root, which becomes a 0 ([HS74]'s depth-first enumeration).
 * A launch walks at most `budget` nodes per work-item and writes the state back; the host splits
 * long walks between launches (their shallowest 1 becomes a subtree of its own).
 *
 * Bound at level k with residual capacities r ([GP85], the surrogate LP bound): with the level's
 * multipliers u_k, the room u_k . r is filled in the level's ratio order with the prefix sums
 * wsum (surrogate weights) and psum (profits), the item that does not fit taken fractionally; the
 * sum is rounded up with a relative margin of 1e-9 (double precision), except where no item is taken
 * in part (every one fits, or the first that does not has no profit): a sum of integers below 2^53 is
 * exact and is the bound. The host computes the same bound (`clsolve.mkp.surrogate.Suffix.bounds`).
 *
 * Build options: M (dimensions), WORDS (64-bit words of decision bits per node).
 * Profits, weights and capacities are 64-bit, every sum below 2^62. The incumbent is shared between
 * work-items as profit >> shift in one 32-bit integer (atomic_max: OpenCL 1.2 has no 64-bit atomics
 * on NVIDIA); each work-item keeps its own exact best value and its bits.
 */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF      /* no fused multiply-adds: the bound the host computes, bit for bit */

#define MARGIN 1e-9
#define EXACT_SUM 9007199254740992.0     /* 2^53: sums of integers below it are exact */

/* Upper bound of a node at level k (items k.. undecided) with profit `profit` and residuals r. */
inline long surrogate_bound(int k, int n, long profit, const long *r, __global const double *u,
                            __global const int *start, __global const double *wsum,
                            __global const double *psum, __global const double *surr)
{
    double room = 0.0;
    for (int i = 0; i < M; ++i)
        room += (double)r[i] * u[k * M + i];
    const int size = n - k, base = start[k];
    int lo = 0, hi = size;                      /* the last t with wsum[t] <= room (wsum[0] = 0) */
    while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if (wsum[base + mid] <= room)
            lo = mid;
        else
            hi = mid - 1;
    }
    const int last = lo, at = min(last, size - 1);
    const double left = room - wsum[base + last];
    const double gain = psum[base + at + 1] - psum[base + at];
    double share = 0.0;                         /* left < the item's surrogate weight: below gain */
    if (last < size && surr[base + at] > 0.0)
        share = gain * clamp(left / surr[base + at], 0.0, 1.0);
    const double total = (double)profit + psum[base + last] + share;
    if ((last == size || gain == 0.0) && total < EXACT_SUM)
        return (long)total;
    return (long)floor(total * (1.0 + MARGIN) + 1.0);
}

inline int taken(const ulong *x, int j)
{
    return (int)((x[j >> 6] >> (j & 63)) & 1ul);
}

/* The deepest item taken at level j or above, or -1. */
inline int deepest_taken(const ulong *x, int j)
{
    while (j >= 0) {
        const int word = j >> 6;
        const ulong bits = x[word] & (((ulong)2 << (j & 63)) - 1ul);     /* bits 0..j of the word */
        if (bits)
            return (word << 6) + 63 - (int)clz(bits);
        j = (word << 6) - 1;
    }
    return -1;
}

__kernel void mkp_dfs(const int n, const long budget, const int shift,
                      __global const long *p, __global const long *w, __global const long *c,
                      __global const double *u, __global const int *start,
                      __global const double *wsum, __global const double *psum,
                      __global const double *surr,
                      __global ulong *path, __global const int *root, __global int *depth,
                      __global long *best, __global ulong *best_path, __global long *made,
                      volatile __global int *shared)
{
    const int g = get_global_id(0);
    int d = depth[g];
    made[g] = 0;
    if (d < 0)
        return;
    const int top = root[g];
    ulong x[WORDS];
    long r[M];
    long profit = 0;
    for (int i = 0; i < WORDS; ++i)
        x[i] = path[g * WORDS + i];
    for (int i = 0; i < M; ++i)
        r[i] = c[i];
    for (int j = 0; j < d; ++j)
        if (taken(x, j)) {
            profit += p[j];
            for (int i = 0; i < M; ++i)
                r[i] -= w[j * M + i];
        }
    long mine = best[g], count = 0;
    while (count < budget) {
        ++count;
        if (profit > mine) {                    /* every node is feasible: items not decided left out */
            mine = profit;
            for (int i = 0; i < WORDS; ++i)
                best_path[g * WORDS + i] = x[i];
            atomic_max(shared, (int)(profit >> shift));
        }
        const long beat = max(mine, ((long)*shared) << shift);
        if (d < n && surrogate_bound(d, n, profit, r, u, start, wsum, psum, surr) > beat) {
            int fits = 1;
            for (int i = 0; i < M; ++i)
                fits &= r[i] >= w[d * M + i];
            if (fits) {
                profit += p[d];
                for (int i = 0; i < M; ++i)
                    r[i] -= w[d * M + i];
                x[d >> 6] |= (ulong)1 << (d & 63);
            }
            ++d;
            continue;
        }
        const int j = deepest_taken(x, d - 1);
        if (j < top) {
            d = -1;                             /* the subtree is done */
            break;
        }
        x[j >> 6] &= ~((ulong)1 << (j & 63));
        profit -= p[j];
        for (int i = 0; i < M; ++i)
            r[i] += w[j * M + i];
        d = j + 1;
    }
    depth[g] = d;
    made[g] = count;
    best[g] = mine;
    for (int i = 0; i < WORDS; ++i)
        path[g * WORDS + i] = x[i];
}

/* The bound of each busy work-item's subtree root (the decisions above `root`), or -1 for a work-item
 * that is done: every node a walk has left is below its root, so the largest is an upper bound on
 * what the search has not seen. */
__kernel void mkp_root_bounds(const int n,
                              __global const long *p, __global const long *w, __global const long *c,
                              __global const double *u, __global const int *start,
                              __global const double *wsum, __global const double *psum,
                              __global const double *surr,
                              __global const ulong *path, __global const int *root,
                              __global const int *depth, __global long *bound)
{
    const int g = get_global_id(0);
    if (depth[g] < 0) {
        bound[g] = -1;
        return;
    }
    const int top = root[g];
    long r[M];
    long profit = 0;
    for (int i = 0; i < M; ++i)
        r[i] = c[i];
    for (int j = 0; j < top; ++j)
        if ((path[g * WORDS + (j >> 6)] >> (j & 63)) & 1ul) {
            profit += p[j];
            for (int i = 0; i < M; ++i)
                r[i] -= w[j * M + i];
        }
    bound[g] = top < n ? surrogate_bound(top, n, profit, r, u, start, wsum, psum, surr) : profit;
}
