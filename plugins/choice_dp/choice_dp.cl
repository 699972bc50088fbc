/* The multiple-choice knapsack's dense dynamic program, a class per launch ([Pisinger95] Section 2's
 * recursion): row f_{k-1} holds, for every capacity j = 0..C, the best profit of one item of each
 * class before class k within j (NONE where no such choice fits); class k's items (w_i, p_i) make
 *
 *     f_k(j) = max_{i in class k, w_i <= j} f_{k-1}(j - w_i) + p_i
 *
 * and with "at most one" the class may also be skipped: f_{k-1}(j) itself. One work-item per state
 * reads the class's items (the same for every work-item: cached) and the row at j - w_i (coalesced).
 * Each state keeps the position of its choice in the class (`count`: none), in 8, 16 or 32 bits.
 * Build options: none. */

#define NONE (-(1L << 62))

__kernel void choice_step(__global const long *restrict before, __global long *restrict after,
                          __global uchar *restrict decisions, const ulong offset, const int kind,
                          __global const ulong *restrict weights, __global const long *restrict profits,
                          const uint first, const uint count, const ulong capacity, const int at_most_one)
{
    const ulong j = get_global_id(0);
    if (j > capacity)
        return;
    long best = at_most_one ? before[j] : NONE;
    uint chosen = count;
    for (uint i = 0; i < count; i++) {
        const ulong w = weights[first + i];
        if (w > j)
            break; /* lightest first: no later item fits either */
        const long f = before[j - w];
        if (f != NONE && f + profits[first + i] > best) {
            best = f + profits[first + i];
            chosen = i;
        }
    }
    after[j] = best;
    __global uchar *restrict at = decisions + offset;
    if (kind == 8)
        at[j] = (uchar)chosen;
    else if (kind == 16)
        ((__global ushort *)at)[j] = (ushort)chosen;
    else
        ((__global uint *)at)[j] = chosen;
}

/* Row 0: no class yet, profit 0 at every capacity. */
__kernel void choice_start(__global long *restrict row, const ulong capacity)
{
    const ulong j = get_global_id(0);
    if (j <= capacity)
        row[j] = 0;
}

/* One work-item: each class's chosen item (global index into `items`, or -1: none), walked back from
 * state `start` through the classes in reverse. Class k's decisions lie at byte `at[k]`, `kind[k]` bits
 * each; its items are items[first[k] .. first[k] + count[k]) with weights `weights`. */
__kernel void choice_walk(__global const uchar *restrict decisions, __global const ulong *restrict at,
                          __global const int *restrict kind, __global const uint *restrict first,
                          __global const uint *restrict count, __global const ulong *restrict weights,
                          __global const int *restrict items, const int classes, const ulong start,
                          __global int *restrict chosen, __global ulong *restrict left)
{
    if (get_global_id(0) != 0)
        return;
    ulong j = start;
    for (int k = classes - 1; k >= 0; k--) {
        __global const uchar *base = decisions + at[k];
        uint i;
        if (kind[k] == 8)
            i = base[j];
        else if (kind[k] == 16)
            i = ((__global const ushort *)base)[j];
        else
            i = ((__global const uint *)base)[j];
        if (i == count[k]) {
            chosen[k] = -1;
            continue;
        }
        if (i > count[k] || weights[first[k] + i] > j) {
            left[0] = ~0UL;
            return;
        }
        chosen[k] = items[first[k] + i];
        j -= weights[first[k] + i];
    }
    left[0] = j;
}
