import torch
import torch.nn as nn

batch = 64
n_patches = 256
channels = 768
token_hidden = 384
channel_hidden = 3072


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class Model(nn.Module):
    def __init__(self, n_patches, channels, token_hidden, channel_hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(channels)
        self.token_mlp = FeedForward(n_patches, token_hidden)
        self.norm2 = nn.LayerNorm(channels)
        self.channel_mlp = FeedForward(channels, channel_hidden)

    def forward(self, x):
        # x: (batch, n_patches, channels)
        y = self.norm1(x).transpose(1, 2)          # (batch, channels, n_patches)
        x = x + self.token_mlp(y).transpose(1, 2)  # mix along the patch axis
        return x + self.channel_mlp(self.norm2(x))


def get_inputs():
    return [torch.randn(batch, n_patches, channels)]


def get_init_inputs():
    return [n_patches, channels, token_hidden, channel_hidden]
