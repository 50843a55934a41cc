#pragma once
// Takes the solution file out of an LLM reply: the fenced block that defines `class ModelNew` (the last one when
// several do), or the whole reply when it is plain Python. Pure, any thread.

#include "util/Result.h"

#include <QString>

namespace km {

struct ExtractedCode {
    QString code;            // LF line endings, the fence's indentation removed, ending in one '\n'
    int blockIndex = -1;     // 0-based among the reply's fenced blocks; -1 when the whole reply is the code
    QString note;            // how it was chosen, one line for the trajectory
    bool truncated = false;  // the block's closing fence never came (accepted only when the code looks complete)
};

// Rules, in order:
// - fences are ``` or ~~~ (three or more, any indentation, e.g. inside a list item); a block closes at a bare fence
//   of the same character at least as long; the info string's first word is the language;
// - among blocks that define `class ModelNew` the last one is taken; python/py/python3/untagged blocks are preferred
//   over blocks tagged with another language;
// - a final block whose fence never closes (the reply was cut off) is taken only when it still looks complete:
//   ModelNew with a `def forward` that returns, brackets and triple quotes balanced. Otherwise the reply is
//   rejected ("reply was cut off inside a code block ..."), even when an earlier block defines ModelNew: that one is
//   most likely a draft the cut-off block was replacing;
// - a reply without fences is taken whole when it is Python (every top-level line reads as a statement) and defines
//   ModelNew;
// - otherwise: "no code block with class ModelNew in the reply".
Result<ExtractedCode> extractSolution(const QString& reply);

}  // namespace km
