/* Branch and bound for many small multidimensional 0-1 knapsacks at once: a work-group per problem.
 *
 * Problem k: maximize sum_i p_i x_i subject to sum_i w_ij x_i <= C_j (j < m), x_i in {0, 1}.
 *
 * 1. Multipliers. For u >= 0 the surrogate constraint sum_i (u . w_i) x_i <= u . C holds for every
 *    feasible x ([GP85]); the LP bound of the surrogate problem is
 *        U(u) = min_{r >= 0} r (u . C) + sum_i max(0, p_i - r (u . w_i)),
 *    (LP duality of the fractional knapsack, [Dan57]) whose minimum lies at r = 0 or at a ratio
 *    p_i / (u . w_i). Each of the host's directions d (rows of `directions`, u_j = d_j / C_j) is
 *    evaluated at every breakpoint, spread over the work-group; the direction of least U is kept.
 * 2. Order. Items sorted by the ratio p_i / s_i of that surrogate (s_i = u . w_i), by rank: the
 *    branching order of [HS74] and the order of Dantzig's bound.
 * 3. Walks. A problem has `parts` work-groups, so W = parts x LOCAL_SIZE walkers. The first `split`
 *    levels are enumerated: subtree t takes item q (q < split) unless bit split - 1 - q of t is
 *    set, so t = 0 takes all. Walker v walks subtrees v, v + W, ... depth first, the item taken
 *    first, back to the deepest item taken ([HS74]). Every node is a feasible set (a take is tried
 *    only where the item fits every dimension); a node whose Dantzig bound of the surrogate problem
 *    over the items left, with the surrogate room u . res, cannot beat the problem's incumbent by 1
 *    is left. The incumbent is shared in local memory and, between the work-groups of a problem,
 *    in `incumbent` (32-bit atomics), read again every REFRESH nodes.
 * 4. Exactness. Profits, weights and capacities are 32-bit and every sum of profits fits (the host
 *    checks). The bound is P + (profits of the items that fit whole) + the fraction of the next,
 *    where the fraction is computed from the surrogate room plus a tolerance on the surrogate
 *    weights' sums and capped at that item's profit, so rounding can only raise it; a node is left
 *    only where that bound is below incumbent + 1 - BOUND_MARGIN.
 * Steps 1 and 2 run once per problem, in the first launch (`choose`), whose first work-group of the
 * problem keeps the chosen direction (`chosen_of`) and the order (`order_of`); every later launch and
 * every other work-group of the problem reads them back.
 * 5. Launches. A walker walks at most `budget` nodes per launch and keeps its place in `walker`
 *    (subtree, level, its best value, done) and `path` (the decisions by order position; the
 *    node's profit and residual capacities are recomputed from them). The best set of each walker
 *    is in `kept`. `mkp_batch_collect` then writes each problem's best value and items (the lowest
 *    walker holding it) and whether a walk is left.
 *
 * A launch's problems are `members` (problem numbers); its work-groups serve `active` (indices into
 * members), `parts` work-groups each. Walker v of member i has slot i W + v.
 *
 * Defines: LOCAL_SIZE, MAX_ITEMS (a multiple of 32), MAX_DIMS.
 */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define WORDS (MAX_ITEMS / 32)
#define BOUND_MARGIN 1e-3
#define SUM_TOLERANCE 1e-12
#define REFRESH 256

/* layout_t (a problem's place in the batch's arrays) and walker_t (a walker's place in its walk) are
 * declared before this file from the host's NumPy dtypes (LAYOUT and WALKER in solver.py). */

/* Dantzig's bound of the items at order positions level .. n-1 with surrogate room `room`, without P */
inline double dantzig(__local const double *pref_s, __local const int *pref_p, __local const double *ratio,
                      __local const int *order, uint level, uint n, double room, double tolerance)
{
    uint lo = level, hi = n;
    const double base = pref_s[level];
    while (lo < hi) {
        const uint mid = (lo + hi + 1) >> 1;
        if (pref_s[mid] - base <= room) lo = mid; else hi = mid - 1;
    }
    double bound = (double)(pref_p[lo] - pref_p[level]);
    if (lo < n) {
        const int item = order[lo];
        const double profit = (double)(pref_p[lo + 1] - pref_p[lo]);
        const double left = fmax(room - (pref_s[lo] - base) + tolerance, 0.0);
        bound += fmin(profit, left * fmax(ratio[item], 0.0));
    }
    return bound;
}

inline uint bit_of(const uint *x, uint q) { return (x[q >> 5] >> (q & 31)) & 1u; }

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void mkp_batch_walk(__global const layout_t *layout, __global const uint *members, __global const uint *active,
                    __global const int *profits, __global const int *weights, __global const int *capacities,
                    __global const double *directions, __global const uint *direction_rows,
                    __global walker_t *walker, __global uint *path, __global uint *kept, __global uint *nodes,
                    __global int *incumbent, __global double *bounds, __global int *order_of,
                    __global uint *chosen_of, uint parts, uint split, uint budget, uint first_launch, uint choose)
{
    __local double s_of[MAX_ITEMS];      /* surrogate weight of item i (by item) */
    __local double ratio[MAX_ITEMS];     /* p_i / s_i (by item; -1 for p_i = 0, +inf for s_i = 0) */
    __local int order[MAX_ITEMS];
    __local double pref_s[MAX_ITEMS + 1];
    __local int pref_p[MAX_ITEMS + 1];
    __local double least[LOCAL_SIZE];
    __local double u[MAX_DIMS];
    __local double chosen_u;
    __local uint chosen;
    __local int best;

    const uint lid = get_local_id(0);
    const uint member = active[get_group_id(0) / parts], part = get_group_id(0) % parts;
    const uint k = members[member];
    const uint first = layout[k].first_item, n = layout[k].items, wfirst = layout[k].first_weight;
    const uint cfirst = layout[k].first_capacity, m = layout[k].dims;
    __global const int *p = profits + first;
    __global const int *w = weights + wfirst;
    __global const int *cap = capacities + cfirst;

    /* 1. the direction of least U: one direction at a time, its breakpoints spread over the group */
    const uint dir_first = direction_rows[m], dir_count = choose ? direction_rows[m + 1] - dir_first : 0;
    if (lid == 0) { chosen = choose ? 0 : chosen_of[k]; chosen_u = INFINITY; }
    for (uint d = 0; d < dir_count; ++d) {
        __global const double *row = directions + (dir_first + d) * MAX_DIMS;
        for (uint i = lid; i < n; i += LOCAL_SIZE) {
            double s = 0.0;
            for (uint j = 0; j < m; ++j)
                if (cap[j] > 0) s += row[j] / (double)cap[j] * (double)w[i * m + j];
            s_of[i] = s;
        }
        double room = 0.0;
        for (uint j = 0; j < m; ++j)
            if (cap[j] > 0) room += row[j];
        barrier(CLK_LOCAL_MEM_FENCE);
        double mine = INFINITY;
        for (uint b = lid; b <= n; b += LOCAL_SIZE) {   /* b == n: r = 0 */
            if (b < n && !(s_of[b] > 0.0)) continue;
            const double r = b < n ? (double)p[b] / s_of[b] : 0.0;
            double f = r * room;
            for (uint i = 0; i < n; ++i) f += fmax(0.0, (double)p[i] - r * s_of[i]);
            mine = fmin(mine, f);
        }
        least[lid] = mine;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            double low = INFINITY;
            for (uint l = 0; l < LOCAL_SIZE; ++l) low = fmin(low, least[l]);
            if (low < chosen_u) { chosen_u = low; chosen = d; }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (choose && lid == 0 && part == 0) chosen_of[k] = chosen;
    for (uint j = lid; j < m; j += LOCAL_SIZE) {
        const double dj = directions[(dir_first + chosen) * MAX_DIMS + j];
        u[j] = cap[j] > 0 ? dj / (double)cap[j] : 0.0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 2. the chosen surrogate's weights, ratios and order (rank sort, or read back), and prefix sums */
    for (uint i = lid; i < n; i += LOCAL_SIZE) {
        double s = 0.0;
        for (uint j = 0; j < m; ++j) s += u[j] * (double)w[i * m + j];
        s_of[i] = s;
        ratio[i] = p[i] == 0 ? -1.0 : (s > 0.0 ? (double)p[i] / s : INFINITY);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < n; i += LOCAL_SIZE) {
        if (!choose) {
            order[i] = order_of[first + i];
            continue;
        }
        uint rank = 0;
        const double ri = ratio[i];
        for (uint q = 0; q < n; ++q) rank += (ratio[q] > ri || (ratio[q] == ri && q < i)) ? 1u : 0u;
        order[rank] = (int)i;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        pref_s[0] = 0.0;
        pref_p[0] = 0;
        for (uint q = 0; q < n; ++q) {
            pref_s[q + 1] = pref_s[q] + s_of[order[q]];
            pref_p[q + 1] = pref_p[q] + p[order[q]];
        }
        best = incumbent[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    double full_room = 0.0;
    for (uint j = 0; j < m; ++j) full_room += u[j] * (double)cap[j];
    const double tolerance = SUM_TOLERANCE * (pref_s[n] + full_room);
    if (lid == 0 && part == 0 && choose)
        bounds[k] = dantzig(pref_s, pref_p, ratio, order, 0, n, full_room, tolerance);
    if (part == 0 && choose)
        for (uint q = lid; q < n; q += LOCAL_SIZE) order_of[first + q] = order[q];

    /* 3. the walks */
    const uint walkers = parts * LOCAL_SIZE, slot = member * walkers + part * LOCAL_SIZE + lid;
    int sub, level, mine, done;
    uint x[WORDS];
    int res[MAX_DIMS];
    int profit = 0;
    if (first_launch) {
        sub = (int)(part * LOCAL_SIZE + lid); level = -1; mine = -1; done = 0;
        for (uint v = 0; v < WORDS; ++v) x[v] = 0u;
    } else {
        sub = walker[slot].subtree; level = walker[slot].level; mine = walker[slot].best; done = walker[slot].done;
        for (uint v = 0; v < WORDS; ++v) x[v] = path[slot * WORDS + v];
    }
    for (uint j = 0; j < m; ++j) res[j] = cap[j];
    if (!done && level >= 0) {
        for (uint q = 0; q < (uint)level; ++q) {
            if (!bit_of(x, q)) continue;
            const int item = order[q];
            profit += p[item];
            for (uint j = 0; j < m; ++j) res[j] -= w[item * m + j];
        }
    }
    const uint levels = min(n, split);
    const int subtrees = 1 << levels;
    uint count = 0;
    while (!done && count < budget) {
        if (level < 0) {                       /* the root of subtree `sub` */
            if (sub >= subtrees) { done = 1; break; }
            for (uint v = 0; v < WORDS; ++v) x[v] = 0u;
            for (uint j = 0; j < m; ++j) res[j] = cap[j];
            profit = 0;
            int fits = 1;
            for (uint q = 0; q < levels && fits; ++q) {
                if ((sub >> (levels - 1 - q)) & 1) continue;
                const int item = order[q];
                for (uint j = 0; j < m; ++j) fits &= w[item * m + j] <= res[j];
                if (!fits) break;
                for (uint j = 0; j < m; ++j) res[j] -= w[item * m + j];
                profit += p[item];
                x[q >> 5] |= 1u << (q & 31);
            }
            if (!fits) { sub += (int)walkers; continue; }
            level = (int)levels;
        }
        ++count;
        if (profit > mine) {                   /* every node is a feasible set */
            mine = profit;
            for (uint v = 0; v < WORDS; ++v) kept[slot * WORDS + v] = x[v];
            atomic_max(&best, profit);
            if (parts > 1) atomic_max(&incumbent[k], profit);
        }
        if (parts > 1 && (count & (REFRESH - 1)) == 0)
            atomic_max(&best, *(volatile __global int *)&incumbent[k]);
        int back = level == (int)n;
        if (!back) {
            double room = 0.0;
            for (uint j = 0; j < m; ++j) room += u[j] * (double)res[j];
            const double bound = (double)profit + dantzig(pref_s, pref_p, ratio, order, (uint)level, n, room, tolerance);
            back = bound < (double)(*(volatile __local int *)&best) + 1.0 - BOUND_MARGIN;
        }
        if (!back) {
            const int item = order[level];
            int fits = 1;
            for (uint j = 0; j < m; ++j) fits &= w[item * m + j] <= res[j];
            if (fits) {
                for (uint j = 0; j < m; ++j) res[j] -= w[item * m + j];
                profit += p[item];
                x[level >> 5] |= 1u << (level & 31);
            }
            ++level;
        } else {                               /* back to the deepest item taken below the split */
            int q = level - 1;
            while (q >= (int)levels && !bit_of(x, (uint)q)) --q;
            if (q < (int)levels) {
                level = -1;
                sub += (int)walkers;
            } else {
                const int item = order[q];
                x[q >> 5] &= ~(1u << (q & 31));
                for (uint j = 0; j < m; ++j) res[j] += w[item * m + j];
                profit -= p[item];
                level = q + 1;
            }
        }
    }
    walker[slot].subtree = sub; walker[slot].level = level; walker[slot].best = mine; walker[slot].done = done;
    for (uint v = 0; v < WORDS; ++v) path[slot * WORDS + v] = x[v];
    nodes[slot] = (first_launch ? 0u : nodes[slot]) + count;   /* nodes walked in the phase */
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) atomic_max(&incumbent[k], best);
}

/* Each member's best value and items (the lowest walker holding the largest best), and whether a
 * walk is left; the value and items are written only where they beat `values` unless `replace`. */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void mkp_batch_collect(__global const layout_t *layout, __global const uint *members, __global const uint *active,
                       __global const walker_t *walker, __global const uint *kept, __global int *values,
                       __global uchar *selected, __global int *status, __global const int *order_of,
                       uint parts, uint replace)
{
    __local int top, holder, left, write;
    const uint lid = get_local_id(0), member = active[get_group_id(0)], k = members[member];
    const uint walkers = parts * LOCAL_SIZE;
    if (lid == 0) { top = -1; holder = (int)walkers; left = 0; }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint v = lid; v < walkers; v += LOCAL_SIZE) {
        atomic_max(&top, walker[member * walkers + v].best);
        if (!walker[member * walkers + v].done) atomic_max(&left, 1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint v = lid; v < walkers; v += LOCAL_SIZE)
        if (walker[member * walkers + v].best == top) atomic_min(&holder, (int)v);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        status[k] = left;
        write = replace || top > values[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!write) return;
    const uint first = layout[k].first_item, n = layout[k].items;
    const uint slot = member * walkers + (uint)holder;
    for (uint q = lid; q < n; q += LOCAL_SIZE)
        selected[first + order_of[first + q]] = (uchar)((kept[slot * WORDS + (q >> 5)] >> (q & 31)) & 1u);
    if (lid == 0) values[k] = top;
}
