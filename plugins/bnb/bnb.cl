/* bnb: breadth-first branch and bound for the 0-1 knapsack ([LE12], Lalami and El Baz).
 *
 * Items are sorted by decreasing profit/weight (host). A node of step k is (W, P, s, U, L) in
 * structure-of-arrays buffers, the paper's (w^_e, p^_e, s_e, U_e, L_e): items 0..k-1 are decided
 * on the node's path, items k..s-1 are packed as the greedy prefix (included in W and P), s is the
 * slack item (the first that does not fit), U the Dantzig upper bound and L the greedy lower bound.
 *
 * Build options: LOCAL_SIZE (work-group size; a power of two).
 * Weights, profits and sums are 64-bit: capacities up to 2^62, profit sums up to 2^63 - 1.
 */

/* floor(r * ps / ws) for r < ws (the fractional part of the Dantzig bound, [LE12] section II.B.1),
 * exact when r and ps fit in 32 bits; otherwise an upper bound on it computed in double precision
 * (relative error below 1e-15, so the margin keeps it an upper bound), never more than ps. */
inline ulong fractional(ulong r, ulong ps, ulong ws)
{
    if (r <= 0xFFFFFFFFul && ps <= 0xFFFFFFFFul)
        return r * ps / ws;
    const double t = (double)r * (double)ps / (double)ws;
    const ulong up = (ulong)(t * (1.0 + 1e-15)) + 1ul;
    return min(up, ps);
}

/* Pack items s, s+1, .. while they fit: the greedy prefix of the node. */
inline void extend(__global const ulong *w, __global const ulong *p, uint n, ulong c,
                   ulong *W, ulong *P, uint *s)
{
    while (*s < n && w[*s] <= c - *W) {
        *W += w[*s];
        *P += p[*s];
        *s += 1;
    }
}

/* U_e = p^_e + floor((c - w^_e) p_s / w_s)  ([LE12], eq. after the slack definition) */
inline ulong upper_bound(__global const ulong *w, __global const ulong *p, uint n, ulong c,
                         ulong W, ulong P, uint s)
{
    return s < n ? P + fractional(c - W, p[s], w[s]) : P;
}

/* L_e = p^_e + greedy over the items after s ([LE12]): stops once no remaining item fits. */
inline ulong lower_bound(__global const ulong *w, __global const ulong *p, __global const ulong *suffix_min,
                         uint n, ulong c, ulong W, ulong P, uint s)
{
    ulong r = c - W, L = P;
    for (uint i = s + 1; i < n && suffix_min[i] <= r; ++i) {
        if (w[i] <= r) {
            r -= w[i];
            L += p[i];
        }
    }
    return L;
}

/* Kernel 1 + 2 + labelling of the paper, fused: work-item e branches node e of the q nodes on item
 * k. Son x_k = 1 is node e itself (kept in place when k < s_e; when k = s_e item k does not fit and
 * it is dropped). Son x_k = 0 goes to slot q + e with its new slack and bounds. A node is kept when
 * U > best (the best lower bound known before this step: a stale best only keeps more nodes).
 * Per work-group: the sons' best lower bound and its node, the number of nodes kept and the largest
 * upper bound among them (results[3g] = best L, results[3g + 1] = (son index << 32) | kept,
 * results[3g + 2] = max U of the kept nodes: a bound on every open node, read when the search stops),
 * reduced in local memory: no atomics. */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void bnb_branch(__global const ulong *w, __global const ulong *p, __global const ulong *suffix_min,
                const uint n, const ulong c, const uint q, const uint k, const ulong best,
                __global ulong *W, __global ulong *P, __global uint *S, __global ulong *U, __global ulong *L,
                __global uchar *keep, __global ulong *results)
{
    __local ulong best_l[LOCAL_SIZE];
    __local uint best_e[LOCAL_SIZE];
    __local uint kept[LOCAL_SIZE];
    __local ulong top_u[LOCAL_SIZE];
    const uint e = get_global_id(0), lid = get_local_id(0);
    ulong son_l = 0, kept_u = 0;
    uint count = 0;
    if (e < q) {
        ulong sw = W[e], sp = P[e];
        uint ss = S[e];
        uchar keep_father = 0;
        if (k < ss) {                       /* father = son x_k = 1: unchanged */
            keep_father = U[e] > best;
            sw -= w[k];
            sp -= p[k];
        } else {                            /* k = s_e: only x_k = 0 is feasible */
            ss += 1;
        }
        extend(w, p, n, c, &sw, &sp, &ss);
        const ulong su = upper_bound(w, p, n, c, sw, sp, ss);
        son_l = lower_bound(w, p, suffix_min, n, c, sw, sp, ss);
        const uchar keep_son = su > best;
        W[q + e] = sw;
        P[q + e] = sp;
        S[q + e] = ss;
        U[q + e] = su;
        L[q + e] = son_l;
        keep[e] = keep_father;
        keep[q + e] = keep_son;
        count = keep_father + keep_son;
        kept_u = max(keep_father ? U[e] : 0ul, keep_son ? su : 0ul);
    }
    best_l[lid] = son_l;
    best_e[lid] = e;
    kept[lid] = count;
    top_u[lid] = kept_u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint width = LOCAL_SIZE / 2; width > 0; width >>= 1) {
        if (lid < width) {
            if (best_l[lid + width] > best_l[lid]) {
                best_l[lid] = best_l[lid + width];
                best_e[lid] = best_e[lid + width];
            }
            kept[lid] += kept[lid + width];
            top_u[lid] = max(top_u[lid], top_u[lid + width]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        const uint g = get_group_id(0);
        results[3 * g] = best_l[0];
        results[3 * g + 1] = ((ulong)best_e[0] << 32) | kept[0];
        results[3 * g + 2] = top_u[0];
    }
}

/* Concatenation of the kept nodes (the paper's last device step): work-group g writes its kept
 * nodes from offsets[g] on, in order (a scan of the keep flags in local memory), into the other
 * buffer set, and records for each the node it came from (0..2q-1, for rebuilding paths). */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void bnb_compact(const uint q, __global const uchar *keep, __global const uint *offsets,
                 __global const ulong *W, __global const ulong *P, __global const uint *S,
                 __global const ulong *U, __global const ulong *L,
                 __global ulong *W2, __global ulong *P2, __global uint *S2, __global ulong *U2,
                 __global ulong *L2, __global uint *origin)
{
    __local uint scan[LOCAL_SIZE];
    const uint e = get_global_id(0), lid = get_local_id(0);
    const uint keep_father = e < q ? keep[e] : 0u;
    const uint keep_son = e < q ? keep[q + e] : 0u;
    scan[lid] = keep_father + keep_son;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint offset = 1; offset < LOCAL_SIZE; offset <<= 1) {    /* inclusive Hillis-Steele scan */
        const uint add = lid >= offset ? scan[lid - offset] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        scan[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint at = offsets[get_group_id(0)] + scan[lid] - (keep_father + keep_son);
    if (keep_father) {
        W2[at] = W[e]; P2[at] = P[e]; S2[at] = S[e]; U2[at] = U[e]; L2[at] = L[e];
        origin[at] = e;
        at += 1;
    }
    if (keep_son) {
        const uint f = q + e;
        W2[at] = W[f]; P2[at] = P[f]; S2[at] = S[f]; U2[at] = U[f]; L2[at] = L[f];
        origin[at] = f;
    }
}
