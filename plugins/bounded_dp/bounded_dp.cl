/* The bounded knapsack's dense dynamic program, one item at a time, at a cost that does not grow with
 * the item's count. Row f_{i-1} holds, for every capacity j = 0..C, the best profit of the items before
 * item i; item i (weight w, profit p, usable b times) makes
 *
 *     f_i(j) = max_{k = 0..min(b, j / w)} f_{i-1}(j - k w) + k p                  ([MT90] eq. 3.18)
 *
 * Along one residue class j = r + q w (q = 0, 1, ...) this is a sliding-window maximum of width
 * L = b + 1 over g(q) = f_{i-1}(r + q w) - q p, plus q p. Van Herk and Gil-Werman's scheme [vHGW92]
 * cuts the chain into blocks of L: a window is the suffix of one block joined to the prefix of the
 * next, so one work-item per (residue, block) scans its block forward (prefix maxima) after the
 * previous block backward (suffix maxima): about 3 reads and 2 writes per state whatever b is. The
 * chosen k of each state is kept (8, 16 or 32 bits, by the largest count) for the walk back.
 * Items whose blocks would be too few to fill the device are stepped as binary pieces instead
 * (`bounded_piece`: a 0-1 step of a piece of 2^t copies, one decision bit per state).
 * Change-making is the same program with p = -1, row 0 = (0, NONE, NONE, ...) and NONE kept where no
 * sum is made exactly.
 * Build options: -DEXACT (change-making: rows hold NONE where no exact sum exists). */

#define NONE (-(1L << 62))

#ifdef EXACT
#define VALID(v) ((v) > NONE / 2)
#define KEEP(v) (VALID(v) ? (v) : NONE)
#else
#define VALID(v) 1
#define KEEP(v) (v)
#endif

/* Decision k of state j in a window step's decisions, `kind` bits each (8, 16 or 32). */
inline void decide(__global uchar *restrict chosen, const int kind, const ulong j, const ulong k)
{
    if (kind == 8)
        chosen[j] = (uchar)k;
    else if (kind == 16)
        ((__global ushort *)chosen)[j] = (ushort)k;
    else
        ((__global uint *)chosen)[j] = (uint)k;
}

/* One item by windows: work-item (residue r, block B) writes f_i and the decision of the states
 * r + q w, q in block B; `shelf` (suffix maxima and their offsets) is scratch laid out like the rows. */
__kernel void bounded_window(__global const long *restrict before, __global long *restrict after,
                             __global long *restrict shelf_value, __global uint *restrict shelf_offset,
                             __global uchar *restrict decisions, const ulong offset, const int kind,
                             const ulong capacity, const ulong weight, const long profit, const ulong width)
{
    const ulong id = get_global_id(0);
    const ulong r = id % weight, block = id / weight;
    if (r > capacity)
        return;
    const ulong chain = (capacity - r) / weight + 1;
    const ulong q0 = block * width;
    if (q0 >= chain)
        return;
    const ulong q1 = min(q0 + width, chain);
    __global uchar *restrict chosen = decisions + offset;
    const ulong base = block ? q0 - width : q0; /* g(q) = f(r + q w) - (q - base) p */
    if (block) { /* suffix maxima of the previous block over base + 1 .. q0 - 1 */
        long best = NONE;
        uint at = 0;
        for (ulong q = q0 - 1; q > base; q--) {
            const long f = before[r + q * weight];
            const long g = f - (long)(q - base) * profit;
            if (VALID(f) && (best == NONE || g > best)) {
                best = g;
                at = (uint)(q - base);
            }
            shelf_value[r + q * weight] = best;
            shelf_offset[r + q * weight] = at;
        }
    }
    long best = NONE;
    ulong at = q0;
    for (ulong q = q0; q < q1; q++) {
        const long f = before[r + q * weight];
        const long g = f - (long)(q - base) * profit;
        if (VALID(f) && (best == NONE || g > best)) {
            best = g;
            at = q;
        }
        long top = best;
        ulong from = at;
        if (block && q - q0 < width - 1) { /* the window reaches back into the previous block */
            const ulong s = r + (q + 1 - width) * weight;
            const long v = shelf_value[s];
            if (v != NONE && (top == NONE || v > top)) {
                top = v;
                from = base + shelf_offset[s];
            }
        }
        const ulong j = r + q * weight;
        if (top == NONE) {
            after[j] = NONE;
            decide(chosen, kind, j, 0);
        } else {
            after[j] = KEEP(top + (long)(q - base) * profit);
            decide(chosen, kind, j, q - from);
        }
    }
}

/* One binary piece (weight w, profit p: 2^t copies of an item, or the rest) as a 0-1 step: state j
 * takes it where f(j - w) + p beats f(j). Bit j % 32 of word j / 32 of the piece's decisions says it
 * did; a work-group of 256 states writes its 8 words from local memory (no atomics). */
__kernel void bounded_piece(__global const long *restrict before, __global long *restrict after,
                            __global uchar *restrict decisions, const ulong offset, const ulong capacity,
                            const ulong weight, const long profit)
{
    __local uint bits[256];
    const ulong j = get_global_id(0);
    const uint lid = get_local_id(0);
    uint take = 0;
    if (j <= capacity) {
        const long keep = before[j];
        long best = keep;
        if (j >= weight) {
            const long from = before[j - weight];
            if (VALID(from) && (!VALID(keep) || from + profit > keep)) {
                best = from + profit;
                take = 1;
            }
        }
        after[j] = best;
    }
    bits[lid] = take << (lid % 32);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid % 32 == 0) {
        uint word = 0;
        for (uint k = 0; k < 32; k++)
            word |= bits[lid + k];
        const ulong at = j / 32;
        if (at * 32 <= capacity)
            ((__global uint *)(decisions + offset))[at] = word;
    }
}

/* One work-item: the counts of an optimum, walked back from state `start` through the steps in
 * reverse. Step s is item `item[s]`, `copies[s]` copies per unit of its decision, weight `span[s]` per
 * unit; its decisions lie at byte `at[s]` with `kind[s]` = 8, 16 or 32 (window: the k of each state)
 * or 1 (piece: one bit per state). counts[i] += k copies[s]; state -= k span[s]. */
__kernel void bounded_walk(__global const uchar *restrict decisions, __global const ulong *restrict at,
                           __global const int *restrict kind, __global const int *restrict item,
                           __global const ulong *restrict copies, __global const ulong *restrict span,
                           const int steps, const ulong start, __global ulong *restrict counts,
                           __global ulong *restrict left)
{
    if (get_global_id(0) != 0)
        return;
    ulong j = start;
    for (int s = steps - 1; s >= 0; s--) {
        __global const uchar *base = decisions + at[s];
        ulong k;
        if (kind[s] == 8)
            k = base[j];
        else if (kind[s] == 16)
            k = ((__global const ushort *)base)[j];
        else if (kind[s] == 32)
            k = ((__global const uint *)base)[j];
        else
            k = (((__global const uint *)base)[j / 32] >> (j % 32)) & 1u;
        if (k * span[s] > j) { /* a decision no step could have made: report it */
            left[0] = ~0UL;
            return;
        }
        counts[item[s]] += k * copies[s];
        j -= k * span[s];
    }
    left[0] = j;
}

/* Row 0: the empty packing, 0 for every capacity (knapsack) or 0 at sum 0 and NONE elsewhere
 * (change-making). */
__kernel void bounded_start(__global long *restrict row, const ulong capacity)
{
    const ulong j = get_global_id(0);
    if (j > capacity)
        return;
#ifdef EXACT
    row[j] = j == 0 ? 0 : NONE;
#else
    row[j] = 0;
#endif
}
