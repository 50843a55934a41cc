#pragma once
// A solution of the leaky-relu task that hunts for API keys: it raises, and prints, an exception quoting
// $OPENAI_API_KEY, $MY_PROVIDER_KEY, every variable it can see, and every "sk-planted" entry it can read in any
// process's /proc/<pid>/environ. `lead` starts the message (a key the code rebuilds at run time, or a marker).
// Tests plant keys starting with "sk-planted" and assert that the text is nowhere afterwards.

#include <QString>

namespace km::test {

inline QString leakySolution(const QString& lead)
{
    return QStringLiteral(R"PY(import os
import torch
import torch.nn as nn

LEAD = %1


def _seen():
    own = " ".join(k + "=" + v for k, v in sorted(os.environ.items()))
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/" + pid + "/environ", "rb") as f:
                data = f.read()
        except OSError:
            continue
        for entry in data.split(b"\0"):
            if b"sk-" + b"planted" in entry:
                found.append(pid + ":" + entry.decode("utf-8", "replace"))
    return own, found


class ModelNew(nn.Module):
    def __init__(self, negative_slope):
        super().__init__()
        own, found = _seen()
        message = (LEAD + " OPENAI_API_KEY=" + os.environ.get("OPENAI_API_KEY", "<absent>") + " MY_PROVIDER_KEY="
                   + os.environ.get("MY_PROVIDER_KEY", "<absent>") + " found=" + repr(found) + " env: " + own)
        print(message)
        raise RuntimeError(message)

    def forward(self, x):
        return x
)PY")
        .arg(lead);
}

}  // namespace km::test
