import torch
import torch.nn as nn

seq_len = 64
batch = 256
input_size = 512
hidden_size = 1024


class Model(nn.Module):
    """Runs nn.GRUCell over the time axis (time-major input) and stacks all hidden states."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.cell = nn.GRUCell(input_size, hidden_size, bias=True)

    def forward(self, x, h0):
        h = h0
        outputs = []
        for t in range(x.shape[0]):
            h = self.cell(x[t], h)
            outputs.append(h)
        return torch.stack(outputs, dim=0)


def get_inputs():
    x = torch.randn(seq_len, batch, input_size)
    h0 = torch.randn(batch, hidden_size) * 0.5
    return [x, h0]


def get_init_inputs():
    return [input_size, hidden_size]
