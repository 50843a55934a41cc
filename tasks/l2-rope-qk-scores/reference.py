import torch
import torch.nn as nn

batch = 4
heads = 16
seq_len = 1024
head_dim = 128
rope_base = 10000.0


class Model(nn.Module):
    """Rotate-half RoPE applied to q and k (positions 0..n-1), then q_rot @ k_rot^T / sqrt(d)."""

    def __init__(self, rope_base):
        super().__init__()
        self.rope_base = rope_base

    @staticmethod
    def _rotate_half(t):
        half = t.shape[-1] // 2
        return torch.cat([-t[..., half:], t[..., :half]], dim=-1)

    def forward(self, q, k):
        n, d = q.shape[-2], q.shape[-1]
        exponents = torch.arange(0, d, 2, dtype=torch.float32, device=q.device) / d
        inv_freq = 1.0 / (self.rope_base ** exponents)
        positions = torch.arange(n, dtype=torch.float32, device=q.device)
        angles = positions[:, None] * inv_freq[None, :]
        angles = torch.cat([angles, angles], dim=-1)
        cos, sin = torch.cos(angles), torch.sin(angles)
        q_rot = q * cos + self._rotate_half(q) * sin
        k_rot = k * cos + self._rotate_half(k) * sin
        return torch.matmul(q_rot, k_rot.transpose(-2, -1)) * (d ** -0.5)


def get_inputs():
    shape = (batch, heads, seq_len, head_dim)
    return [torch.randn(shape), torch.randn(shape)]


def get_init_inputs():
    return [rope_base]
