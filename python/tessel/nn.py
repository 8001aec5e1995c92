"""tessel.nn.Linear: torch.nn.Linear on tessel's kernels, with an activation fused into the
GEMM's epilogue; tessel.nn.GatedMLP: a SwiGLU MLP block (Llama's) of three of them, with the
SiLU-and-multiply between them fused into one pass forward and one backward (tessel.silu_mul).

A subclass of torch.nn.Linear: the same parameters (weight (out, in), bias (out,)), the same
initialization and the same state_dict keys, so a checkpoint of either loads into the other and
`tessel.nn.Linear.from_linear(layer)` swaps a layer in place of its weights.

    mlp_up = tessel.nn.Linear(4096, 14336, bias=False, activation="silu", device="cuda", dtype=torch.bfloat16)

float32 inputs run on TF32 tensor cores where torch.backends.cuda.matmul.allow_tf32 allows it.
Inputs tessel's kernels do not take (CPU tensors; float64; float32 with TF32 off) run
torch.nn.functional.linear and the activation unfused, so that a model moved to the CPU or to
full float32 still runs; `Linear.runs_on_tessel(x)` says which path an input takes.

    mlp = tessel.nn.GatedMLP(4096, 14336, device="cuda", dtype=torch.bfloat16)
    y = mlp(x)   # down_proj(silu(gate_proj(x)) * up_proj(x))

GatedMLP's parameters are gate_proj.weight, up_proj.weight and down_proj.weight (and their biases
with bias=True), the names of Hugging Face's LlamaMLP, so its state_dict loads into either.
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



class GatedMLP(torch.nn.Module):
    """down_proj(silu(gate_proj(x)) * up_proj(x)): the SwiGLU MLP block of Llama-style models, its
    three projections tessel Linears and the gate one fused pass each way (ops.silu_mul), which
    saves the gate's and up projection's outputs for the backward and recomputes the sigmoid."""

    def __init__(self, hidden_features: int, intermediate_features: int, bias: bool = False, device=None, dtype=None):
        super().__init__()
        kw = dict(bias=bias, device=device, dtype=dtype)
        self.gate_proj = Linear(hidden_features, intermediate_features, **kw)
        self.up_proj = Linear(hidden_features, intermediate_features, **kw)
        self.down_proj = Linear(intermediate_features, hidden_features, **kw)

    @classmethod
    def from_projections(cls, gate: torch.nn.Linear, up: torch.nn.Linear, down: torch.nn.Linear) -> "GatedMLP":
        """A GatedMLP sharing three torch.nn.Linear layers' parameters (no copy)."""
        for name, layer in (("gate", gate), ("up", up), ("down", down)):
            if not isinstance(layer, torch.nn.Linear):
                raise TypeError(f"GatedMLP.from_projections: {name} must be a torch.nn.Linear, not {type(layer).__name__}")
        if gate.weight.shape != up.weight.shape or down.in_features != gate.out_features \
                or down.out_features != gate.in_features:
            raise ValueError(f"GatedMLP.from_projections: gate {tuple(gate.weight.shape)}, up {tuple(up.weight.shape)} "
                             f"and down {tuple(down.weight.shape)} do not make a block: gate and up must be "
                             "(intermediate, hidden) and down (hidden, intermediate)")
        new = cls.__new__(cls)
        torch.nn.Module.__init__(new)
        new.gate_proj, new.up_proj, new.down_proj = (Linear.from_linear(layer) for layer in (gate, up, down))
        return new

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        g, u = self.gate_proj(x), self.up_proj(x)
        if g.is_cuda and g.dtype in (torch.float32, torch.float16, torch.bfloat16) and u.dtype == g.dtype:
            h = ops.silu_mul(g, u)
        else:
            h = torch.nn.functional.silu(g) * u
        return self.down_proj(h)
