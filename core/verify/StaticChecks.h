#pragma once
// The static checks of a solution (the `static.*` rows of docs/verifier.md): a reading of its Python code and of the
// C++/CUDA source it holds in strings, before anything runs. Pure function; evidence against a careless cheat, the
// runtime checks and the out-of-process comparison are the guarantee.

#include "model/Verdict.h"

#include <QStringList>

namespace km {

struct StaticCheckInput {
    QString solution;          // Python source of the solution (class ModelNew)
    QString reference;         // Python source of the task's reference (class Model); may be empty
    QStringList forbiddenOps;  // dotted names: torch.softmax, torch.nn.functional.softmax, torch.Tensor.softmax, ...
    QString dtype;             // the task's dtype: float32, float64, float16, ...
};

// Findings sorted by line, then check id. A file that does not tokenize still gives what could be read.
// Python checks read code only (strings only for kmosaic_harness and imported names), names resolved through
// imports and simple aliases. C++/CUDA checks read every string literal except docstrings (unless the code reads
// __doc__), C++ comments and literals skipped. Choices beyond the table of docs/verifier.md:
// - forbidden_op: torch.X, torch.nn.functional.X, torch.Tensor.X, x.X(), at::X and torch::X are one op X (also
//   X_, _X, X_out); a class (torch.nn.Softmax) matches its construction or any mention.
// - reference_op: the ops of the reference's functions (forward and helpers, not __init__ or get_inputs); glue
//   (allocation, random data, views, shapes, dtype moves, plumbing) is ignored; cat and stack are not glue. A
//   torch.nn module the solution builds warns when its op is the reference's (nn.Linear held for its weights).
// - try_fallback: a handler computing with torch (torch.cuda/utils excluded), calling the reference, or calling a
//   function of the file that does (one level) is an error; one that swallows the error is a warning; one that
//   only raises is no finding.
// - threads also covers subprocess, asyncio and os.fork/system/spawn; patching also covers exec/eval/compile,
//   imports by computed name and interpreter internals (__globals__, f_back ...); writing os.environ keys other than
//   build settings (TORCH_CUDA_ARCH_LIST, MAX_JOBS ...) is a warning.
// - an unused `class Model` the solution carries (a copy of the reference) is skipped unless globals()/vars()
//   could reach it. f-string expressions are not read.
QList<Finding> runStaticChecks(const StaticCheckInput& in);

}  // namespace km
