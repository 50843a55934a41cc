#pragma once
// Providers for the tests that talk to fake_llm_server.py (FakeLlmServer.h): a saved provider at a base URL, and a
// loopback port nothing listens on (a dead endpoint).

#include "agent/ProviderConfig.h"

#include <QTcpServer>

namespace km::test {

// Model "fake-model", short timeouts and no retry: a dead endpoint fails at once.
inline ProviderConfig fakeProvider(const QString& name, const QString& baseUrl)
{
    ProviderConfig c;
    c.name = name;
    c.baseUrl = baseUrl;
    c.model = QStringLiteral("fake-model");
    c.timeouts = {5, 120, 100};
    c.retries = {1, 100, 200};
    return c;
}

// A port nothing listens on: bound, then closed.
inline int deadPort()
{
    QTcpServer s;
    s.listen(QHostAddress::LocalHost, 0);
    const int port = s.serverPort();
    s.close();
    return port;
}

}  // namespace km::test
