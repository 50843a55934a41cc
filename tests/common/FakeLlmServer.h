#pragma once
// tests/agent/fake_llm_server.py as a fixture: a scripted OpenAI-compatible server on loopback (real sockets), one
// process per instance, killed when it goes out of scope. Its requests are read back from its log, in order.
// The test target defines KMOSAIC_FAKE_LLM_SERVER (the script's path).

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

namespace km::test {

class FakeLlmServer {
public:
    static constexpr int kStartMs = 15000;

    explicit FakeLlmServer(const QJsonArray& script)
    {
        QFile f(m_dir.filePath("script.json"));
        if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(script).toJson()) < 0)
            return;
        f.close();
        m_proc.setProcessChannelMode(QProcess::ForwardedErrorChannel);  // a traceback shows in the test output
        m_proc.start("/usr/bin/python3", {KMOSAIC_FAKE_LLM_SERVER, f.fileName(), logPath()});
        const QDeadlineTimer deadline(kStartMs);
        while (!m_proc.canReadLine() && m_proc.state() != QProcess::NotRunning && !deadline.hasExpired())
            m_proc.waitForReadyRead(int(qMax<qint64>(1, deadline.remainingTime())));
        const QByteArray line = m_proc.readLine().trimmed();
        if (line.startsWith("PORT "))
            m_port = line.mid(5).toInt();
    }
    ~FakeLlmServer()
    {
        m_proc.kill();
        m_proc.waitForFinished(kStartMs);
    }
    FakeLlmServer(const FakeLlmServer&) = delete;
    FakeLlmServer& operator=(const FakeLlmServer&) = delete;

    bool started() const { return m_port > 0; }
    QString baseUrl() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(m_port); }
    QList<QJsonObject> requests() const
    {
        QFile f(logPath());
        QList<QJsonObject> out;
        if (f.open(QIODevice::ReadOnly)) {
            for (const QByteArray& line : f.readAll().split('\n')) {
                if (!line.isEmpty())
                    out << QJsonDocument::fromJson(line).object();
            }
        }
        return out;
    }

private:
    QString logPath() const { return m_dir.filePath("requests.jsonl"); }

    QTemporaryDir m_dir;
    QProcess m_proc;
    int m_port = 0;
};

}  // namespace km::test
