/* Subset sum by words of reachable sums: the word-parallel dynamic program of [Pisinger03] (Section 2:
 * a word holds w consecutive sums, so that one item costs C / w word operations). Bit b of word j says
 * that some subset of the items stepped so far sums to s = 32 j + b. Item i of weight w_i adds every
 * s + w_i:  R_i = R_{i-1} | (R_{i-1} << w_i), cut at the capacity C.
 * A sum that item i reaches first records i in `first` (first[s] = i), so that s - w_i was reachable
 * before item i: the trace walks s, s - w_{first[s]}, ... down to 0, each step through an earlier item.
 * Build options: none. */

/* One item: word j of R_i from words j - q and j - q - 1 of R_{i-1} (w_i = 32 q + r); the new sums'
 * first item; `reached` set where the capacity itself becomes reachable. */
__kernel void subset_sum_step(__global const uint *restrict before, __global uint *restrict after,
                              __global int *restrict first, const uint words, const ulong weight,
                              const ulong capacity, const int item, __global uint *restrict reached)
{
    const uint j = get_global_id(0);
    if (j >= words)
        return;
    const ulong q = weight / 32;
    const uint r = (uint)(weight % 32);
    uint shifted = 0;
    if ((ulong)j >= q) {
        const ulong k = (ulong)j - q;
        shifted = before[k] << r;
        if (r != 0 && k > 0)
            shifted |= before[k - 1] >> (32 - r);
    }
    const uint old = before[j];
    uint now = old | shifted;
    const ulong low_sum = (ulong)j * 32;
    if (low_sum + 31 > capacity) {  /* the last word: no sum past the capacity */
        const ulong keep = capacity - low_sum + 1;  /* sums low_sum .. capacity */
        now &= keep >= 32 ? 0xffffffffu : ((1u << keep) - 1u);
    }
    uint fresh = now & ~old;
    while (fresh != 0) {
        const uint lowest = fresh & (0u - fresh);
        first[low_sum + (31 - clz(lowest))] = item;
        fresh ^= lowest;
    }
    after[j] = now;
    if (low_sum <= capacity && capacity - low_sum < 32 && ((now >> (uint)(capacity - low_sum)) & 1u))
        reached[0] = 1;
}

/* One work-item: the items of a subset summing to `target`, walked back through `first` (taken: item
 * indices, latest first; count[0]: how many, or 0xffffffff where the walk meets an entry no step wrote). */
__kernel void subset_sum_trace(__global const int *restrict first, __global const ulong *restrict weights,
                               const ulong target, const int n, __global int *restrict taken,
                               __global uint *restrict count)
{
    if (get_global_id(0) != 0)
        return;
    ulong s = target;
    int c = 0;
    int last = n;
    while (s > 0) {
        const int i = first[s];
        if (i < 0 || i >= last || weights[i] > s) {
            count[0] = 0xffffffffu;
            return;
        }
        taken[c++] = i;
        s -= weights[i];
        last = i;
    }
    count[0] = (uint)c;
}
