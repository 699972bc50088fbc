/* Held-Karp TSP on the wavefront model of [OM] (Sec. II-C-3, eq. 6; Fig. 3c): one launch per
 * subset size k, each level computed from the level before it only, so just two value levels live
 * on the device; each level's predecessors are the finished "row" kept for the tour (on the device
 * or streamed to host memory, as the host's plan decides).
 *
 * City 0 is the start. The other cities 1..n-1 are the members 0..N-1 (N = n - 1) of the subsets S.
 * A subset of size k with members c_0 < ... < c_{k-1} has the combinatorial rank
 * rank(S) = sum_t C(c_t, t + 1), so level k is dense: value[rank(S) * k + p] is the cheapest path
 * from city 0 through all of S that ends at member c_p (eq. 6: S_{X,i} = min_j S_{X\{i},j} + c_{j,i}),
 * and pred[rank(S) * k + p] is the member j it came from.
 *
 * Build options: VALUE_T (int or long, chosen so no path can overflow).
 */

/* At most 32 members (n <= 33): ranks C(32, 16) and below fit in 32 bits. */
/* MAX_MEMBERS (the cities past city 0, at most) comes from the host: MAX_HELD_KARP_CITIES - 1 */
/* binom[c * (MAX_MEMBERS + 1) + t] = C(c, t) for 0 <= c, t <= MAX_MEMBERS. */
#define BINOM(c, t) binom[(c) * (MAX_MEMBERS + 1) + (t)]

__kernel void held_karp_first(__global const VALUE_T *distances, __global VALUE_T *level, const uint n)
{
    const uint c = get_global_id(0);
    if (c < n - 1u)
        level[c] = distances[c + 1u];  /* S = {c}: the edge 0 -> c + 1 */
}

__kernel void held_karp_level(__global const VALUE_T *restrict distances, __global const uint *restrict binom,
                              __global const VALUE_T *restrict previous, __global VALUE_T *restrict level,
                              __global uchar *restrict pred, const ulong pred_offset, const uint n, const uint k,
                              const ulong first, const ulong count)
{
    const ulong g = first + get_global_id(0);
    if (g >= first + count)
        return;
    const uint rank = (uint)(g / k);
    const uint p = (uint)(g - (ulong)rank * k);
    /* unrank S: the largest c with C(c, t) <= r, for t = k down to 1 */
    uchar members[MAX_MEMBERS];
    uint r = rank, c = n - 1u;
    for (uint t = k; t >= 1u; --t) {
        do {
            --c;
        } while (BINOM(c, t) > r);
        members[t - 1u] = (uchar)c;
        r -= BINOM(c, t);
    }
    /* rank of S \ {c_p}: the members above p move down one position */
    uint rank_without = 0;
    for (uint t = 0; t < k; ++t) {
        if (t < p)
            rank_without += BINOM(members[t], t + 1u);
        else if (t > p)
            rank_without += BINOM(members[t], t);
    }
    const uint end = members[p] + 1u;
    __global const VALUE_T *row = previous + (ulong)rank_without * (k - 1u);
    VALUE_T best = 0;
    uint best_member = 0;
    for (uint q = 0; q + 1u < k; ++q) {
        const uint member = members[q < p ? q : q + 1u];
        const VALUE_T cost = row[q] + distances[(member + 1u) * n + end];
        if (q == 0 || cost < best) {
            best = cost;
            best_member = member;
        }
    }
    level[g] = best;
    pred[pred_offset + g] = (uchar)best_member;
}
