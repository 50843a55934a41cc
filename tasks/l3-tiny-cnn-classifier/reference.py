import torch
import torch.nn as nn

batch = 256
image_size = 128
width = 32
num_classes = 1000


class Model(nn.Module):
    """conv-bn-relu-pool x3 (width, 2*width, 4*width channels), global average pool, linear classifier."""

    def __init__(self, width, num_classes):
        super().__init__()
        layers = []
        cin = 3
        for cout in (width, 2 * width, 4 * width):
            layers += [
                nn.Conv2d(cin, cout, kernel_size=3, padding=1, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(),
                nn.MaxPool2d(2),
            ]
            cin = cout
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(4 * width, num_classes)
        with torch.no_grad():
            for m in self.features:
                if isinstance(m, nn.BatchNorm2d):
                    m.running_mean.copy_(torch.randn(m.num_features) * 0.1)
                    m.running_var.copy_(torch.rand(m.num_features) + 0.5)

    def forward(self, images):
        x = self.features(images)
        x = torch.flatten(self.pool(x), 1)
        return self.head(x)


def get_inputs():
    return [torch.randn(batch, 3, image_size, image_size)]


def get_init_inputs():
    return [width, num_classes]
