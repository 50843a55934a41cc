#pragma once
// The filter dock: status, level, category and presentation lists, each value with the count of tasks matching the
// search. Emits the facets the user checked. GUI thread.

#include "models/FacetFilter.h"

#include <QWidget>

class QListWidget;
class QListWidgetItem;

namespace km::ui {

class FilterPanel : public QWidget {
    Q_OBJECT
public:
    explicit FilterPanel(QWidget* parent = nullptr);
    FacetFilter facets() const;
    void setCounts(const FacetCounts& counts);
    void clear();

Q_SIGNALS:
    void facetsChanged(const km::ui::FacetFilter& facets);

private:
    QListWidget* addList(const QString& title, const QString& objectName);
    void addItem(QListWidget* list, const QString& label, const QVariant& value);

    QListWidget* m_status = nullptr;
    QListWidget* m_level = nullptr;
    QListWidget* m_category = nullptr;
    QListWidget* m_presentation = nullptr;
    bool m_updating = false;
};

}  // namespace km::ui
