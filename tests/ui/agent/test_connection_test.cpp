// "Test connection" of the providers dialog against fake_llm_server.py on loopback (real sockets): an answer, a
// 401 and a dead port each end in their plain message, without the GUI thread waiting.
#include "../../common/FakeLlmServer.h"
#include "../../common/FakeProvider.h"
#include "agent/ProviderDialog.h"
#include "agent/ProviderStore.h"

#include <QJsonArray>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace km;
using namespace km::ui;
using km::test::deadPort;
using km::test::FakeLlmServer;

namespace {
constexpr int kWaitMs = 60000;

ProviderConfig at(const QString& url)
{
    ProviderConfig c;
    c.name = QStringLiteral("fake");
    c.baseUrl = url;
    c.model = QStringLiteral("fake-model");
    return c;
}

}  // namespace

class TestConnectionTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        m_settings = std::make_unique<QSettings>(m_dir.filePath("kmosaic.ini"), QSettings::IniFormat);
        m_store = std::make_unique<ProviderStore>(*m_settings);
        m_dialog = std::make_unique<ProviderDialog>(*m_store);
    }

    void anAnswer()
    {
        FakeLlmServer server(QJsonArray{QJsonObject{{"kind", "reply"}, {"content", "OK"}}});
        QVERIFY(server.started());
        m_dialog->setFields(at(server.baseUrl()));
        m_dialog->findChild<QLineEdit*>("providerKey")->setText(QStringLiteral("sk-typed-not-saved-1234"));
        QSignalSpy tested(m_dialog.get(), &ProviderDialog::tested);
        m_dialog->testConnection();
        QVERIFY(m_dialog->statusText().startsWith(QLatin1String("Asking")));  // returned at once
        QVERIFY(tested.wait(kWaitMs));
        QVERIFY(tested.first().at(0).toBool());
        QVERIFY2(m_dialog->statusText().startsWith(QLatin1String("Connected: fake-model answered \"OK\"")),
                 qPrintable(m_dialog->statusText()));
        const auto requests = server.requests();
        QCOMPARE(requests.size(), 1);
        QCOMPARE(requests[0].value("headers").toObject().value("authorization").toString(),
                 QStringLiteral("Bearer sk-typed-not-saved-1234"));
        QVERIFY(m_store->providers().isEmpty());  // testing saves nothing
    }

    void aRefusedKey()
    {
        FakeLlmServer server(QJsonArray{QJsonObject{{"kind", "status"}, {"code", 401}}});
        QVERIFY(server.started());
        m_dialog->setFields(at(server.baseUrl()));
        QSignalSpy tested(m_dialog.get(), &ProviderDialog::tested);
        m_dialog->testConnection();
        QVERIFY(tested.wait(kWaitMs));
        QVERIFY(!tested.first().at(0).toBool());
        QVERIFY2(m_dialog->statusText().startsWith(QLatin1String("The endpoint refused the API key (HTTP 401")),
                 qPrintable(m_dialog->statusText()));
    }

    void aDeadPort()
    {
        m_dialog->setFields(at(QStringLiteral("http://127.0.0.1:%1/v1").arg(deadPort())));
        QSignalSpy tested(m_dialog.get(), &ProviderDialog::tested);
        m_dialog->testConnection();
        QVERIFY(tested.wait(kWaitMs));
        QVERIFY(!tested.first().at(0).toBool());
        QVERIFY2(m_dialog->statusText().startsWith(QLatin1String("Nothing answers at the endpoint")),
                 qPrintable(m_dialog->statusText()));
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<QSettings> m_settings;
    std::unique_ptr<ProviderStore> m_store;
    std::unique_ptr<ProviderDialog> m_dialog;
};

QTEST_MAIN(TestConnectionTest)
#include "test_connection_test.moc"
