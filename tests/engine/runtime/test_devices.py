import os
from pathlib import Path

import pytest

import clsolve
from clsolve.runtime import icd


def test_specs():
    auto = clsolve.get_device("auto")
    assert clsolve.get_device(auto) is auto
    for device in clsolve.get_device.__globals__["all_devices"]():
        assert clsolve.get_device(device.name.lower()[:6]).name[:6].lower() == device.name.lower()[:6]
    if any(d.is_cpu for d in clsolve.get_device.__globals__["all_devices"]()):
        assert clsolve.get_device("cpu").is_cpu


def test_auto_prefers_a_real_gpu():
    from clsolve.runtime.devices import all_devices, is_simulator

    if any(d.is_gpu and not is_simulator(d) for d in all_devices()):
        assert clsolve.get_device("auto").is_gpu
    assert not is_simulator(clsolve.get_device("auto"))


def test_environment_variable(monkeypatch):
    name = clsolve.get_device("auto").name
    monkeypatch.setenv("CLSOLVE_DEVICE", name)
    assert clsolve.get_device(None).name == name


@pytest.mark.parametrize("spec, words", [("no-such-device", "no OpenCL device matches"), ("auto:99", "out of range")])
def test_unknown_device(spec, words):
    with pytest.raises(clsolve.DeviceNotFoundError, match=words):
        clsolve.get_device(spec)


def test_icd_fix_writes_nvidia_and_keeps_other_vendors(tmp_path, monkeypatch):
    vendors = tmp_path / "vendors"
    vendors.mkdir()
    (vendors / "pocl.icd").write_text("libpocl.so.2\n")
    monkeypatch.setenv("OCL_ICD_VENDORS", str(vendors))
    monkeypatch.delenv("OCL_ICD_FILENAMES", raising=False)
    monkeypatch.delenv("CLSOLVE_NO_ICD_FIX", raising=False)
    monkeypatch.setattr(icd, "applied", None)
    monkeypatch.setattr(icd, "_nvidia_loadable", lambda: True)
    monkeypatch.setattr(icd.tempfile, "gettempdir", lambda: str(tmp_path))
    message = icd.ensure_nvidia_icd()
    folder = os.environ["OCL_ICD_VENDORS"]
    assert message and folder != str(vendors)
    assert sorted(os.listdir(folder)) == ["nvidia.icd", "pocl.icd"]
    assert Path(folder, "nvidia.icd").read_text().strip() == "libnvidia-opencl.so.1"


def test_icd_fix_does_nothing_when_nvidia_is_registered(tmp_path, monkeypatch):
    vendors = tmp_path / "vendors"
    vendors.mkdir()
    (vendors / "nv.icd").write_text("libnvidia-opencl.so.1\n")
    monkeypatch.setenv("OCL_ICD_VENDORS", str(vendors))
    monkeypatch.setattr(icd, "applied", None)
    monkeypatch.setattr(icd, "_nvidia_loadable", lambda: True)
    assert icd.ensure_nvidia_icd() is None and os.environ["OCL_ICD_VENDORS"] == str(vendors)
    monkeypatch.setattr(icd, "_nvidia_loadable", lambda: False)
    (vendors / "nv.icd").unlink()
    assert icd.ensure_nvidia_icd() is None


def test_kernel_build_error_shows_device_options_and_log(device, monkeypatch):
    from clsolve.runtime import kernels

    with pytest.raises(clsolve.KernelBuildError) as info:
        source = kernels.KernelSource.resource("clsolve_plugins.dp_rows", "dp_rows.cl")
        kernels.program(device, source, {"VALUE_T": "int", "DIMS": 1})  # LOCAL_SIZE missing
    text = str(info.value)
    assert device.label in text and "-DVALUE_T=int" in text and "LOCAL_SIZE" in text


@pytest.mark.parametrize("size", [1, 7, 64, 1031])
def test_fill_in_pieces(device, monkeypatch, size):
    import numpy as np
    import pyopencl as cl

    from clsolve.runtime import buffers

    monkeypatch.setattr(buffers, "FILL_PIECE", 16)
    buf = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, size)
    buffers.fill(device.queue, buf, 0xA5)
    out = np.zeros(size, dtype=np.uint8)
    cl.enqueue_copy(device.queue, out, buf)
    device.queue.finish()
    assert (out == 0xA5).all()


def test_copy_later_keeps_its_events_and_moves_the_bytes_at_their_offsets(device):
    import numpy as np
    import pyopencl as cl

    from clsolve.runtime import buffers

    buf = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, 64)
    buffers.fill(device.queue, buf, 0)
    pending: list = []
    buffers.copy_later(device.queue, buf, np.arange(4, dtype=np.uint32), pending, 16)
    back = np.full(6, 99, dtype=np.uint32)
    buffers.copy_later(device.queue, back, buf, pending, 12)
    assert len(pending) == 2 and all(isinstance(event, cl.Event) for event in pending)
    device.queue.finish()
    assert back.tolist() == [0, 0, 1, 2, 3, 0]
