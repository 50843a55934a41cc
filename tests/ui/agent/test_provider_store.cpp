// Saved providers: every field kept in QSettings "agent/providers" and read back, the key written to the desktop
// keychain and never to the settings file (the .ini is read back and searched), through the dialog too; run under
// with_secret_service.sh (a private gnome-keyring), skipped with a reason elsewhere.
#include "agent/Keychain.h"
#include "agent/ProviderDialog.h"
#include "agent/ProviderStore.h"

#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using namespace km;
using namespace km::ui;

namespace {
const QString kKey = QStringLiteral("sk-provider-store-test-9a8b7c6d5e4f");

QByteArray fileBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

ProviderConfig sample()
{
    ProviderConfig c;
    c.name = QStringLiteral("local-vllm");
    c.baseUrl = QStringLiteral("http://127.0.0.1:8000/v1");
    c.model = QStringLiteral("qwen");
    c.apiKeyEnv = QStringLiteral("VLLM_KEY");
    c.timeouts = {7, 300, 45};
    c.retries = {2, 100, 1000};
    return c;
}
}  // namespace

class TestProviderStore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyFieldIsKept()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("kmosaic.ini");
        {
            QSettings settings(path, QSettings::IniFormat);
            ProviderStore store(settings);
            QVERIFY(store.save(sample()));
            ProviderConfig other = sample();
            other.name = QStringLiteral("openai");
            QVERIFY(store.save(other));
            ProviderConfig bad = sample();
            bad.baseUrl = QStringLiteral("127.0.0.1:8000");
            const Status refused = store.save(bad);
            QVERIFY(!refused);
            QVERIFY(refused.error().message.contains(QLatin1String("http://")));
        }
        QSettings settings(path, QSettings::IniFormat);
        ProviderStore store(settings);
        const auto all = store.providers();
        QCOMPARE(all.size(), 2);
        QCOMPARE(all[0].name, QStringLiteral("local-vllm"));
        QCOMPARE(toJson(all[0]), toJson(sample()));
        QVERIFY(fileBytes(path).contains("agent\\providers") || fileBytes(path).contains("[agent]"));
        store.remove(QStringLiteral("openai"));
        QCOMPARE(store.providers().size(), 1);
        QVERIFY(!store.provider(QStringLiteral("openai")));
    }

    void theKeyGoesToTheKeychainOnly()
    {
        if (qEnvironmentVariableIsEmpty("KMOSAIC_TEST_PRIVATE_KEYRING"))
            QSKIP("needs the private keyring of with_secret_service.sh (run it through ctest); the user's own "
                  "keyring is never written");
        QTemporaryDir dir;
        const QString path = dir.filePath("kmosaic.ini");
        QSettings settings(path, QSettings::IniFormat);
        ProviderStore store(settings);
        QVERIFY(store.save(sample()));
        const Status set = store.setKey(sample().name, kKey);
        QVERIFY2(set, set ? "" : qPrintable(set.error().message));
        settings.sync();
        const QByteArray ini = fileBytes(path);
        QVERIFY(!ini.isEmpty());
        QVERIFY2(!ini.contains(kKey.toUtf8()), ini.constData());
        QVERIFY(ini.contains(ProviderStore::keychainEntry(sample().name).toUtf8()));  // the entry's name only
        const auto saved = store.provider(sample().name);
        QVERIFY(saved);
        QCOMPARE(saved->apiKeyKeychain, ProviderStore::keychainEntry(sample().name));
        const auto key = readKeychainSecret(saved->apiKeyKeychain);
        QVERIFY2(key, key ? "" : qPrintable(key.error().message));
        QCOMPARE(key.value(), kKey);

        // Through the dialog: typed once, stored in the keychain, the field cleared, the file still without it.
        ProviderDialog dialog(store);
        QCOMPARE(dialog.findChild<QListWidget*>("providerList")->count(), 1);
        dialog.addNew();
        ProviderConfig typed = sample();
        typed.name = QStringLiteral("hosted");
        dialog.setFields(typed);
        const QString second = kKey + QStringLiteral("-second");
        dialog.findChild<QLineEdit*>("providerKey")->setText(second);
        QVERIFY2(dialog.saveCurrent(), qPrintable(dialog.statusText()));
        QVERIFY(dialog.findChild<QLineEdit*>("providerKey")->text().isEmpty());
        QVERIFY(dialog.statusText().contains(QLatin1String("keychain")));
        settings.sync();
        QVERIFY(!fileBytes(path).contains(second.toUtf8()));
        QVERIFY(!fileBytes(path).contains(kKey.toUtf8()));
        const auto secondKey = readKeychainSecret(ProviderStore::keychainEntry("hosted"));
        QVERIFY(secondKey);
        QCOMPARE(secondKey.value(), second);
        QVERIFY(deleteKeychainSecret(ProviderStore::keychainEntry("hosted")));
        QVERIFY(deleteKeychainSecret(ProviderStore::keychainEntry(sample().name)));
    }
};

QTEST_MAIN(TestProviderStore)
#include "test_provider_store.moc"
