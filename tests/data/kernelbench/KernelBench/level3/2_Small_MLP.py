import torch
import torch.nn as nn

batch_size = 4
sizes = [64, 128, 10]


class Model(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        self.net = nn.Sequential(*layers[:-1])

    def forward(self, x):
        return self.net(x)


def get_inputs():
    return [torch.randn(batch_size, sizes[0])]


def get_init_inputs():
    return [sizes]
