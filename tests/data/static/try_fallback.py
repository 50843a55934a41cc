import torch
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

try:
    ext = load_inline(name="r", cpp_sources="torch::Tensor r(torch::Tensor x);", functions=["r"])
except Exception:
    ext = None


class ModelNew(torch.nn.Module):
    def _slow(self, x):
        return F.relu(x)

    def forward(self, x):
        try:
            return ext.r(x)
        except RuntimeError:
            print("kernel failed, using PyTorch")
            return torch.relu(x)

    def forward_method_fallback(self, x):
        try:
            return ext.r(x)
        except Exception:
            return x.clamp(min=0)

    def forward_helper_fallback(self, x):
        try:
            return ext.r(x)
        except Exception:
            return self._slow(x)
        finally:
            torch.cuda.synchronize()

    def forward_reraise(self, x):
        try:
            return ext.r(x)
        except RuntimeError as e:
            raise ValueError("bad input") from e
