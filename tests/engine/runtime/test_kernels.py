"""Kernel sources outside clsolve, include paths, arguments bound by name, structs declared from dtypes."""

import numpy as np
import pyopencl as cl
import pyopencl.tools
import pytest

import clsolve
from clsolve.runtime import kernels

SOURCE = """
#include "scale.h"
__kernel void scaled(__global const uint *input, __global uint *output, const uint factor /* per item */)
{
    const size_t i = get_global_id(0);
    output[i] = SCALE(input[i], factor);
}
"""


@pytest.fixture
def third_party(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "headers").mkdir()
    (tmp_path / "src" / "scaled.cl").write_text(SOURCE)
    (tmp_path / "headers" / "scale.h").write_text("#define SCALE(x, f) ((x) * (f))\n")
    return tmp_path


def test_a_source_on_disk_finds_its_includes_and_binds_arguments_by_name(device, third_party):
    source = kernels.KernelSource.path(third_party / "src" / "scaled.cl", include=[third_party / "headers"])
    program = kernels.program(device, source)
    assert program.parameters == {"scaled": ("input", "output", "factor")}
    data = np.arange(64, dtype=np.uint32)
    flags = cl.mem_flags
    source_buf = cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=data)
    out_buf = cl.Buffer(device.context, flags.WRITE_ONLY, data.nbytes)
    program.kernel("scaled").set(factor=np.uint32(3), output=out_buf, input=source_buf).enqueue(device.queue, (64,), None)
    out = np.empty_like(data)
    cl.enqueue_copy(device.queue, out, out_buf)
    assert (out == 3 * data).all()


def test_a_missing_include_names_the_places_searched(device, third_party):
    source = kernels.KernelSource.path(third_party / "src" / "scaled.cl")  # headers/ not listed
    with pytest.raises(clsolve.KernelBuildError, match=r'#include "scale.h" not found in .*clsolve\.opencl'):
        kernels.program(device, source)


def test_arguments_by_name_refuse_unknown_and_missing_names(device, third_party):
    source = kernels.KernelSource.path(third_party / "src" / "scaled.cl", include=[third_party / "headers"])
    kernel = kernels.program(device, source).kernel("scaled")
    with pytest.raises(TypeError, match=r"no parameter 'scale'; its parameters: input, output, factor"):
        kernel.set(scale=np.uint32(2))
    with pytest.raises(TypeError, match=r"launched before factor, input, output set"):
        kernel.enqueue(device.queue, (64,), None)
    with pytest.raises(clsolve.KernelBuildError, match="no kernel 'scale'"):
        kernels.program(device, source).kernel("scale")


def test_scalars_are_passed_as_the_type_the_kernel_declares(device, third_party):
    source = kernels.KernelSource.path(third_party / "src" / "scaled.cl", include=[third_party / "headers"])
    program = kernels.program(device, source)
    assert program.scalar_types == {"scaled": {"factor": np.dtype(np.uint32)}}
    data = np.arange(64, dtype=np.uint32)
    flags = cl.mem_flags
    source_buf = cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=data)
    out_buf = cl.Buffer(device.context, flags.WRITE_ONLY, data.nbytes)
    kernel = program.kernel("scaled").set(input=source_buf, output=out_buf)
    for factor in (5, np.int64(5), np.uint8(5)):  # a Python int, a wider and a narrower NumPy integer
        kernel.set(factor=factor).enqueue(device.queue, (64,), None)
        out = np.full_like(data, 0xFFFFFFFF)
        cl.enqueue_copy(device.queue, out, out_buf)
        assert (out == 5 * data).all()
    for wrong in (-1, 2**32, 1.5, np.float64(2.0), True):
        with pytest.raises(TypeError, match=r"kernel scaled .*parameter factor is a uint, which cannot hold"):
            kernel.set(factor=wrong)


def test_scalar_types_read_the_declarations_and_leave_preprocessor_types_alone():
    text = """
    __kernel __attribute__((reqd_work_group_size(64, 1, 1)))
    void k(__global const ulong *rows, const long dw, uint n, __local int *scratch, const double ratio,
           const value_t profit, __constant uchar *codes)
    { }
    """
    assert kernels.scalar_types(text) == {
        "k": {"dw": np.dtype(np.int64), "n": np.dtype(np.uint32), "ratio": np.dtype(np.float64)}
    }
    assert kernels.parameters(text) == {"k": ("rows", "dw", "n", "scratch", "ratio", "profit", "codes")}


def test_builtin_kernels_parse_to_their_parameters():
    text = kernels.KernelSource.resource("clsolve_plugins.dp_rows", "dp_rows.cl").text()
    assert kernels.parameters(text)["dp_rows_backtrack"] == (
        "decisions",
        "decisions_offset",
        "weights",
        "words_per_row",
        "span1",
        "span2",
        "chunk_first",
        "chunk_items",
        "remaining",
        "selected",
    )


def _structs():
    from clsolve_plugins.dp_batch.solver import INSTANCE
    from clsolve_plugins.mkp_batch.solver import LAYOUT, WALKER

    return [("instance_t", INSTANCE), ("layout_t", LAYOUT), ("walker_t", WALKER)]


@pytest.mark.parametrize("index", range(3))
def test_a_struct_is_declared_from_its_dtype_and_matches_the_device(device, index):
    """Each struct a kernel shares with the host: the host's declaration and pyopencl's, whose layout a
    kernel on the device reports, agree."""
    name, dtype = _structs()[index]
    declaration = kernels.struct_declaration(name, dtype)
    for field in dtype.names:
        assert f" {field};" in declaration
    matched, theirs = pyopencl.tools.match_dtype_to_c_struct(device.cl_device, name, dtype, device.context)
    assert matched == dtype
    assert " ".join(declaration.split()) == " ".join(theirs.split())


@pytest.mark.parametrize(
    "fields", [[("a", np.uint8), ("b", np.uint32)], [("a", np.uint64), ("b", np.uint32)], [("a", np.uint32, 2)]]
)
def test_a_struct_without_natural_layout_is_refused(fields):
    with pytest.raises(clsolve.KernelBuildError, match="struct odd_t"):
        kernels.struct_declaration("odd_t", np.dtype(fields))


def test_the_cache_sweep_copies_the_source_rotated_each_sweep(device):
    """bench's cache probe (opencl/cache_sweep.cl): after sweep r, dst[i] = src[(i + r * 32792) % count] + r."""
    from clsolve.bench.common import _cache_sweep, cache_bandwidth

    count, sweeps = 5000, 3
    src = np.arange(4 * count, dtype=np.uint32)
    dst = np.zeros_like(src)
    flags = cl.mem_flags
    src_buffer = cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=src)
    dst_buffer = cl.Buffer(device.context, flags.READ_WRITE, dst.nbytes)
    program = kernels.program(device, kernels.builtin("cache_sweep.cl"))
    program.kernel("cache_sweep").set(src=src_buffer, dst=dst_buffer, count=np.uint32(count), sweeps=np.uint32(sweeps)).enqueue(
        device.queue, (64,), (64,)
    )
    cl.enqueue_copy(device.queue, dst, dst_buffer)
    last = (sweeps - 1) * 32792 % count
    expected = np.roll(src.reshape(count, 4), -last, axis=0).ravel() + (sweeps - 1)
    assert np.array_equal(dst, expected)
    assert _cache_sweep(device, program, count, 1e6) > 0
    assert (cache_bandwidth(device, 1e6) is None) == (not device.is_gpu)
