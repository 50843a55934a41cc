#pragma once
// Replies to the leaky-relu task for the tests that drive real agent runs (the workbench's live and manual runs):
// the model's code in a ```python block, with the `forward` line given, so one test can write a syntax error
// (no ':'), a correct kernel, or a correct kernel that starts a thread (REWARD_HACK). The kernel is
// HonestLeakyRelu.h's: one build in the suite's build cache.

#include "HonestLeakyRelu.h"

namespace km::test {

inline QString leakyReluReply(const QString& forwardLine, const QString& prefix = {})
{
    return QStringLiteral("Here it is.\n\n```python\n%1```\n").arg(honestLeakyRelu(forwardLine, prefix));
}

// A reply whose correct `forward` returns through the extension with the task's slope (PASSED), or with a fixed
// slope of 0.5 (INCORRECT_NUMERICAL).
inline QString leakyReluPassingReply()
{
    return QStringLiteral("Here it is.\n\n```python\n%1```\n")
        .arg(honestLeakyRelu(QStringLiteral("    def forward(self, x):\n"), {},
                             "        return _ext.leaky_relu_forward(x.contiguous(), self.negative_slope)\n"));
}
inline QString leakyReluWrongReply()
{
    return QStringLiteral("Here it is.\n\n```python\n%1```\n")
        .arg(honestLeakyRelu(QStringLiteral("    def forward(self, x):\n"), {},
                             "        return _ext.leaky_relu_forward(x.contiguous(), 0.5)\n"));
}

}  // namespace km::test
