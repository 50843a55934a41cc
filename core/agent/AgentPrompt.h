#pragma once
// The values of the prompt templates' placeholders (resources/prompts/README.md) for one turn: the task in the
// presentations it shows, the verdict's feedback, the guidance chosen. Pure, any thread.

#include "agent/Feedback.h"
#include "model/Task.h"

#include <QHash>

namespace km {

struct PromptInputs {
    QString previousCode;
    std::optional<Feedback> feedback;  // of the last verdict
    QString problem;                   // why the last reply had no usable code
    QString guidance;                  // formatGuidance() of the notes chosen
    int turn = 1;                      // 1-based
    int maxTurns = 0;                  // 0: no limit
    // The task's presentations: in the first prompt only (later turns have them in the conversation already).
    bool withTask = true;
};

QHash<QString, QString> promptValues(const Task& task, const PromptInputs& in);

}  // namespace km
