/* fill: set `count` 32-bit words of a buffer to `pattern`, with a 64-bit index and a grid-stride loop.
 * Used for buffers past 4 GiB, where NVIDIA's clEnqueueFillBuffer fails from an offset of 8 GiB on
 * (the queue, and with it the context, becomes invalid). */
__kernel void fill_words(__global uint *buffer, const ulong count, const uint pattern)
{
    for (ulong i = get_global_id(0); i < count; i += get_global_size(0))
        buffer[i] = pattern;
}
