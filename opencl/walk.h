/* The trace-back's walk, BACK_DEPTH items a round (steps 8-12 of Algorithm 2.1 in [LLMF]), shared by
 * dp_rows_backtrack (dp_rows.cl) and kp_backtrack (wavefront_kp.cl); OpenCL C 1.2.
 *
 * A walk item by item waits for one read of global memory per item. Here one work-group of
 * BACK_GROUP = 2^BACK_DEPTH work-items reads the bits of BACK_DEPTH items at once, one work-item for
 * each state the walk may stand at: the item d places below the round's first is read at
 * rest - W(S) for every set S of the d items above it (work-item 2^d - 1 + S; bit b of S: the item b
 * places below the first is taken), 2^BACK_DEPTH - 1 reads in all. Work-item 0 then follows the taken
 * bits through them, the walk of Algorithm 2.1 exactly: a set S is read only where rest - W(S) fits,
 * which every state on the walk does (a bit is set only where its item fits). The weights come into
 * local memory BACK_WINDOW items at a time, the first of them at window[0].
 *
 * The including file defines WALK_WIDTH, the components of a capacity and of a weight (3 for the
 * capacity vectors of dp_rows.cl, 1 for wavefront_kp.cl): WALK_T is uint3 or uint. Capacities stay
 * below 2^32 - 1 in every component, so a saturated weight sum never fits. The capacity carried from
 * launch to launch (WALK_WIDTH words of global memory) is read and written by work-item 0 alone.
 * Build option BACK_DEPTH (clsolve.dp.table.BACK_DEPTH).
 */
#ifndef WALK_H
#define WALK_H

#if WALK_WIDTH == 3
#define WALK_T uint3
#elif WALK_WIDTH == 1
#define WALK_T uint
#else
#error "WALK_WIDTH must be defined (1 or 3)"
#endif

#define BACK_GROUP (1u << BACK_DEPTH)
#define BACK_WINDOW (16u * BACK_DEPTH)

/* The item work-item x reads: `walk_depth` places below the round's first, at rest - W(walk_set). */
inline uint walk_depth(uint x)
{
    return 31u - clz(x + 1u);
}

inline uint walk_set(uint x)
{
    return x + 1u - (1u << walk_depth(x));
}

/* Whether the window must be read again before a round of `round` items below `top` (the same answer
 * for every work-item, so the barrier after the reading is reached by all); if so, the window's first
 * item becomes item top - 1 (*window_top = top). */
inline int window_stale(uint top, uint items, uint round, uint *window_top)
{
    if (top != items && *window_top - top + round <= BACK_WINDOW)
        return 0;
    *window_top = top;
    return 1;
}

/* Whether work-item x reads a bit in a round of `round` items (work-item 2^BACK_DEPTH - 1 never does). */
inline int walk_reads(uint x, uint round)
{
    return x + 1u < BACK_GROUP && walk_depth(x) < round;
}

/* W(set): the weights of the items `set` names among the `depth` at window[near], saturating. */
inline WALK_T set_weight(__local const WALK_T *window, uint near, uint depth, uint set)
{
    WALK_T sum = (WALK_T)(0u);
    for (uint b = 0; b < depth; ++b)
        if ((set >> b) & 1u)
            sum = add_sat(sum, window[near + b]);
    return sum;
}

/* Work-item 0's part: follows the taken bits of a round (taken[2^d - 1 + S] for item d), records each
 * item in `selected` (item `first` - d), and returns the capacity left. */
inline WALK_T follow_taken(__local const uchar *taken, __local const WALK_T *window, uint near, uint round,
                           WALK_T rest, __global uchar *selected, uint first)
{
    uint walked = 0u;
    for (uint d = 0; d < round; ++d) {
        const uint bit = taken[(1u << d) - 1u + walked];
        walked |= bit << d;
        selected[first - d] = (uchar)bit;
        if (bit)
            rest -= window[near + d];
    }
    return rest;
}

/* The capacity the walk starts from, carried in global memory from the launch before. */
inline WALK_T walk_start(__global const uint *carried, __local WALK_T *shared)
{
    if (get_local_id(0) == 0)
#if WALK_WIDTH == 3
        *shared = vload3(0, carried);
#else
        *shared = carried[0];
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    return *shared;
}

/* The capacity left after the walk, for the launch after. */
inline void walk_finish(__global uint *carried, WALK_T rest)
{
    if (get_local_id(0) == 0)
#if WALK_WIDTH == 3
        vstore3(rest, 0, carried);
#else
        carried[0] = rest;
#endif
}

/* The end of a round, reached by every work-item once taken[] is written: work-item 0 follows the bits
 * (through `shared`, local), and every work-item returns the capacity left. */
inline WALK_T end_round(__local const uchar *taken, __local const WALK_T *window, __local WALK_T *shared,
                        uint near, uint round, WALK_T rest, __global uchar *selected, uint first)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        *shared = follow_taken(taken, window, near, round, rest, selected, first);
    barrier(CLK_LOCAL_MEM_FENCE);
    rest = *shared;
    barrier(CLK_LOCAL_MEM_FENCE);  /* every work-item has read *shared (and the window) before they change */
    return rest;
}

#endif
