"""Make NVIDIA's OpenCL platform visible where the driver is mounted without an ICD file.

Containers often mount ``libnvidia-opencl.so.1`` but not ``/etc/OpenCL/vendors/nvidia.icd``; the
OpenCL ICD loader then shows no NVIDIA platform. Before the loader first runs (that is, before
pyopencl lists platforms) clsolve writes a private vendors directory holding ``nvidia.icd`` plus
links to every ICD file the loader would have read anyway, and points ``OCL_ICD_VENDORS`` at it,
so every other vendor (PoCL, Intel, ...) stays visible. Set ``CLSOLVE_NO_ICD_FIX=1`` to disable.
``OCL_ICD_FILENAMES`` is not trusted to do this: the ICD loader bundled with pyopencl's wheels
ignores it (seen on an H100 node whose environment named libnvidia-opencl.so.1 there).
"""

from __future__ import annotations

import ctypes
import os
import tempfile
from pathlib import Path

NVIDIA_LIBRARY = "libnvidia-opencl.so.1"
SYSTEM_VENDORS = Path("/etc/OpenCL/vendors")

#: What the fix did in this process (shown by ``clsolve devices``): None, or a sentence.
applied: str | None = None


def _vendor_files() -> list[Path]:
    configured = os.environ.get("OCL_ICD_VENDORS")
    if configured:
        path = Path(configured)
        if path.is_file():
            return [path]
        return sorted(path.glob("*.icd")) if path.is_dir() else []
    return sorted(SYSTEM_VENDORS.glob("*.icd")) if SYSTEM_VENDORS.is_dir() else []


def _names_nvidia(icd: Path) -> bool:
    try:
        return "nvidia" in icd.read_text(errors="replace").lower()
    except OSError:
        return False


def _nvidia_loadable() -> bool:
    try:
        ctypes.CDLL(NVIDIA_LIBRARY)
    except OSError:
        return False
    return True


def ensure_nvidia_icd() -> str | None:
    """Register NVIDIA's OpenCL library with the ICD loader when it is loadable but unregistered."""
    global applied
    if applied is not None or os.environ.get("CLSOLVE_NO_ICD_FIX"):
        return applied
    existing = _vendor_files()
    if any(_names_nvidia(f) for f in existing) or not _nvidia_loadable():
        return None
    directory = Path(tempfile.gettempdir()) / f"clsolve-icd-{os.getuid()}"
    directory.mkdir(mode=0o700, exist_ok=True)
    for stale in directory.glob("*.icd"):
        stale.unlink()
    (directory / "nvidia.icd").write_text(NVIDIA_LIBRARY + "\n")
    for icd in existing:
        target = directory / icd.name
        if not target.exists():
            target.write_text(icd.read_text())
    os.environ["OCL_ICD_VENDORS"] = str(directory)
    applied = f"registered {NVIDIA_LIBRARY} through {directory}/nvidia.icd (kept {len(existing)} other vendor file(s))"
    return applied
