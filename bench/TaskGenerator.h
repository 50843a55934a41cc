#pragma once
// Deterministic generator of realistic task sets for benchmarks: task i of seed s is always the same task,
// whatever the size of the set. Built from vocabulary tables of CUDA and PyTorch terms so that full-text queries
// see realistic selectivity (common words in most tasks, rare ones in a few).

#include "model/Task.h"

namespace km::bench {

// Empty when the vocabulary tables are well-formed, else what is wrong with them.
QString vocabularyProblem();
Task generateTask(int index, quint64 seed);

}  // namespace km::bench
