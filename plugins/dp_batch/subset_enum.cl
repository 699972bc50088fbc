/* Exact enumeration of every subset of small instances (n <= 30), for batches of many small
 * knapsacks where 2^n is far below the n x states of a DP ([LLMF]'s MSB set: 2^20 subsets
 * against 2 x 10^7 DP cell updates per instance).
 *
 * Work-item b of an instance visits the subsets of block b in Gray-code order: subset number
 * s = b * 2^BB + t has the Gray code g(s) = s ^ (s >> 1), and going from s - 1 to s flips exactly
 * bit ctz(s), so each step adds or removes one item. Each work-group reduces its best (value, mask)
 * in local memory (no atomics); enum_finish then picks each instance's best over its groups.
 */
#include "dp_states.h"

#ifndef BLOCK_BITS
#define BLOCK_BITS 10
#endif
/* SUM_T: uint when every instance's weights (clamped to capacity + 1) sum below 2^32, else ulong */
#ifndef SUM_T
#define SUM_T ulong
#endif
#define SUM3_T CONCAT(SUM_T, 3)
#define CONCAT(a, b) CONCAT_(a, b)
#define CONCAT_(a, b) a##b
#define MAX_ITEMS 32

/* instances[k] = (first item, items n, first work-group, unused) */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1)))
void enum_blocks(__global const uint *weights, __global const VALUE_T *profits,
                 __global const uint *capacities, __global const uint4 *instances,
                 __global const uint *group_instance, __global VALUE_T *group_value,
                 __global uint *group_mask)
{
    __local VALUE_T best_values[LOCAL_SIZE];
    __local uint best_masks[LOCAL_SIZE];
    __local SUM_T item_w[3 * MAX_ITEMS];     /* this work-group's instance: its items, in local memory */
    __local VALUE_T item_p[MAX_ITEMS];
    const uint group = get_group_id(0), lid = get_local_id(0);
    const uint k = group_instance[group];
    const uint4 inst = instances[k];
    const uint n = inst.y;
    for (uint i = lid; i < n; i += LOCAL_SIZE) {
        const uint3 w = item_weight(weights, inst.x + i);
        item_w[3 * i] = w.x;
        item_w[3 * i + 1] = w.y;
        item_w[3 * i + 2] = w.z;
        item_p[i] = profits[inst.x + i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint bits = min(n, (uint)BLOCK_BITS);
    const uint block = (group - inst.z) * LOCAL_SIZE + lid;
    const SUM3_T cap = (SUM3_T)(capacities[3 * k], capacities[3 * k + 1], capacities[3 * k + 2]);
    VALUE_T best = -1;
    uint best_mask = 0;
    if ((ulong)block < (1ul << (n - bits))) {
        const uint first = block << bits;
        uint gray = first ^ (first >> 1);
        SUM3_T used = (SUM3_T)(0, 0, 0);
        VALUE_T value = 0;
        for (uint i = 0; i < n; ++i) {
            if ((gray >> i) & 1u) {
                used += (SUM3_T)(item_w[3 * i], item_w[3 * i + 1], item_w[3 * i + 2]);
                value += item_p[i];
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
            const SUM3_T delta = (SUM3_T)(item_w[3 * bit], item_w[3 * bit + 1], item_w[3 * bit + 2]);
            if ((gray >> bit) & 1u) {
                used += delta;
                value += item_p[bit];
            } else {
                used -= delta;
                value -= item_p[bit];
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
