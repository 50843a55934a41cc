#pragma once
// The secrets this process knows (API keys it resolved), and text with them replaced by "[redacted]" before it is
// stored, exported, printed or logged (docs/agent.md). A value: filled on the main thread before the work starts,
// then copied into the stores that write (VerdictStore, TrajectoryStore) and read from any thread.

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVariant>

namespace km {

class SecretScrubber {
public:
    static constexpr qsizetype kMinLength = 8;  // shorter "keys" are placeholders ("EMPTY", "ollama"): kept

    // Adds a secret (trimmed); one shorter than kMinLength is ignored. Also known: its JSON-escaped,
    // percent-encoded and base64 forms.
    void add(const QString& secret);
    bool isEmpty() const { return m_forms.isEmpty(); }

    QString scrub(QString text) const;
    QByteArray scrub(QByteArray bytes) const;
    // Strings at any depth of maps and lists (keys included); other values as they are.
    QVariant scrub(const QVariant& value) const;
    QVariantMap scrub(const QVariantMap& map) const;

private:
    QStringList m_forms;  // longest first, so that a form inside another is not replaced first
};

inline const QString kRedactedText = QStringLiteral("[redacted]");

// From now on every log message of this process (qDebug ... qCritical, every category) is scrubbed of `secrets`
// before it reaches the handler installed before. Qt has one message handler per process, so this is the one
// process-wide state of the scrubbing: set once, on the main thread, when a command has resolved its keys.
void scrubLogMessages(const SecretScrubber& secrets);

}  // namespace km
