// kmosaic_llm_http_bench: the LLM client's waits, timed over real sockets against tests/agent/fake_llm_server.py:
// how long a retry after "429, Retry-After: 1" takes (the server's 1 s against the client's 10-200 ms backoff), and
// how soon a cancel from another thread ends a call (while tokens arrive, while the server is silent, while a
// Retry-After is owed). The test suite checks that these things happen (test_llm_http); this prints how long they
// take. Runs on the main thread, one canceller thread per cancel run.
#include "../tests/common/FakeLlmServer.h"
#include "BenchSupport.h"
#include "agent/LlmClient.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QTextStream>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

namespace {
using namespace km;
using namespace km::bench;
using FakeServer = km::test::FakeLlmServer;

ProviderConfig configFor(const FakeServer& server)
{
    ProviderConfig c;
    c.name = "fake";
    c.baseUrl = server.baseUrl();
    c.model = "bench-model";
    c.timeouts = {5, 60, 5};
    c.retries = {3, 20, 200};
    return c;
}

ChatRequest request()
{
    ChatRequest r;
    r.messages = {{"user", "Say hello."}};
    r.stream = true;
    return r;
}

QJsonObject reply(const QJsonArray& chunks, int chunkDelayMs)
{
    return {{"kind", "reply"}, {"chunks", chunks}, {"chunk_delay_ms", chunkDelayMs}};
}

// One call's wall time in ns, or -1 when the call did not end as expected.
qint64 timeRetryAfter()
{
    FakeServer server({QJsonObject{{"kind", "status"}, {"code", 429}, {"retry_after", "1"}}, reply({"ok"}, 0)});
    if (!server.started())
        return -1;
    QElapsedTimer t;
    t.start();
    const Result<ChatReply> r = LlmClient(configFor(server)).complete(request());
    return r.ok() && r->attempts == 2 ? t.nsecsElapsed() : -1;
}

qint64 timeStreamedReply()
{
    FakeServer server({reply({"Hel", "lo, ", "wor", "ld"}, 0)});
    if (!server.started())
        return -1;
    QElapsedTimer t;
    t.start();
    const Result<ChatReply> r = LlmClient(configFor(server)).complete(request());
    return r.ok() ? t.nsecsElapsed() : -1;
}

// From the cancel flag set to complete() returning Cancelled. The flag is set 150 ms after `ready` says so.
qint64 timeCancel(const QJsonObject& first, bool cancelAfterRetry)
{
    FakeServer server({first, reply({"too late"}, 0)});
    if (!server.started())
        return -1;
    std::atomic<bool> cancel{false};
    std::atomic<bool> ready{false};
    QElapsedTimer sinceCancel;
    std::thread canceller([&] {
        const QDeadlineTimer deadline(FakeServer::kStartMs);
        while (!ready.load() && !deadline.hasExpired())
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        sinceCancel.start();
        cancel = true;
    });
    const Result<ChatReply> r = LlmClient(configFor(server))
                                    .complete(
                                        request(), [&](const QString&) { ready = !cancelAfterRetry; }, &cancel,
                                        [&](int, const Error&) { ready = cancelAfterRetry; });
    const qint64 ns = sinceCancel.isValid() ? sinceCancel.nsecsElapsed() : -1;
    canceller.join();
    return !r.ok() && r.error().code == ErrorCode::Cancelled ? ns : -1;
}

struct Case {
    QString name, target;
    std::function<qint64()> run;
};

}  // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription("Times the LLM client's retry waits and cancels against a local fake server.");
    parser.addHelpOption();
    QCommandLineOption runsOpt("runs", "Runs of each case (default 5).", "N", "5");
    parser.addOption(runsOpt);
    parser.process(app);
    const int runs = qMax(1, parser.value(runsOpt).toInt());

    QJsonArray many;
    for (int i = 0; i < 200; ++i)
        many << QString("tok%1 ").arg(i);
    const QList<Case> cases{
        {"streamed reply, 4 chunks (baseline)", "-", timeStreamedReply},
        {"429 Retry-After: 1, then a reply", ">= 1000 ms", timeRetryAfter},
        {"cancel while tokens arrive (50 ms apart)", "< 3000 ms",
         [&] {
             return timeCancel(reply(many, 50), false);
         }},
        {"cancel while the server is silent", "< 3000 ms",
         [] {
             return timeCancel(QJsonObject{{"kind", "stall"}, {"after_chunks", 1}, {"seconds", 30}}, false);
         }},
        {"cancel while Retry-After: 120 is owed", "< 3000 ms",
         [] {
             return timeCancel(QJsonObject{{"kind", "status"}, {"code", 503}, {"retry_after", "120"}}, true);
         }},
    };

    QTextStream out(stdout);
    out << "kmosaic_llm_http_bench: " << runs << " runs of each case; " << machineLine() << "\n\n";
    QList<Row> rows;
    int failed = 0;
    for (const Case& c : cases) {
        QList<qint64> ns;
        for (int i = 0; i < runs; ++i) {
            const qint64 t = c.run();
            if (t < 0)
                ++failed;
            else
                ns << t;
        }
        if (ns.isEmpty()) {
            rows.append({c.name, "FAILED", c.target});
            continue;
        }
        std::sort(ns.begin(), ns.end());
        rows.append({c.name,
                     QString("median %1 ms (min %2, max %3)")
                         .arg(num(median(ns), 1), num(ms(ns.first()), 1), num(ms(ns.last()), 1)),
                     c.target});
    }
    printTable(out, {"case", "wall time", "expected"}, rows);
    if (failed > 0)
        out << "\n" << failed << " run(s) did not end as expected\n";
    return failed > 0 ? 1 : 0;
}
