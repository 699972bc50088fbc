/* Exact enumeration of every subset of small instances (n <= 30), for batches of many small
 * knapsacks where 2^n is far below the n x states of a DP (paper 000's MSB set: 2^20 subsets
 * against 2 x 10^7 DP cell updates per instance).
 *
 * Work-item b of an instance visits the subsets of block b in Gray-code order: subset number
 * s = b * 2^BB + t has the Gray code g(s) = s ^ (s >> 1), and going from s - 1 to s flips exactly
 * bit ctz(s), so each step adds or removes one item. Each work-group reduces its best (value, mask)
 * in local memory (no atomics); enum_finish then picks each instance's best over its groups.
 */
#include "clsolve.h"

#ifndef BLOCK_BITS
#define BLOCK_BITS 10
#endif

/* instances[k] = (first item, items n, first work-group, unused) */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void enum_blocks(__global const uint *weights, __global const VALUE_T *profits,
                 __global const uint *capacities, __global const uint4 *instances,
                 __global const uint *group_instance, __global VALUE_T *group_value,
                 __global uint *group_mask)
{
    __local VALUE_T best_values[LOCAL_SIZE];
    __local uint best_masks[LOCAL_SIZE];
    const uint group = get_group_id(0), lid = get_local_id(0);
    const uint k = group_instance[group];
    const uint4 inst = instances[k];
    const uint n = inst.y;
    const uint bits = min(n, (uint)BLOCK_BITS);
    const uint block = (group - inst.z) * LOCAL_SIZE + lid;
    const ulong3 cap = (ulong3)(capacities[3 * k], capacities[3 * k + 1], capacities[3 * k + 2]);
    VALUE_T best = -1;
    uint best_mask = 0;
    if ((ulong)block < (1ul << (n - bits))) {
        const uint first = block << bits;
        uint gray = first ^ (first >> 1);
        ulong3 used = (ulong3)(0, 0, 0);
        VALUE_T value = 0;
        for (uint i = 0; i < n; ++i) {
            if ((gray >> i) & 1u) {
                const uint3 w = item_weight(weights, inst.x + i);
                used += (ulong3)(w.x, w.y, w.z);
                value += profits[inst.x + i];
            }
        }
        for (uint t = 0;; ) {
            if (used.x <= cap.x && used.y <= cap.y && used.z <= cap.z && value > best) {
                best = value;
                best_mask = gray;
            }
            if (++t == (1u << bits))
                break;
            const uint step = first + t;
            const uint bit = 31u - clz(step & (0u - step));      /* ctz(step) */
            gray ^= 1u << bit;
            const uint3 w = item_weight(weights, inst.x + bit);
            const ulong3 delta = (ulong3)(w.x, w.y, w.z);
            if ((gray >> bit) & 1u) {
                used += delta;
                value += profits[inst.x + bit];
            } else {
                used -= delta;
                value -= profits[inst.x + bit];
            }
        }
    }
    best_values[lid] = best;
    best_masks[lid] = best_mask;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint width = LOCAL_SIZE / 2; width > 0; width >>= 1) {
        if (lid < width && best_values[lid + width] > best_values[lid]) {
            best_values[lid] = best_values[lid + width];
            best_masks[lid] = best_masks[lid + width];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        group_value[group] = best_values[0];
        group_mask[group] = best_masks[0];
    }
}

/* One work-item per instance: the best of its groups, as a value and one flag per item. */
__kernel void enum_finish(__global const uint4 *instances, __global const VALUE_T *group_value,
                          __global const uint *group_mask, const uint count, const uint groups,
                          __global uchar *selected, __global VALUE_T *values)
{
    const uint k = get_global_id(0);
    if (k >= count)
        return;
    const uint4 inst = instances[k];
    const uint end = (k + 1 < count) ? instances[k + 1].z : groups;
    VALUE_T best = group_value[inst.z];
    uint mask = group_mask[inst.z];
    for (uint g = inst.z + 1; g < end; ++g) {
        if (group_value[g] > best) {
            best = group_value[g];
            mask = group_mask[g];
        }
    }
    values[k] = best;
    for (uint i = 0; i < inst.y; ++i)
        selected[inst.x + i] = (uchar)((mask >> i) & 1u);
}
