#pragma once
// Ctrl-C for long commands: while an InterruptGuard lives, SIGINT and SIGTERM become its interrupted() signal,
// delivered on the thread that created it (a self-pipe read by a QSocketNotifier), so the command can stop cleanly
// (finish the current step, store it, end its runs resumable). A second signal before the first was handled, or
// any signal after that, gets the default action: a user who presses Ctrl-C twice stops the process at once. The
// previous handlers come back when the guard goes. One guard at a time per process.

#include <QObject>

class QSocketNotifier;

namespace km {

class InterruptGuard : public QObject {
    Q_OBJECT
public:
    explicit InterruptGuard(QObject* parent = nullptr);
    ~InterruptGuard() override;
    bool active() const { return m_notifier != nullptr; }  // false: the handlers could not be installed

Q_SIGNALS:
    void interrupted(int signal);

private:
    QSocketNotifier* m_notifier = nullptr;
};

}  // namespace km
