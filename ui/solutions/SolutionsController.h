#pragma once
// What the solution review does, without widgets: reads the queue and the selected solution through the
// StoreWorker (channels "solutions" and "solution": latest wins), records decisions with SolutionReviewService
// built inside the submitted work, undoes this session's decisions by appending the reverse, stores a fixed
// solution (Fix & Accept) and re-verifies through the ServiceHost's VerificationService (progress, cancel).
// Follows storeChanged(). GUI thread.

#include "services/SolutionReviewService.h"
#include "verify/Verifier.h"

#include <QObject>
#include <QPointer>
#include <optional>

namespace km {
class ServiceHost;
class StoreWorker;
struct VerificationOutcome;
}  // namespace km

namespace km::ui {

class SolutionsController : public QObject {
    Q_OBJECT
public:
    // `host` may be null (no verification: reverify() fails with a message).
    SolutionsController(StoreWorker& store, ServiceHost* host, QString reviewer, QObject* parent = nullptr);

    void reload();
    void selectSolution(qint64 id);
    // Only this task's solutions (empty: every task); taskFilterChanged() follows.
    void setTaskFilter(const QString& taskId);
    const QString& taskFilter() const { return m_taskFilter; }

    const QList<SolutionListing>& solutions() const { return m_solutions; }
    qint64 currentId() const { return m_currentId; }
    // The selected solution in full once detailLoaded() said so; empty before.
    const std::optional<SolutionDetail>& current() const { return m_current; }
    const QString& reviewer() const { return m_reviewer; }
    void setReviewer(const QString& name) { m_reviewer = name; }  // on the decisions from now on

    // decided() or failed(); `overrideGate` with a written reason or comment accepts past the gate.
    void decide(qint64 id, ReviewStatus to, const QString& reason, const QString& comment, bool overrideGate = false);
    // Reverses this session's latest decision not yet undone with a new one (reason "undo"); false: none left.
    bool undo();
    int undoable() const { return int(m_session.size()); }

    // Fix & Accept: stores `code` as a new solution linked to `parentId`; fixSaved(newId) or failed().
    void saveFix(qint64 parentId, const QString& code);
    // A new verdict for the solution's code (kept beside the old ones); verifyProgress() then verifyFinished().
    void reverify(qint64 id);
    void cancelVerify();
    bool verifying() const { return m_verifying != 0; }
    // How re-verify runs (device, seeds, timeouts): the verifier's defaults unless set.
    void setVerifyOptions(const VerifyOptions& o) { m_verifyOptions = o; }

Q_SIGNALS:
    void solutionsChanged();
    void detailLoaded();
    void taskFilterChanged(const QString& taskId);
    void decided(const km::ReviewRecord& record);
    void fixSaved(qint64 id);
    void verifyProgress(qint64 id, const QString& phase);
    void verifyFinished(qint64 id, bool ok, const QString& message);
    void failed(const QString& message);

private:
    void connectVerification();
    void submitVerification(qint64 id, const Task& task, const QString& code);
    void onVerifyEnded(const km::VerificationOutcome& outcome);

    StoreWorker& m_store;
    QPointer<ServiceHost> m_host;
    QString m_reviewer;
    QString m_taskFilter;
    QList<SolutionListing> m_solutions;
    qint64 m_currentId = 0;
    std::optional<SolutionDetail> m_current;
    QList<ReviewRecord> m_session;  // this session's decisions, oldest first (undo pops)
    qint64 m_verifying = 0;         // the solution being verified; 0: none
    quint64 m_verifyTicket = 0;     // the service's ticket once known
    bool m_cancelWanted = false;
    bool m_verificationConnected = false;
    VerifyOptions m_verifyOptions;
};

}  // namespace km::ui
