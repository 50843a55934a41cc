#include "util/InterruptGuard.h"

#include "util/Logging.h"

#include <QSocketNotifier>
#include <atomic>
#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace km {

namespace {
int g_pipe[2] = {-1, -1};
std::atomic<int> g_received{0};
struct sigaction g_previous[2];
const int kSignals[2] = {SIGINT, SIGTERM};

void onSignal(int sig)
{
    if (g_received.fetch_add(1) > 0) {  // the second one: stop now
        ::signal(sig, SIG_DFL);
        ::raise(sig);
        return;
    }
    const unsigned char byte = static_cast<unsigned char>(sig);
    [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], &byte, 1);
}
}  // namespace

InterruptGuard::InterruptGuard(QObject* parent) : QObject(parent)
{
    if (g_pipe[0] >= 0 || ::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        qCWarning(lcCli) << "Ctrl-C handling is not available (another guard is active or pipe2 failed)";
        return;
    }
    g_received = 0;
    struct sigaction sa = {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int i = 0; i < 2; ++i)
        ::sigaction(kSignals[i], &sa, &g_previous[i]);
    m_notifier = new QSocketNotifier(g_pipe[0], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, [this] {
        unsigned char byte = 0;
        while (::read(g_pipe[0], &byte, 1) == 1)
            Q_EMIT interrupted(int(byte));
    });
}

InterruptGuard::~InterruptGuard()
{
    if (!m_notifier)
        return;
    for (int i = 0; i < 2; ++i)
        ::sigaction(kSignals[i], &g_previous[i], nullptr);
    delete m_notifier;
    ::close(g_pipe[0]);
    ::close(g_pipe[1]);
    g_pipe[0] = g_pipe[1] = -1;
}

}  // namespace km
