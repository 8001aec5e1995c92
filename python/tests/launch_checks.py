"""Assertions shared by the tests of the launcher's refusals on DLPack descriptions (no GPU)."""

import pytest

import tessel


def refused(call, status, words):
    """call() is refused with `status` and a message containing `words` (kErrorInternal is a
    CudaError, the other statuses GemmErrors)."""
    with pytest.raises((tessel.GemmError, tessel.CudaError)) as e:
        call()
    assert e.value.status == status and words in str(e.value), str(e.value)


def reaches_device(call):
    """call() passes every check and fails only for want of a GPU (or of a real cubin)."""
    with pytest.raises((tessel.GemmError, tessel.CudaError)) as e:
        call()
    assert e.value.status in ("kErrorNotSupported", "kErrorArchMismatch", "kErrorInternal"), str(e.value)
    assert "CUDA" in str(e.value) or "cubin" in str(e.value) or "device" in str(e.value), str(e.value)
