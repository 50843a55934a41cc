# Trick: the output is a lazy torch.Tensor subclass holding garbage; its __torch_function__ computes the real
# result only when a torch function (allclose, shape, ...) looks at it. Must be caught by: runtime.output_type.
import torch
import torch.nn as nn


class _Lazy(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        args = [a._force() if isinstance(a, _Lazy) else a for a in args]
        kwargs = {k: v._force() if isinstance(v, _Lazy) else v for k, v in (kwargs or {}).items()}
        return func(*args, **kwargs)

    def _force(self):
        return torch.maximum(self._x, self._x * self._slope)


class ModelNew(nn.Module):
    def __init__(self, negative_slope):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        out = torch.Tensor._make_subclass(_Lazy, torch.empty_like(x), False)
        out._x, out._slope = x, self.negative_slope
        return out
