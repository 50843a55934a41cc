#pragma once
// Task values for tests: one that uses every field, and small variations of it.

#include "model/Task.h"

namespace km::test {

inline QString sampleReference(const QString& body = QStringLiteral("return torch.relu(x) * self.scale"))
{
    return QStringLiteral("import torch\nimport torch.nn as nn\n\nbatch_size = 4096\ndim = 16384\nscale = 0.5\n\n"
                          "class Model(nn.Module):\n    def __init__(self, scale):\n        super().__init__()\n"
                          "        self.scale = scale\n\n    def forward(self, x):\n        %1\n\n"
                          "def get_inputs():\n    return [torch.randn(batch_size, dim)]\n\n"
                          "def get_init_inputs():\n    return [scale]\n")
        .arg(body);
}

inline Task richTask(const QString& id = QStringLiteral("scaled-relu"))
{
    Task t;
    t.id = id;
    t.title = QStringLiteral("Scaled ReLU with \"quotes\", a backslash \\ and ünïcödé");
    t.level = 1;
    t.source = TaskSource{SourceKind::KernelBench, 1, 19, QStringLiteral("ReLU"), {}, 0};
    t.categories = {QStringLiteral("activation"), QStringLiteral("elementwise")};
    t.tags = {QStringLiteral("memory-bound"), QStringLiteral("tag with spaces")};
    t.dtype = QStringLiteral("float32");
    t.shown = PresentationSet{Presentation::Description, Presentation::Spec};
    t.status = ReviewStatus::InReview;
    t.forbiddenOps = {QStringLiteral("torch.relu")};
    t.tolerance = Tolerance{1e-5, 2.5e-4};
    t.flopsFormula = QStringLiteral("2 * batch_size * dim");
    t.bytesFormula = QStringLiteral("8 * batch_size * dim");
    TaskConfig small{QStringLiteral("small"),
                     {{QStringLiteral("batch_size"), qint64(8)},
                      {QStringLiteral("dim"), qint64(64)},
                      {QStringLiteral("scale"), 2.0}}};
    TaskConfig odd{QStringLiteral("odd-shape"),
                   {{QStringLiteral("batch_size"), qint64(1000)},
                    {QStringLiteral("dim"), qint64(50257)},
                    {QStringLiteral("scale"), -0.125}}};
    t.configs = {small, odd};
    t.description = QStringLiteral("# Scaled ReLU\n\nCompute `max(x, 0) * scale` over a **large** tensor.\n");
    t.reference = sampleReference();
    t.spec = QStringLiteral("$$y_{ij} = s \\cdot \\max(0, x_{ij})$$\n\nwith $s$ the scale.\n");
    return t;
}

}  // namespace km::test
