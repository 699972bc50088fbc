/* Held-Karp 1-tree bounds with subgradient ascent ([HK71]; [VJ82]'s branch and bound), one
 * work-group per search node, every node of a batch in one launch.
 *
 * A 1-tree of the n vertices is a minimum spanning tree of vertices 1 .. n-1 and the two cheapest
 * edges at vertex 0. With penalties pi (one per vertex) every edge costs c_uv + pi_u + pi_v, a tour
 * costs the same plus 2 sum pi, and the 1-tree's cost minus 2 sum pi is a lower bound of every tour:
 *
 *     L(pi) = min over 1-trees T of  sum_{uv in T} (c_uv + pi_u + pi_v)  -  2 sum_v pi_v      [HK71, eq. 2]
 *
 * The ascent moves pi_v by t (d_v - 2), d_v the vertex's degree in the 1-tree, with the step
 * t = lambda (target - L) / sum (d_v - 2)^2 [HWC74]. A 1-tree whose degrees are all 2 is a tour, and
 * then the best of the node. Costs are scaled integers and pi integers: every bound is exact.
 *
 * A node fixes edges: required ones are in the tree whatever they cost (their weight lowered by
 * REQ_SHIFT, then counted at their own), forbidden ones out (a bit per vertex pair, in local memory
 * up to LOCAL_BITS vertices, else in the node's slot of `bits`); a vertex with two required edges has every
 * other edge forbidden.
 * Build options: -DMAXN (vertices at most, a power of two), -DWG (work-group size, a power of two). */

#define INF INT_MAX
#define REQ_SHIFT (1 << 29)
#define PI_LIMIT (1 << 26)
#define WORDS (MAXN * MAXN / 32)
#define LOCAL_BITS 256

#define ONGOING 0
#define PRUNED 1
#define TOUR 2
#define INFEASIBLE 3

#if MAXN <= LOCAL_BITS
#define BITS_SPACE __local
#else
#define BITS_SPACE __global
#endif

/* The weight Prim compares (INF: not an edge here), and the edge's penalised cost in `own`. */
inline int weight(__global const int *cost, BITS_SPACE const uint *forb, __local const int *req,
                  __local const int *pi, const int n, const int u, const int v, int *own)
{
    const int c = cost[u * n + v];
    const int bit = u * MAXN + v;
    if (c == INF || u == v || ((forb[bit >> 5] >> (bit & 31)) & 1u))
        return INF;
    *own = c + pi[u] + pi[v];
    if (req[2 * u] == v || req[2 * u + 1] == v)
        return *own - REQ_SHIFT;
    if (req[2 * u + 1] >= 0 || req[2 * v + 1] >= 0)
        return INF;  /* u or v has its two required edges */
    return *own;
}

/* rv[0], ri[0]: the least value offered and its index (ties: the lower index). Ends on a barrier. */
inline void argmin(__local int *rv, __local int *ri, const int value, const int index, const int lid)
{
    rv[lid] = value;
    ri[lid] = index;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            const int ov = rv[lid + s], oi = ri[lid + s];
            if (ov < rv[lid] || (ov == rv[lid] && oi < ri[lid])) {
                rv[lid] = ov;
                ri[lid] = oi;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Prim's tree over vertices 1 .. n-1 (parent[v], v >= 2) and the two edges at vertex 0 (parent[0],
 * parent[1]); returns 0 where no 1-tree exists. `scratch` (2 WG ints): the reductions' indices, then
 * their values. */
inline int onetree(__global const int *cost, BITS_SPACE const uint *forb, __local const int *req,
                   __local const int *pi, __local int *key, __local int *from, __local uchar *done,
                   __local int *parent, __local int *scratch, const int n, const int lid)
{
    int own;
    for (int v = lid; v < n; v += WG) {
        done[v] = v <= 1;
        key[v] = v >= 2 ? weight(cost, forb, req, pi, n, 1, v, &own) : INF;
        from[v] = 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = 0; step < n - 2; step++) {
        int low = INF, at = n;
        for (int v = lid; v < n; v += WG)
            if (!done[v] && key[v] < low) {
                low = key[v];
                at = v;
            }
        argmin(scratch + WG, scratch, low, at, lid);
        const int u = scratch[0];
        if (scratch[WG] == INF)
            return 0;
        for (int v = lid; v < n; v += WG) {
            if (v == u) {
                done[v] = 1;
                parent[v] = from[v];
            } else if (!done[v]) {
                const int w = weight(cost, forb, req, pi, n, u, v, &own);
                if (w < key[v]) {
                    key[v] = w;
                    from[v] = u;
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int round = 0; round < 2; round++) {
        int low = INF, at = n;
        for (int v = 1 + lid; v < n; v += WG) {
            const int w = weight(cost, forb, req, pi, n, 0, v, &own);
            if ((round == 0 || v != parent[0]) && w < low) {
                low = w;
                at = v;
            }
        }
        argmin(scratch + WG, scratch, low, at, lid);
        const int found = scratch[0], value = scratch[WG];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (value == INF)
            return 0;
        if (lid == 0)
            parent[round] = found;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return 1;
}

/* The node's fixed edges into `forb` (both directions) and `req` (a vertex's required neighbours, -1:
 * none), from edges[first .. last) (code 2 (u n + v) + 1 forbidden, + 0 required). */
inline void fixings(__global const int *edges, const int first, const int last, BITS_SPACE uint *forb,
                    __local int *req, __local int *count, const int n, const int lid)
{
    for (int k = lid; k < WORDS; k += WG)
        forb[k] = 0;
    for (int v = lid; v < MAXN; v += WG) {
        req[2 * v] = req[2 * v + 1] = -1;
        count[v] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (int k = first + lid; k < last; k += WG) {
        const int e = edges[k], code = e >> 1, u = code / n, v = code % n;
        if (e & 1) {
            atomic_or(&forb[(u * MAXN + v) >> 5], 1u << ((u * MAXN + v) & 31));
            atomic_or(&forb[(v * MAXN + u) >> 5], 1u << ((v * MAXN + u) & 31));
        } else {
            req[2 * u + min(atomic_inc(&count[u]), 1)] = v;
            req[2 * v + min(atomic_inc(&count[v]), 1)] = u;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

/* The 1-tree's L (scaled) and sum (d_v - 2)^2, the degrees in `degree`; all work-items get both. */
inline long2 measure(__global const int *cost, BITS_SPACE const uint *forb, __local const int *req,
                     __local const int *pi, __local const int *parent, __local int *degree,
                     __local long *sums, const int n, const int lid)
{
    for (int v = lid; v < n; v += WG)
        degree[v] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    long total = 0;
    for (int v = lid; v < n; v += WG) {
        const int a = v < 2 ? 0 : v, b = parent[v];
        int own = 0;
        weight(cost, forb, req, pi, n, a, b, &own);
        total += own - 2 * (long)pi[v];
        atomic_inc(&degree[a]);
        atomic_inc(&degree[b]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    long norm = 0;
    for (int v = lid; v < n; v += WG)
        norm += (long)(degree[v] - 2) * (degree[v] - 2);
    sums[lid] = total;
    sums[WG + lid] = norm;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            sums[lid] += sums[lid + s];
            sums[WG + lid] += sums[WG + lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const long2 out = (long2)(sums[0], sums[WG]);
    barrier(CLK_LOCAL_MEM_FENCE);
    return out;
}

/* One launch: node g of the batch fixes edges[first[g] .. first[g+1]), starts from penalties
 * pis[g n ..], and runs `iterations` steps of the ascent (fewer where `patience` steps in a row
 * raise no bound), stopping where its bound passes `upper`
 * (PRUNED), its 1-tree is a tour (TOUR) or no 1-tree exists (INFEASIBLE). Out: bounds[g] (the best
 * L, scaled), status[g], the penalties of the best L in pis and its 1-tree in trees (parent per
 * vertex; trees[g n], trees[g n + 1]: vertex 0's two neighbours). `bits`: each node's forbidden bits
 * where they do not fit local memory. */
__kernel void ascent(__global const int *restrict cost, __global uint *restrict bits,
                     __global const int *restrict edges, __global const int *restrict first,
                     __global int *restrict pis, __global long *restrict bounds, __global int *restrict status,
                     __global int *restrict trees, const int n, const int iterations, const int patience,
                     const long upper, const long target, const float lambda0, const float decay)
{
    __local int pi[MAXN], key[MAXN], from[MAXN], parent[MAXN], bestparent[MAXN], bestpi[MAXN];
    __local int req[2 * MAXN];
    __local uchar done[MAXN];
    __local int scratch[2 * WG];
    __local long sums[2 * WG];
    const int g = get_group_id(0), lid = get_local_id(0);
#if MAXN <= LOCAL_BITS
    __local uint forb[WORDS];
#else
    __global uint *forb = bits + (size_t)g * WORDS;
#endif
    fixings(edges, first[g], first[g + 1], forb, req, key, n, lid);
    for (int v = lid; v < n; v += WG) {
        pi[v] = bestpi[v] = pis[(size_t)g * n + v];
        bestparent[v] = -1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    long best = LONG_MIN;
    int outcome = INFEASIBLE;
    float lambda = lambda0;
    int improved = 0;
    for (int it = 0; it < iterations && it - improved <= patience; it++) {
        if (!onetree(cost, forb, req, pi, key, from, done, parent, scratch, n, lid))
            break;  /* the fixed edges allow no 1-tree, whatever the penalties */
        const long2 got = measure(cost, forb, req, pi, parent, from, sums, n, lid);
        const long bound = got.x;
        const int tour = got.y == 0;
        if (bound > best || tour) {
            best = bound;
            improved = it;
            outcome = ONGOING;
            for (int v = lid; v < n; v += WG) {
                bestpi[v] = pi[v];
                bestparent[v] = parent[v];
            }
        }
        if (tour) {
            outcome = TOUR;
            break;
        }
        if (bound > upper) {
            outcome = PRUNED;
            break;
        }
        const long t = max((long)1, (long)(lambda * (float)(target - bound) / (float)got.y));
        for (int v = lid; v < n; v += WG)
            pi[v] = (int)clamp((long)pi[v] + t * (from[v] - 2), (long)-PI_LIMIT, (long)PI_LIMIT);
        lambda *= decay;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int v = lid; v < n; v += WG) {
        pis[(size_t)g * n + v] = bestpi[v];
        trees[(size_t)g * n + v] = bestparent[v];
    }
    if (lid == 0) {
        bounds[g] = best;
        status[g] = outcome;
    }
}
