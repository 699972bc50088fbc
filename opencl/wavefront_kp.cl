/* 0-1 knapsack on the wavefront model of [OM] (Sec. II-C-2, eq. 4; Fig. 3b). Row i of the
 * grid (item i) depends on row i - 1 only, so the sweep goes row by row: one launch per item, every
 * capacity of the row in parallel, two value rows live on the device, and each finished row of
 * decisions (bit c of row i: item i is taken at capacity c) is the chunk kept for the trace-back,
 * on the device or streamed to host memory.
 *
 * Build options: VALUE_T (int or long), LOCAL_SIZE (a multiple of 32).
 */

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void kp_row(__global const VALUE_T *restrict previous, __global VALUE_T *restrict next,
            __global uint *restrict decisions, const ulong decision_offset, const uint capacity,
            const uint weight, const VALUE_T profit)
{
    __local uint taken[LOCAL_SIZE];
    const uint c = get_global_id(0);
    const uint l = get_local_id(0);
    uint take = 0;
    if (c <= capacity) {
        const VALUE_T keep = previous[c];
        VALUE_T best = keep;
        if (c >= weight) {
            const VALUE_T with_item = previous[c - weight] + profit;  /* eq. (4) */
            if (with_item > keep) {
                best = with_item;
                take = 1;
            }
        }
        next[c] = best;
    }
    taken[l] = take;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < LOCAL_SIZE / 32u) {
        uint word = 0;
        for (uint b = 0; b < 32u; ++b)
            word |= taken[l * 32u + b] << b;
        const uint index = get_group_id(0) * (LOCAL_SIZE / 32u) + l;
        if (index * 32u <= capacity)
            decisions[decision_offset + index] = word;
    }
}
