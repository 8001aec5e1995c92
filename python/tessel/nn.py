"""tessel.nn.Linear: torch.nn.Linear on tessel's kernels, with an activation fused into the
GEMM's epilogue.

A subclass of torch.nn.Linear: the same parameters (weight (out, in), bias (out,)), the same
initialization and the same state_dict keys, so a checkpoint of either loads into the other and
`tessel.nn.Linear.from_linear(layer)` swaps a layer in place of its weights.

    mlp_up = tessel.nn.Linear(4096, 14336, bias=False, activation="silu", device="cuda", dtype=torch.bfloat16)

float32 inputs run on TF32 tensor cores where torch.backends.cuda.matmul.allow_tf32 allows it.
Inputs tessel's kernels do not take (CPU tensors; float64; float32 with TF32 off) run
torch.nn.functional.linear and the activation unfused, so that a model moved to the CPU or to
full float32 still runs; `Linear.runs_on_tessel(x)` says which path an input takes.
"""

from __future__ import annotations

from typing import Optional

import torch

from . import ops


class Linear(torch.nn.Linear):
    """y = act(x @ weight.T + bias). activation: None, "relu", "gelu" (erf form) or "silu"."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, activation: Optional[str] = None,
                 device=None, dtype=None):
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)
        self.activation = ops._activation(activation)

    @classmethod
    def from_linear(cls, layer: torch.nn.Linear, activation: Optional[str] = None) -> "Linear":
        """A tessel Linear sharing `layer`'s parameters (no copy)."""
        if not isinstance(layer, torch.nn.Linear):
            raise TypeError(f"from_linear takes a torch.nn.Linear, not {type(layer).__name__}")
        new = cls.__new__(cls)
        torch.nn.Module.__init__(new)
        new.in_features, new.out_features = layer.in_features, layer.out_features
        new.weight = layer.weight
        new.bias = layer.bias
        new.activation = ops._activation(activation)
        return new

    def runs_on_tessel(self, x: torch.Tensor) -> bool:
        ops._require_tensor("tessel.nn.Linear", "x", x)
        tf32 = x.dtype == torch.float32 and ops.tf32_allowed() and torch.cuda.get_device_capability(x.device) == (9, 0) \
            if x.is_cuda else False
        return x.is_cuda and self.weight.is_cuda and x.dtype == self.weight.dtype and (x.dtype in ops._KERNEL_DTYPES or tf32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.runs_on_tessel(x):
            return ops.linear(x, self.weight, self.bias, self.activation)
        y = torch.nn.functional.linear(x, self.weight, self.bias)
        return ops.TORCH_ACTIVATIONS[self.activation](y)

    def extra_repr(self) -> str:
        return super().extra_repr() + ("" if self.activation == "linear" else f", activation={self.activation}")

