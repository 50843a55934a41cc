#pragma once
// One step in full, as tabs: Conversation (prompt, reply, messages), Code (with diagnostics at their lines), Diff
// (against the previous step, or a step the caller sets), Verdict (decoded evidence) and Step (template, guidance,
// tokens, attempts, latency, verify time). Fed with StepDetail values; a tab is filled when it is shown, or when its
// pane is asked for, so a step switch does the current tab's work only (issue 19: switch step p95 < 30 ms). GUI thread.

#include "store/RunQuery.h"

#include <QTabWidget>
#include <optional>
#include <utility>

class QTextBrowser;

namespace km::replay {

class CodePane;
class ConversationPane;
class DiffView;

class StepView : public QTabWidget {
    Q_OBJECT
public:
    enum Tab { ConversationTab, CodeTab, DiffTab, VerdictTab, StepTab };

    explicit StepView(QWidget* parent = nullptr);

    // Shows the step; the Diff tab compares it with detail.previousCode, or with the code of a step the user picked
    // (`base`: its label and code; one fill of the Diff tab, where setStep then setDiffBase would make two).
    void setStep(const StepDetail& detail, const std::optional<std::pair<QString, QString>>& base = std::nullopt);
    void clear();
    // Compares the shown step's code with `oldCode` instead (another step the user picked).
    void setDiffBase(const QString& oldLabel, const QString& oldCode);
    // Compares with the previous step again.
    void resetDiffBase();
    const StepDetail& step() const { return m_detail; }
    bool hasStep() const { return m_hasStep; }

    // The panes, filled with the shown step first when their tab was not shown since setStep.
    ConversationPane* conversation() const;
    CodePane* code() const;
    DiffView* diffView() const;
    QTextBrowser* verdictBrowser() const;
    QTextBrowser* stepBrowser() const;

private:
    // Fills the tab's pane from m_detail if it is stale.
    void render(int tab) const;
    void markStale();

    ConversationPane* m_conversation;
    CodePane* m_code;
    DiffView* m_diff;
    QTextBrowser* m_verdict;
    QTextBrowser* m_info;
    StepDetail m_detail;
    bool m_hasStep = false;
    bool m_pickedDiffBase = false;  // the Diff tab compares with a step the user picked, not the previous one
    QString m_diffBaseLabel;
    QString m_diffBaseCode;
    mutable unsigned m_stale = 0;  // bit per Tab: its pane does not show m_detail yet
};

// The Step tab's page: template, stage, guidance notes, tokens in and out, attempts, finish reason, latency, verify
// time, the usage the reply reported and why the step had no verdict. Pure.
QString stepInfoHtml(const TrajectoryStep& step);

}  // namespace km::replay
