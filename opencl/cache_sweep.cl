/* The bandwidth of the device's global-memory cache, for `clsolve bench` (engine/bench/common.py,
 * cache_bandwidth): `sweeps` times, each work-item copies every get_global_size(0)-th vector of `src`
 * to `dst` (both small enough to stay in the cache), reading `src` rotated by a different offset each
 * sweep so that no compute unit finds in its own first-level cache the lines it read the sweep
 * before; the values change from sweep to sweep, so no sweep can be left out. OpenCL C 1.2. */
__kernel void cache_sweep(__global const uint4 *src, __global uint4 *dst, const uint count, const uint sweeps)
{
    const uint size = get_global_size(0);
    for (uint r = 0; r < sweeps; ++r) {
        const uint offset = (uint)((ulong)r * 32792u % count);
        for (uint i = get_global_id(0); i < count; i += size) {
            const uint at = i + offset;
            dst[i] = src[at >= count ? at - count : at] + (uint4)(r);
        }
    }
}
