#pragma once
// Providers: the saved list, and one provider's fields (name, base URL, model, timeouts, retries, key variable);
// the key is typed once and goes to the keychain (ProviderStore::setKey); "Test connection" asks the endpoint
// once, off the GUI thread, and shows its answer or error in plain words. GUI thread.

#include "agent/ProviderConfig.h"

#include <QDialog>

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace km::ui {

class ConnectionTest;
class ProviderStore;

class ProviderDialog : public QDialog {
    Q_OBJECT
public:
    explicit ProviderDialog(ProviderStore& store, QWidget* parent = nullptr);

    // The provider the fields describe (no key).
    ProviderConfig fields() const;
    void setFields(const ProviderConfig& config);
    QString statusText() const;

public Q_SLOTS:  // NOLINT(readability-redundant-access-specifiers): moc needs the slots marked
    void select(const QString& name);
    void addNew();
    bool saveCurrent();  // the fields, and the key when one was typed (then the key field is cleared)
    void removeCurrent();
    void testConnection();

Q_SIGNALS:
    void providersChanged();
    void tested(bool ok, const QString& message);

private:
    void reload(const QString& select = {});
    void showStatus(const QString& text, bool error);

    ProviderStore& m_store;
    ConnectionTest* m_test;
    QListWidget* m_list;
    QLineEdit* m_name;
    QLineEdit* m_url;
    QLineEdit* m_model;
    QLineEdit* m_keyEnv;
    QLineEdit* m_key;
    QSpinBox* m_connect;
    QSpinBox* m_total;
    QSpinBox* m_stall;
    QSpinBox* m_attempts;
    QPushButton* m_testButton;
    QLabel* m_status;
    QString m_keychainEntry;  // of the provider shown
};

}  // namespace km::ui
