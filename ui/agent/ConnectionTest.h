#pragma once
// "Test connection": one small chat request to a provider, made on a pool thread, its answer or error in plain
// words on the thread that owns this object (the GUI's). A later start() supersedes an earlier one's answer.

#include "agent/ProviderConfig.h"

#include <QObject>

namespace km::ui {

class ConnectionTest : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    // `config` with its key already bound (keyProvider) or named by api_key_env. One attempt, short timeouts.
    void start(ProviderConfig config);
    bool running() const { return m_running; }

Q_SIGNALS:
    void finished(bool ok, const QString& message);

private:
    quint64 m_generation = 0;
    bool m_running = false;
};

}  // namespace km::ui
