/* dp-batch: k knapsack instances (same m = DIMS) advanced together, one launch per item step.
 * [LLMF], Algorithms 3.1-3.3: the state rows of all instances are concatenated (offsets S), each
 * launch covers every instance, and one work-item per instance backtracks (Algorithm 3.3).
 *
 * Instances may have different item counts without artificial items: items are right-aligned, so
 * instance k takes part in steps L - n_k .. L - 1 (L = the largest n). Before its first item its row
 * is all zeros in both ping-pong buffers, so inactive instances need no work and no copies.
 * Work is cut into tiles of TILE_STATES states of one instance (see dp_states.h for the bit layout);
 * tile_instance maps a work-group to its instance.
 */
#include "dp_states.h"

/* instance_t (per instance: state_offset, decision_offset, states, span1, span2, first_tile,
 * first_item, items, words_per_row) is declared by the host from the NumPy dtype INSTANCE in
 * plugins/dp_batch/solver.py, its layout checked on the device (clsolve.runtime.kernels). */

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void dp_batch_step(__global const VALUE_T *restrict prev, __global VALUE_T *restrict next,
                   __global uint *restrict decisions, __global const uint *weights,
                   __global const VALUE_T *profits, __global const instance_t *instances,
                   __global const uint *tile_instance, const uint steps, const uint step)
{
    const uint group = get_group_id(0);
    const instance_t inst = instances[tile_instance[group]];
    const uint start = steps - inst.items;          /* first step of this instance */
    if (step < start)
        return;                                      /* row still all zeros in both buffers */
    const uint r = step - start;                     /* item index within the instance */
    const uint item = inst.first_item + r;
    const uint3 w = item_weight(weights, item);
    const uint s = shift(w, inst.span1, inst.span2);
    const VALUE_T p = profits[item];
    const uint lid = get_local_id(0);
    const uint tile = group - inst.first_tile;
    __global const VALUE_T *f = prev + inst.state_offset;
    __global VALUE_T *g = next + inst.state_offset;
    uint bits = 0;
    #pragma unroll 8
    for (uint j = 0; j < 32u; ++j) {
        const uint c = tile * TILE_STATES + j * LOCAL_SIZE + lid;
        if (c >= inst.states)
            continue;
        const VALUE_T keep = f[c];
        VALUE_T best = keep;
        if (fits(state_capacity(c, inst.span1, inst.span2), w)) {
            const VALUE_T take = f[c - s] + p;
            if (take > keep) {
                best = take;
                bits |= 1u << j;
            }
        }
        g[c] = best;
    }
    decisions[inst.decision_offset + (ulong)r * inst.words_per_row + (ulong)tile * LOCAL_SIZE + lid] = bits;
}

/* Temporal blocking where an instance's whole row fits in local memory (CHIP_STATES states, at most
 * one tile): one work-group per instance applies all its items to the row on chip, one after another
 * (Algorithm 3.1's loop over items inside the kernel), and only the decision words of each item and
 * the final row go to global memory. The decision words have the layout of dp_batch_step (tile 0:
 * bit j of work-item l's word is state j * LOCAL_SIZE + l), so dp_batch_backtrack reads them unchanged.
 * One row serves both f_{i-1} and f_i of f_i(c) = max(f_{i-1}(c), f_{i-1}(c - w_i) + p_i): the chunks
 * of LOCAL_SIZE states are updated from the highest down, and c - w_i <= c, so a chunk reads only
 * itself (all its reads done before any write, between two barriers) and chunks below, not yet
 * updated. chip_instance[first_chip...] lists the instances of this launch, one per work-group; final_row receives
 * each row at its instance's state_offset (the buffer dp_batch_backtrack reads). */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void dp_batch_chip(__global uint *restrict decisions, __global const uint *weights,
                   __global const VALUE_T *profits, __global const instance_t *instances,
                   __global const uint *chip_instance, const uint first_chip, __global VALUE_T *final_row)
{
    __local VALUE_T f[CHIP_STATES];
    const instance_t inst = instances[chip_instance[first_chip + get_group_id(0)]];
    const uint lid = get_local_id(0);
    const uint chunks = (inst.states + LOCAL_SIZE - 1) / LOCAL_SIZE;   /* at most 32: one tile */
    for (uint c = lid; c < inst.states; c += LOCAL_SIZE)
        f[c] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = 0; r < inst.items; ++r) {
        const uint item = inst.first_item + r;
        const uint3 w = item_weight(weights, item);
        const uint s = shift(w, inst.span1, inst.span2);
        const VALUE_T p = profits[item];
        uint bits = 0;
        for (uint j = chunks; j-- > 0;) {
            const uint c = j * LOCAL_SIZE + lid;
            VALUE_T best = 0;
            int take = 0;
            if (c < inst.states && fits(state_capacity(c, inst.span1, inst.span2), w)) {
                best = f[c - s] + p;
                take = best > f[c];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            if (take) {
                f[c] = best;
                bits |= 1u << j;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        decisions[inst.decision_offset + (ulong)r * inst.words_per_row + lid] = bits;
    }
    for (uint c = lid; c < inst.states; c += LOCAL_SIZE)
        final_row[inst.state_offset + c] = f[c];
}

/* Algorithm 3.3: one work-item per instance walks its items back from the full capacities, and
 * gathers the instance's optimum from the last state of its final row. */
__kernel void dp_batch_backtrack(__global const uint *decisions, __global const uint *weights,
                                 __global const instance_t *instances, __global const uint *capacities,
                                 __global const VALUE_T *final_row, const uint count,
                                 __global uchar *selected, __global VALUE_T *values)
{
    const uint k = get_global_id(0);
    if (k >= count)
        return;
    const instance_t inst = instances[k];
    values[k] = final_row[inst.state_offset + inst.states - 1];
    uint3 rest = (uint3)(capacities[3 * k], capacities[3 * k + 1], capacities[3 * k + 2]);
    for (uint r = inst.items; r-- > 0;)
        rest = backtrack_item(decisions + inst.decision_offset + (ulong)r * inst.words_per_row, weights,
                              inst.first_item + r, rest, inst.span1, inst.span2, selected);
}
