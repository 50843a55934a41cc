#include "agent/ProviderDialog.h"

#include "agent/ApiKey.h"
#include "agent/ConnectionTest.h"
#include "agent/ProviderStore.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace km::ui {

namespace {
QSpinBox* spin(const QString& name, int min, int max, int value, const QString& suffix = {})
{
    auto* s = new QSpinBox;
    s->setObjectName(name);
    s->setRange(min, max);
    s->setValue(value);
    s->setSuffix(suffix);
    return s;
}
QLineEdit* line(const QString& name, const QString& placeholder = {})
{
    auto* e = new QLineEdit;
    e->setObjectName(name);
    e->setPlaceholderText(placeholder);
    return e;
}
}  // namespace

ProviderDialog::ProviderDialog(ProviderStore& store, QWidget* parent)
    : QDialog(parent)
    , m_store(store)
    , m_test(new ConnectionTest(this))
    , m_list(new QListWidget)
    , m_name(line(QStringLiteral("providerName"), QStringLiteral("local-vllm")))
    , m_url(line(QStringLiteral("providerUrl"), QStringLiteral("http://127.0.0.1:8000/v1")))
    , m_model(line(QStringLiteral("providerModel")))
    , m_keyEnv(line(QStringLiteral("providerKeyEnv"), QStringLiteral("OPENAI_API_KEY (optional)")))
    , m_key(line(QStringLiteral("providerKey"), QStringLiteral("typed once; stored in the keychain")))
    , m_connect(spin(QStringLiteral("providerConnect"), 1, 600, ProviderTimeouts{}.connectS, QStringLiteral(" s")))
    , m_total(spin(QStringLiteral("providerTotal"), 1, 7200, ProviderTimeouts{}.totalS, QStringLiteral(" s")))
    , m_stall(spin(QStringLiteral("providerStall"), 1, 3600, ProviderTimeouts{}.stallS, QStringLiteral(" s")))
    , m_attempts(spin(QStringLiteral("providerAttempts"), 1, 20, RetrySettings{}.maxAttempts))
    , m_testButton(new QPushButton(tr("Test connection")))
    , m_status(new QLabel)
{
    setObjectName(QStringLiteral("providerDialog"));
    setWindowTitle(tr("Providers"));
    m_list->setObjectName(QStringLiteral("providerList"));
    m_key->setEchoMode(QLineEdit::Password);
    m_testButton->setObjectName(QStringLiteral("testConnection"));
    m_status->setObjectName(QStringLiteral("providerStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* form = new QFormLayout;
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Base URL"), m_url);
    form->addRow(tr("Model"), m_model);
    form->addRow(tr("Connect timeout"), m_connect);
    form->addRow(tr("Attempt timeout"), m_total);
    form->addRow(tr("Stall timeout"), m_stall);
    form->addRow(tr("Attempts"), m_attempts);
    form->addRow(tr("Key variable"), m_keyEnv);
    form->addRow(tr("API key"), m_key);

    auto* add = new QPushButton(tr("Add"));
    add->setObjectName(QStringLiteral("addProvider"));
    auto* remove = new QPushButton(tr("Remove"));
    remove->setObjectName(QStringLiteral("removeProvider"));
    auto* save = new QPushButton(tr("Save"));
    save->setObjectName(QStringLiteral("saveProvider"));
    auto* listButtons = new QHBoxLayout;
    listButtons->addWidget(add);
    listButtons->addWidget(remove);
    auto* left = new QVBoxLayout;
    left->addWidget(m_list);
    left->addLayout(listButtons);
    auto* actions = new QHBoxLayout;
    actions->addWidget(save);
    actions->addWidget(m_testButton);
    actions->addStretch();
    auto* right = new QVBoxLayout;
    right->addLayout(form);
    right->addLayout(actions);
    right->addWidget(m_status);
    right->addStretch();
    auto* top = new QHBoxLayout;
    top->addLayout(left, 1);
    top->addLayout(right, 2);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    auto* outer = new QVBoxLayout(this);
    outer->addLayout(top);
    outer->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(add, &QPushButton::clicked, this, &ProviderDialog::addNew);
    connect(remove, &QPushButton::clicked, this, &ProviderDialog::removeCurrent);
    connect(save, &QPushButton::clicked, this, &ProviderDialog::saveCurrent);
    connect(m_testButton, &QPushButton::clicked, this, &ProviderDialog::testConnection);
    connect(m_list, &QListWidget::currentTextChanged, this, &ProviderDialog::select);
    connect(m_test, &ConnectionTest::finished, this, [this](bool ok, const QString& message) {
        m_testButton->setEnabled(true);
        showStatus(message, !ok);
        Q_EMIT tested(ok, message);
    });
    reload();
}

ProviderConfig ProviderDialog::fields() const
{
    ProviderConfig c;
    c.name = m_name->text().trimmed();
    c.baseUrl = m_url->text().trimmed();
    c.model = m_model->text().trimmed();
    c.apiKeyEnv = m_keyEnv->text().trimmed();
    c.apiKeyKeychain = m_keychainEntry;
    c.timeouts.connectS = m_connect->value();
    c.timeouts.totalS = m_total->value();
    c.timeouts.stallS = m_stall->value();
    c.retries.maxAttempts = m_attempts->value();
    return c;
}

void ProviderDialog::setFields(const ProviderConfig& c)
{
    m_name->setText(c.name);
    m_url->setText(c.baseUrl);
    m_model->setText(c.model);
    m_keyEnv->setText(c.apiKeyEnv);
    m_keychainEntry = c.apiKeyKeychain;
    m_key->clear();
    m_key->setPlaceholderText(c.apiKeyKeychain.isEmpty() ? tr("typed once; stored in the keychain")
                                                         : tr("stored in the keychain; type to replace"));
    m_connect->setValue(c.timeouts.connectS);
    m_total->setValue(c.timeouts.totalS);
    m_stall->setValue(c.timeouts.stallS);
    m_attempts->setValue(c.retries.maxAttempts);
}

QString ProviderDialog::statusText() const
{
    return m_status->text();
}

void ProviderDialog::select(const QString& name)
{
    if (auto p = m_store.provider(name))
        setFields(*p);
}

void ProviderDialog::addNew()
{
    m_list->setCurrentRow(-1);
    setFields(ProviderConfig{});
    m_name->setFocus();
    showStatus(tr("A new provider: fill in its fields and Save."), false);
}

bool ProviderDialog::saveCurrent()
{
    ProviderConfig c = fields();
    if (Status s = m_store.save(c); !s) {
        showStatus(s.error().message, true);
        return false;
    }
    QString note = tr("Saved \"%1\".").arg(c.name);
    if (!m_key->text().trimmed().isEmpty()) {
        if (Status s = m_store.setKey(c.name, m_key->text()); !s) {
            showStatus(tr("Saved \"%1\", but the key could not go to the keychain: %2").arg(c.name, s.error().message),
                       true);
            m_key->clear();
            reload(c.name);
            return false;
        }
        note = tr("Saved \"%1\"; its key is in the keychain.").arg(c.name);
    }
    m_key->clear();
    reload(c.name);
    showStatus(note, false);
    Q_EMIT providersChanged();
    return true;
}

void ProviderDialog::removeCurrent()
{
    const QString name = m_name->text().trimmed();
    if (name.isEmpty())
        return;
    m_store.remove(name);
    reload();
    showStatus(tr("Removed \"%1\" (its keychain entry stays; `kmosaic agent key delete %2` removes it).")
                   .arg(name, ProviderStore::keychainEntry(name)),
               false);
    Q_EMIT providersChanged();
}

void ProviderDialog::testConnection()
{
    ProviderConfig c = fields();
    if (c.baseUrl.isEmpty()) {
        showStatus(tr("Give the base URL first."), true);
        return;
    }
    const QString typed = m_key->text().trimmed();
    if (!typed.isEmpty()) {
        c.keyProvider = [typed] {
            return std::optional<QString>(typed);
        };
    } else if (!c.apiKeyKeychain.isEmpty()) {
        // The keychain is read here, on the GUI thread, as QtKeychain requires; the request goes off it.
        auto bound = bindApiKey(c);
        if (!bound) {
            showStatus(bound.error().message, true);
            Q_EMIT tested(false, bound.error().message);
            return;
        }
        c = bound.value();
    }
    m_testButton->setEnabled(false);
    showStatus(tr("Asking %1 ...").arg(c.baseUrl), false);
    m_test->start(c);
}

void ProviderDialog::reload(const QString& selectName)
{
    const QSignalBlocker block(m_list);
    m_list->clear();
    for (const ProviderConfig& p : m_store.providers())
        m_list->addItem(p.name);
    const auto found = m_list->findItems(selectName, Qt::MatchExactly);
    if (!found.isEmpty())
        m_list->setCurrentItem(found.first());
    else if (m_list->count() > 0 && selectName.isEmpty())
        m_list->setCurrentRow(0);
    if (m_list->currentItem())
        select(m_list->currentItem()->text());
}

void ProviderDialog::showStatus(const QString& text, bool error)
{
    m_status->setText(text);
    m_status->setStyleSheet(error ? QStringLiteral("color: #b00020;") : QString());
}

}  // namespace km::ui
