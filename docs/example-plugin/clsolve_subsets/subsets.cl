/* Every subset of a knapsack with n <= 24 items: work-item s packs the items whose bits are set in s
 * and writes the subset's profit, or -1 where some dimension's capacity is exceeded.
 * Build options: DIMS (the number of capacity dimensions m). */

__kernel void subset_values(__global const ulong *weights,     /* n x DIMS, row-major */
                            __global const ulong *profits,     /* n */
                            __global const ulong *capacities,  /* DIMS */
                            const uint n,
                            __global long *values)             /* 2^n */
{
    const uint subset = get_global_id(0);
    if (subset >= (1u << n))
        return;
    ulong load[DIMS];
    for (uint d = 0; d < DIMS; ++d)
        load[d] = 0;
    ulong profit = 0;
    for (uint i = 0; i < n; ++i) {
        if (subset & (1u << i)) {
            profit += profits[i];
            for (uint d = 0; d < DIMS; ++d)
                load[d] += weights[i * DIMS + d];
        }
    }
    long value = (long)profit;
    for (uint d = 0; d < DIMS; ++d)
        if (load[d] > capacities[d])
            value = -1;
    values[subset] = value;
}
