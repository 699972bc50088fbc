/* LCS on the wavefront model of [OM] (Sec. II-C-1, eq. 2; Sec. IV).
 *
 * The grid D (|a| + 1) x (|b| + 1), D[i][j] = LCS of a[0..i) and b[0..j), is stored by its vertical
 * differences: for row j, bit i-1 of the bit row V_j is 1 when D[i][j] == D[i-1][j] and 0 when
 * D[i][j] == D[i-1][j] + 1 (so D[m][n] = m - popcount(V_n)). Bits are packed 64 to a word (word w
 * holds a-positions 64w .. 64w + 63).
 *
 * Tiling: a block is WORDS_PER_BLOCK words (one work-item each) x ROWS rows. Blocks on one
 * anti-diagonal (word block wb + row block rb = d) are independent: one launch per block diagonal.
 * Inside a block the work-items run an inner wavefront: at step s, work-item t computes the rows of
 * group s - t (STEP_ROWS rows), taking the carries (bits) or the boundary values (cells) of its left
 * neighbour from local memory.
 * Between blocks, `edges[wb][rb & 1][g]` carries the crossing bits of row group g from word block
 * wb - 1 into wb, and `v_row[w]` carries word w from row block rb - 1 into rb.
 *
 * lcs_sweep fills the blocks by one of two recurrences (build option CELLS picks the second):
 *   bits       the bit-parallel recurrence of [CIPR01] / [Hyy04]:
 *              V' = (V + (V & M[b_j])) | (V & ~M[b_j]), 64 cells per word operation, the addition's
 *              carry rippling from word to word along the row;
 *   cells      the cell recurrence of eq. (2) itself, 64 cells per work-item per step (no masks,
 *              so any alphabet size), the generic path of the model.
 * A block diagonal's finished blocks (chunk d) are stored as tiles [block][word][ROWS] when
 * `store` is set; lcs_trace walks them back from (m, n).
 *
 * Build options: ROWS, STEP_ROWS (rows per inner step, 1..32), GROUPS (= ROWS / STEP_ROWS rounded up),
 * STAGE, RING_GROUPS, CODE_T, MASK_ROWS or MASKS_AHEAD, SKEWED_ROWS (lcs_stripes: see there),
 * WORDS_PER_BLOCK (= the sweep's work-group size), LOCAL_SIZE (the trace's work-group size: rows of its
 * window), TRACE_WORDS (words of the trace's window), CELLS.
 */

#define TILE_WORDS ((ulong)WORDS_PER_BLOCK * ROWS)

/* Where row r of word t of a block lies among its bit rows. Blocks of lcs_sweep: word by word,
 * `rows` apart. Stripes of lcs_stripes (SKEWED_ROWS defined): by the step s = r / STEP_ROWS + t that
 * computes the row, then the row within its group, then the word, so that what the work-items of a
 * step write is contiguous; a stripe holds (groups + WORDS_PER_BLOCK - 1) x STEP_ROWS x WORDS_PER_BLOCK words. */
#define SKEWED(t, r) ((((ulong)(r) / STEP_ROWS + (t)) * STEP_ROWS + (r) % STEP_ROWS) * WORDS_PER_BLOCK + (t))
#ifdef SKEWED_ROWS
#define BIT_ROW(t, r, rows) SKEWED(t, r)
#else
#define BIT_ROW(t, r, rows) ((ulong)(t) * (rows) + (r))
#endif

/* Match masks (the M[c] of the bit-parallel algorithm): one work-item per word of a; row c of
 * `masks` (rows = sigma + 2 of them) has bit i set where a[i] has code c. Codes >= sigma (symbols
 * of one string only) keep zero rows. */
__kernel void lcs_masks(__global const uint *a_codes, __global ulong *masks, const uint m, const uint words,
                        const uint sigma)
{
    const uint w = get_global_id(0);
    if (w >= words)
        return;
    for (uint c = 0; c < sigma + 2u; ++c)
        masks[(ulong)c * words + w] = 0;
    for (uint k = 0; k < 64u; ++k) {
        const uint i = w * 64u + k;
        if (i >= m)
            break;
        const uint c = a_codes[i];
        if (c < sigma)
            masks[(ulong)c * words + w] |= (ulong)1 << k;
    }
}

/* Ones in every word: V_0 (row 0 of D is all zeros, so every vertical difference is 0 -> bit 1). */
__kernel void lcs_start(__global ulong *v_row, const uint words)
{
    const uint w = get_global_id(0);
    if (w < words)
        v_row[w] = ~(ulong)0;
}

/* One row of the bit-parallel recurrence on one word: V' = (V + (V & M)) | (V & ~M), the addition
 * taking the carry *cross from the word to the right and leaving its own carry out there. The carry
 * out of x + y + c is bit 63 of (x & y) | ((x | y) & ~total); here x = V, y = V & M. */
inline ulong bits_row(const ulong V, const ulong M, uint *cross)
{
    const ulong total = V + (V & M) + (ulong)*cross;
    *cross = (uint)((V & (M | ~total)) >> 63);
    return total | (V & ~M);
}

/* One block of the sweep. Both recurrences share everything but the update of a word for one row:
 * with CELLS undefined, the bit-parallel step (masks used, a_codes not); with CELLS defined, eq. (2)
 * cell by cell on differences (a_codes used, masks not): with z = D[i-1][j-1], the vertical
 * difference v = D[i][j-1] - z (1 - the bit of V above) and the horizontal difference
 * h = D[i-1][j] - z (from the cell to the left), eq. (2) reads D[i][j] - z = e, e = 1 on a match,
 * else max(v, h); the cell passes h' = e - v to its right and v' = e - h down. Either way, one
 * 0/1 value crosses from word to word along a row (the carry, or the h of the word's last cell).
 *
 * The inner wavefront moves STEP_ROWS rows per step: at step s, work-item t updates its word for
 * the rows of group g = s - t (rows g * STEP_ROWS ..), one after the other, taking the group's
 * STEP_ROWS crossing bits packed in one uint from work-item t - 1 (which finished that group at
 * step s - 1) through local memory, and between word blocks through `edges` (one uint per group;
 * column 0 of D is zero, so zeros enter the first word block). One barrier per group, not per row:
 * the barrier and the local-memory hop cost more than a row's update. */
__kernel __attribute__((reqd_work_group_size(WORDS_PER_BLOCK, 1, 1)))
void lcs_sweep(__global const ulong *restrict masks, __global const uint *restrict a_codes,
               __global const uint *restrict b_codes, __global ulong *restrict v_row, __global uint *restrict edges,
               __global ulong *restrict chunk, const ulong chunk_offset, const int store, const uint m,
               const uint words, const uint n, const uint first_block, const uint diagonal)
{
    __local uint carry[2][WORDS_PER_BLOCK];
    __local uint symbols[ROWS];
    __local uint edge_in[GROUPS], edge_out[GROUPS];  /* kept off global memory inside the loop */
    const uint t = get_local_id(0);
    const uint wb = first_block + get_group_id(0);
    const uint rb = diagonal - wb;
    const uint w = wb * WORDS_PER_BLOCK + t;
    const uint row0 = rb * ROWS;
    const uint rows = min((uint)ROWS, n - row0);
    const uint groups = (rows + STEP_ROWS - 1u) / STEP_ROWS;
    __global uint *edges_in = edges + ((ulong)wb * 2u + (rb & 1u)) * GROUPS;
    __global uint *edges_out = edges + ((ulong)(wb + 1u) * 2u + (rb & 1u)) * GROUPS;
    for (uint r = t; r < rows; r += WORDS_PER_BLOCK)
        symbols[r] = b_codes[row0 + r];
    for (uint g = t; g < groups; g += WORDS_PER_BLOCK)
        edge_in[g] = edges_in[g];
#define MASK(r) masks[(ulong)symbols[r] * words + w]
#ifdef CELLS
    __local uint a_local[WORDS_PER_BLOCK * 64];
    for (uint k = t; k < WORDS_PER_BLOCK * 64u; k += WORDS_PER_BLOCK) {
        const uint i = wb * WORDS_PER_BLOCK * 64u + k;
        a_local[k] = i < m ? a_codes[i] : 0xffffffffu;  /* padding matches nothing */
    }
    __local const uint *a_word = a_local + t * 64u;
#endif
    barrier(CLK_LOCAL_MEM_FENCE);

    const int active = w < words;
    ulong V = active ? v_row[w] : ~(ulong)0;
    __global ulong *tile = chunk + chunk_offset + (ulong)get_group_id(0) * TILE_WORDS + (ulong)t * ROWS;
    const uint steps = groups + WORDS_PER_BLOCK - 1u;
#ifndef CELLS
    /* the masks of a group's rows are loaded a step ahead, off the critical path */
    ulong M_next[STEP_ROWS];
#pragma unroll
    for (uint k = 0; k < STEP_ROWS; ++k)
        M_next[k] = active && k < rows ? MASK(k) : 0;
#endif
    for (uint s = 0; s < steps; ++s) {
        const uint g = s - t;  /* wraps to a large value while s < t */
        if (g < groups) {
            const uint crossing_in = t == 0 ? edge_in[g] : carry[(s + 1u) & 1u][t - 1u];
            uint crossing_out = 0;
            const uint r0 = g * STEP_ROWS;
#ifndef CELLS
            ulong M_group[STEP_ROWS];
#pragma unroll
            for (uint k = 0; k < STEP_ROWS; ++k) {
                M_group[k] = M_next[k];
                const uint r = r0 + STEP_ROWS + k;
                if (active && r < rows)
                    M_next[k] = MASK(r);
            }
#endif
#pragma unroll
            for (uint k = 0; k < STEP_ROWS; ++k) {
                const uint r = r0 + k;
                if (r < rows) {
                    uint cross = (crossing_in >> k) & 1u;
#ifndef CELLS
                    V = bits_row(V, M_group[k], &cross);
#else
                    const uint bj = symbols[r];
                    ulong next = 0;
                    for (uint c = 0; c < 64u; ++c) {
                        const uint v = 1u - (uint)((V >> c) & 1u);
                        const uint e = a_word[c] == bj ? 1u : max(v, cross);  /* eq. (2), relative to D[i-1][j-1] */
                        next |= (ulong)(1u - (e - cross)) << c;
                        cross = e - v;
                    }
                    V = next;
#endif
                    crossing_out |= cross << k;
                    if (store && active)
                        tile[r] = V;
                }
            }
            carry[s & 1u][t] = crossing_out;
            if (t == WORDS_PER_BLOCK - 1u)
                edge_out[g] = crossing_out;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint g = t; g < groups; g += WORDS_PER_BLOCK)
        edges_out[g] = edge_out[g];
    if (active)
        v_row[w] = V;
}

/* The sweep in one launch, by stripes: work-group wb owns word block wb for all n rows and runs
 * the inner wavefront of lcs_sweep down the whole stripe, so the critical path is
 * n / STEP_ROWS + words (+ STAGE per stripe) steps instead of a block diagonal's full height per
 * diagonal. The crossing bits of row group g pass from stripe wb to wb + 1 through
 * `edges[(wb + 1) * groups + g]`, written with EDGE_READY set (so STEP_ROWS <= 31) into a column the
 * host zeroed; every STAGE steps the stripe waits for the next STAGE groups' edges to be ready and
 * copies them to local memory, with the symbols of b those groups read (a ring of RING_GROUPS row
 * groups of CODE_T codes: work-items read them far apart, which local memory serves at once and
 * the cache line by line). A stripe waits only for the one to its left, which started before
 * it (work-groups start in order of their index, as decoupled look-back scans [MG16] assume), so
 * the launch always progresses. Each edge carries its own flag: no ordering between separate
 * stores is assumed. A work-item reads its group's masks as the group starts, from the stripe's copy
 * of every mask row in local memory (MASK_ROWS: sigma + 2 rows, padded to 8, 32 or 64), or with
 * MASKS_AHEAD (alphabets too large for that copy) from global memory a group ahead; every whole
 * group runs without a branch (branches between rows keep the compiler from overlapping them).
 * With `store`, row r of word t of stripe wb goes to bits[wb * tile_words + SKEWED(t, r)], placed by
 * the step that computes it (SKEWED, at the top), so that at each step a row's words, written by
 * neighbouring work-items, are neighbours in memory and every store is coalesced. Work-groups from
 * `blocks` on run a second sweep in the same launch, over their own masks, codes, row and edges (the strings
 * reversed, for lcs_crossings; nothing stored), their stripes after all of the first's. */
#define EDGE_READY 0x80000000u
#ifndef CODE_T
#define CODE_T uint
#endif
#ifndef RING_GROUPS
#define RING_GROUPS 256
#endif
/* A work-item's mask of a symbol code: from local memory where the stripe's words of every mask row
 * were copied there (MASK_ROWS, at least sigma + 2, defined: small alphabets), else from global memory. */
#ifdef MASK_ROWS
#define STRIPE_MASK(code) own_masks[(uint)(code) * WORDS_PER_BLOCK]
#else
#define STRIPE_MASK(code) own_masks[(ulong)((uint)(code) * words)]
#endif
#define RING(r) ring[((r) / STEP_ROWS) % RING_GROUPS * STEP_ROWS + (r) % STEP_ROWS]

/* Copies the symbol codes of row groups [first, last) of b into the ring, all work-items together;
 * rows past n get code 0 (their masks are read, never used). */
inline void load_codes(__local CODE_T *ring, __global const uint *b_codes, const uint first, const uint last,
                       const uint n, const uint t)
{
    for (uint r = first * STEP_ROWS + t; r < last * STEP_ROWS; r += WORDS_PER_BLOCK)
        RING(r) = r < n ? (CODE_T)b_codes[r] : (CODE_T)0;
}

__kernel __attribute__((reqd_work_group_size(WORDS_PER_BLOCK, 1, 1)))
void lcs_stripes(__global const ulong *restrict masks, __global const uint *restrict b_codes,
                 __global ulong *restrict v_row, __global uint *edges, __global ulong *restrict bits,
                 const ulong tile_words, int store, uint words, const uint n,
                 __global const ulong *restrict mirror_masks, __global const uint *restrict mirror_codes,
                 __global ulong *restrict mirror_v_row, __global uint *mirror_edges, const uint mirror_words,
                 const uint blocks)
{
    __local uint carry[2][WORDS_PER_BLOCK];
    __local uint edge_in[STAGE];
    __local CODE_T ring[RING_GROUPS * STEP_ROWS];
    const uint t = get_local_id(0);
    uint wb = get_group_id(0);
    if (wb >= blocks) {  /* the second sweep */
        wb -= blocks;
        masks = mirror_masks;
        b_codes = mirror_codes;
        v_row = mirror_v_row;
        edges = mirror_edges;
        words = mirror_words;
        store = 0;
    }
    const uint w = wb * WORDS_PER_BLOCK + t;
    const uint groups = (n + STEP_ROWS - 1u) / STEP_ROWS;
    const int active = w < words;
    const uint w_read = min(w, words - 1u);  /* work-items past a's end compute on a real word, unused */
    volatile __global const uint *edges_in = edges + (ulong)wb * groups;
    volatile __global uint *edges_out = edges + (ulong)(wb + 1u) * groups;
    __global ulong *stripe = bits + (ulong)wb * tile_words;
    ulong V = active ? v_row[w] : ~(ulong)0;
    load_codes(ring, b_codes, 0u, 1u, n, t);
#ifdef MASK_ROWS
    __local ulong stripe_masks[MASK_ROWS * WORDS_PER_BLOCK];  /* this stripe's words of every mask row */
    for (uint c = 0; c < MASK_ROWS; ++c)
        stripe_masks[c * WORDS_PER_BLOCK + t] = masks[(ulong)c * words + w_read];
    __local const ulong *own_masks = stripe_masks + t;
#else
    __global const ulong *own_masks = masks + w_read;
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
#ifdef MASKS_AHEAD
    ulong M_next[STEP_ROWS];
#pragma unroll
    for (uint k = 0; k < STEP_ROWS; ++k)
        M_next[k] = STRIPE_MASK(RING(k));
#endif
    const uint steps = groups + WORDS_PER_BLOCK - 1u;
    for (uint s = 0; s < steps; ++s) {
        if (s % STAGE == 0u && s < groups) {
            /* groups s + 1 .. s + STAGE: the ring keeps the oldest group still read, s - WORDS_PER_BLOCK + 1 */
            load_codes(ring, b_codes, s + 1u, s + STAGE + 1u, n, t);
            for (uint k = t; k < STAGE; k += WORDS_PER_BLOCK) {
                uint e = 0;
                if (wb > 0 && s + k < groups)
                    do
                        e = edges_in[s + k];
                    while (!(e & EDGE_READY));
                edge_in[k] = e;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        const uint g = s - t;  /* wraps to a large value while s < t */
        if (g < groups) {
            const uint crossing_in = t == 0 ? edge_in[g % STAGE] : carry[(s + 1u) & 1u][t - 1u];
            uint crossing_out = 0;
            const uint r0 = g * STEP_ROWS;
            ulong M_group[STEP_ROWS];
#ifdef MASKS_AHEAD
            /* the next group's masks, without branches: past row n the ring holds code 0 (never used) */
            __local const CODE_T *next_codes = ring + (g + 1u) % RING_GROUPS * STEP_ROWS;  /* RING(r0 + STEP_ROWS) */
#pragma unroll
            for (uint k = 0; k < STEP_ROWS; ++k) {
                M_group[k] = M_next[k];
                M_next[k] = STRIPE_MASK(next_codes[k]);
            }
#else
            /* this group's masks from local memory, all issued before the first row needs one */
            __local const CODE_T *group_codes = ring + g % RING_GROUPS * STEP_ROWS;  /* RING(r0) */
#pragma unroll
            for (uint k = 0; k < STEP_ROWS; ++k)
                M_group[k] = STRIPE_MASK(group_codes[k]);
#endif
            /* straight-line rows where the group is whole (the usual case), with or without stores */
#define STRIPE_ROW(k)                                    \
            uint cross = (crossing_in >> (k)) & 1u;      \
            V = bits_row(V, M_group[k], &cross);         \
            crossing_out |= cross << (k)
            if (r0 + STEP_ROWS <= n && !(store && active)) {
#pragma unroll
                for (uint k = 0; k < STEP_ROWS; ++k) {
                    STRIPE_ROW(k);
                }
            } else if (r0 + STEP_ROWS <= n) {
                /* row r0 + k of every word of this step: one contiguous run (SKEWED, s = g + t) */
                __global ulong *out = stripe + (ulong)s * STEP_ROWS * WORDS_PER_BLOCK + t;
#pragma unroll
                for (uint k = 0; k < STEP_ROWS; ++k) {
                    STRIPE_ROW(k);
                    out[k * WORDS_PER_BLOCK] = V;
                }
            } else {
#pragma unroll
                for (uint k = 0; k < STEP_ROWS; ++k) {
                    if (r0 + k < n) {
                        STRIPE_ROW(k);
                        if (store && active)
                            stripe[SKEWED(t, r0 + k)] = V;
                    }
                }
            }
#undef STRIPE_ROW
            carry[s & 1u][t] = crossing_out;
            if (t == WORDS_PER_BLOCK - 1u)
                edges_out[g] = crossing_out | EDGE_READY;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (active)
        v_row[w] = V;
}

/* Trace-back through the blocks of chunk `diagonal` (Sec. II-C-1: from S[m][n] back to S[0][0]);
 * `rows` is the blocks' height (ROWS), or for the stripes of lcs_stripes the rows a stripe's words
 * take (SKEWED_ROWS: at least n).
 * state = {i, j, length}: the current cell and the pairs found so far; pairs go to `pairs` from the
 * end (pairs[2 (capacity - 1 - k)] = a-position, + 1 = b-position of the k-th pair found).
 * At (i, j): bit i-1 of V_j set -> D[i][j] = D[i-1][j], step to i-1; else a[i-1] == b[j-1] -> a
 * pair, step to (i-1, j-1); else D[i][j] = D[i][j-1], step to j-1; a run of ones in V_j is
 * stepped over at once. The work-group prefetches a window of LOCAL_SIZE rows x TRACE_WORDS words
 * of the bit rows and the matching symbols into local memory; work-item 0 walks it. Returns when
 * the walk leaves the chunk (the host launches the next one). Work-group g walks chunk diagonal + g,
 * chunk_stride words further on, from its own state (state + 4 g): the stripes' walks in parallel,
 * each from where the path enters its stripe (lcs_crossings). */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void lcs_trace(__global const ulong *chunk, ulong chunk_offset, const ulong chunk_stride, __global const uint *a_codes,
               __global const uint *b_codes, __global uint *state, __global uint *pairs, const uint capacity,
               uint first_block, uint diagonal, const uint m, const uint rows)
{
    __local ulong window[TRACE_WORDS][LOCAL_SIZE];
    __local uint a_window[TRACE_WORDS * 64];
    __local uint b_window[LOCAL_SIZE];
    __local uint walk[4];  /* i, j, length, go on */
    const uint l = get_local_id(0);
    diagonal += get_group_id(0);
    first_block += get_group_id(0);
    chunk_offset += get_group_id(0) * chunk_stride;
    state += 4u * get_group_id(0);
    if (l == 0) {
        walk[0] = state[0];
        walk[1] = state[1];
        walk[2] = state[2];
        walk[3] = 1u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong block_bits = (ulong)WORDS_PER_BLOCK * 64u;
    while (walk[3]) {
        const uint i = walk[0], j = walk[1];
        const uint wb = i == 0 ? 0u : (uint)((i - 1u) / block_bits);
        const uint rb = j == 0 ? 0u : (j - 1u) / rows;
        const int inside = i > 0 && j > 0 && wb + rb == diagonal && wb >= first_block;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!inside)
            break;
        /* the window: words t, t - 1, .. t - TRACE_WORDS + 1 of block (wb, rb) (those >= 0), rows
         * r - LOCAL_SIZE + 1 .. r */
        const uint t = ((i - 1u) / 64u) % WORDS_PER_BLOCK;
        const uint r = (j - 1u) % rows;
        const uint r_low = r + 1u >= LOCAL_SIZE ? r + 1u - LOCAL_SIZE : 0u;
        __global const ulong *tile = chunk + chunk_offset + (ulong)(wb - first_block) * WORDS_PER_BLOCK * rows;
        const uint row = r_low + l;
        if (row <= r) {
#pragma unroll
            for (uint q = 0; q < TRACE_WORDS; ++q)
                window[q][l] = t >= q ? tile[BIT_ROW(t - q, row, rows)] : 0;
            b_window[l] = b_codes[rb * rows + row];
        }
        const uint word_top = (i - 1u) / 64u;
        for (uint k = l; k < TRACE_WORDS * 64u; k += LOCAL_SIZE) {
            const uint q = k / 64u;  /* a_window[q * 64 + b]: position b of word word_top - q */
            const uint at = (word_top - q) * 64u + k % 64u;
            a_window[k] = t >= q && at < m ? a_codes[at] : 0u;  /* past a's end: never walked */
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l == 0) {
            uint ci = i, cj = j, length = walk[2];
            const uint word_low = word_top - min(t, TRACE_WORDS - 1u);
            /* the window holds cells i > i_floor (words word_low .. word_top), j > j_floor (its rows) */
            const uint i_floor = word_low * 64u, j_floor = rb * rows + r_low;
            while (ci > i_floor && cj > j_floor) {
                const uint x = ci - 1u, b = x & 63u, row = cj - 1u - j_floor;
                const uint which = word_top - x / 64u;
                /* the three reads issued together (the symbols are needed only on a 0 bit) */
                const ulong bits = window[which][row];
                const uint a_symbol = a_window[which * 64u + b], b_symbol = b_window[row];
                if ((bits >> b) & 1u) {
                    /* a run of ones in V_j below bit b: D[i][j] == D[i-1][j] all along it */
                    const ulong flipped = ~(bits << (63u - b));
                    const uint ones = flipped == 0 ? 64u : (uint)clz(flipped);
                    ci -= min(ones, b + 1u);
                } else {
                    if (a_symbol == b_symbol) {
                        ++length;
                        pairs[2u * (capacity - length)] = x;
                        pairs[2u * (capacity - length) + 1u] = cj - 1u;
                        --ci;
                    }
                    --cj;
                }
            }
            walk[0] = ci;
            walk[1] = cj;
            walk[2] = length;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) {
        state[0] = walk[0];
        state[1] = walk[1];
        state[2] = walk[2];
    }
}

/* Where the topmost optimal path (the one lcs_trace walks: it steps to i - 1 whenever D allows)
 * crosses each stripe boundary, so that the stripes' trace-backs run in parallel. Boundary k
 * (work-group k - 1, 1 <= k < stripes) is column i_k = k * 64 * WORDS_PER_BLOCK. Edge bit r of column k
 * of the sweep (`forward`) is F(i_k, r + 1) - F(i_k, r), F = D the prefix LCS; edge bit y - 1 of column
 * stripes - k of the sweep over both strings reversed, a behind symbols that match nothing so that
 * its columns fall on the same boundaries (`reverse`), is B(i_k, n - y) - B(i_k, n - y + 1), B the
 * suffix LCS. An optimal path passes (i_k, j) exactly where F + B = length ([Hir75]), and the
 * topmost one enters column i_k at the largest such j: crossings[2k] = j, crossings[2k + 1] = F(i_k, j),
 * the pairs left of the boundary. Each work-item sums a run of rows, work-item 0 scans the sums, and
 * each run is walked again from its prefix. */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void lcs_crossings(__global const uint *forward, __global const uint *reverse, const uint groups, const uint n,
                   const uint stripes, const uint length, __global uint *crossings)
{
    __local uint sum_f[LOCAL_SIZE], sum_g[LOCAL_SIZE];
    __local uint found;
    const uint l = get_local_id(0);
    const uint k = get_group_id(0) + 1u;
    __global const uint *f_column = forward + (ulong)k * groups;
    __global const uint *g_column = reverse + (ulong)(stripes - k) * groups;
    const uint per = (n + LOCAL_SIZE - 1u) / LOCAL_SIZE;
    const uint first = l * per + 1u, last = min(n, first + per - 1u);  /* rows j = first .. last */
#define F_BIT(j) ((f_column[((j) - 1u) / STEP_ROWS] >> (((j) - 1u) % STEP_ROWS)) & 1u)
#define G_BIT(j) ((g_column[(n - (j)) / STEP_ROWS] >> ((n - (j)) % STEP_ROWS)) & 1u)  /* y = n - j + 1 */
    uint f = 0, g = 0;
    for (uint j = first; j <= last; ++j) {
        f += F_BIT(j);
        g += G_BIT(j);
    }
    sum_f[l] = f;
    sum_g[l] = g;
    if (l == 0)
        found = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {  /* exclusive prefix sums; sum_g[0] ends as the total of g, B(i_k, 0) */
        uint pf = 0, pg = 0;
        for (uint t = 0; t < LOCAL_SIZE; ++t) {
            const uint a = sum_f[t], b = sum_g[t];
            sum_f[t] = pf;
            sum_g[t] = pg;
            pf += a;
            pg += b;
        }
        sum_g[0] = pg;  /* run 0's prefix of g is 0: kept apart below */
        if (pg == length)
            found = 1u;  /* T(0) = B(i_k, 0): j = 0 qualifies; stored as j + 1 */
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint total_g = sum_g[0];
    uint pf = sum_f[l], pg = l == 0 ? 0u : sum_g[l];
    uint best = 0, best_f = 0;
    for (uint j = first; j <= last; ++j) {
        pf += F_BIT(j);
        pg += G_BIT(j);
        if (pf + total_g - pg == length) {  /* F(i_k, j) + B(i_k, j) */
            best = j + 1u;
            best_f = pf;
        }
    }
#undef F_BIT
#undef G_BIT
    if (best)
        atomic_max(&found, best);
    barrier(CLK_LOCAL_MEM_FENCE);
    /* the runs are disjoint: one work-item holds the largest j (found = 0 only if no optimal path
     * crossed, which the host reports) */
    if (best && best == found) {
        crossings[2u * k] = best - 1u;
        crossings[2u * k + 1u] = best_f;
    } else if (l == 0 && found <= 1u) {
        crossings[2u * k] = found ? 0u : UINT_MAX;
        crossings[2u * k + 1u] = 0;
    }
}
