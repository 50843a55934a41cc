#include "views/FilterPanel.h"

#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace km::ui {

namespace {
constexpr int kValueRole = Qt::UserRole + 1;
constexpr int kLabelRole = Qt::UserRole + 2;

template <typename T, typename Conv> QSet<T> checked(const QListWidget* list, Conv conv)
{
    QSet<T> out;
    for (int i = 0; i < list->count(); ++i)
        if (list->item(i)->checkState() == Qt::Checked)
            out.insert(conv(list->item(i)->data(kValueRole)));
    return out;
}
}  // namespace

FilterPanel::FilterPanel(QWidget* parent) : QWidget(parent)
{
    m_updating = true;  // items emit itemChanged while they are set up
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_status = addList(tr("Status"), QStringLiteral("statusFilter"));
    for (ReviewStatus s : allReviewStatuses())
        addItem(m_status, toString(s), int(s));
    m_level = addList(tr("Level"), QStringLiteral("levelFilter"));
    for (int l = 1; l <= 4; ++l)
        addItem(m_level, tr("Level %1").arg(l), l);
    m_presentation = addList(tr("Shown to the model"), QStringLiteral("presentationFilter"));
    for (Presentation p : allPresentations())
        addItem(m_presentation, toString(p), int(p));
    m_category = addList(tr("Category"), QStringLiteral("categoryFilter"));
    for (const QString& c : knownCategories())
        addItem(m_category, c, c);
    auto* reset = new QPushButton(tr("Clear filters"), this);
    reset->setObjectName(QStringLiteral("clearFilters"));
    layout->addWidget(reset);
    connect(reset, &QPushButton::clicked, this, &FilterPanel::clear);
    // Short lists take the height of their rows; the category list takes the rest.
    for (QListWidget* list : {m_status, m_level, m_presentation})
        list->setMaximumHeight(list->sizeHintForRow(0) * list->count() + 2 * list->frameWidth() + 2);
    m_updating = false;
}

QListWidget* FilterPanel::addList(const QString& title, const QString& objectName)
{
    auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(title), this);
    auto* list = new QListWidget(this);
    list->setObjectName(objectName);
    list->setUniformItemSizes(true);
    layout()->addWidget(label);
    layout()->addWidget(list);
    connect(list, &QListWidget::itemChanged, this, [this] {
        if (!m_updating)
            Q_EMIT facetsChanged(facets());
    });
    return list;
}

void FilterPanel::addItem(QListWidget* list, const QString& label, const QVariant& value)
{
    auto* item = new QListWidgetItem(label, list);
    item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
    item->setCheckState(Qt::Unchecked);
    item->setData(kValueRole, value);
    item->setData(kLabelRole, label);
}

FacetFilter FilterPanel::facets() const
{
    FacetFilter f;
    f.statuses = checked<ReviewStatus>(m_status, [](const QVariant& v) { return ReviewStatus(v.toInt()); });
    f.levels = checked<int>(m_level, [](const QVariant& v) { return v.toInt(); });
    f.categories = checked<QString>(m_category, [](const QVariant& v) { return v.toString(); });
    f.presentations = checked<Presentation>(m_presentation, [](const QVariant& v) { return Presentation(v.toInt()); });
    return f;
}

void FilterPanel::setCounts(const FacetCounts& c)
{
    m_updating = true;
    auto label = [](QListWidget* list, auto count) {
        for (int i = 0; i < list->count(); ++i) {
            QListWidgetItem* item = list->item(i);
            const int n = count(item->data(kValueRole));
            item->setText(QStringLiteral("%1 (%2)").arg(item->data(kLabelRole).toString()).arg(n));
            item->setForeground(n == 0 && item->checkState() != Qt::Checked ? QBrush(Qt::gray) : QBrush());
        }
    };
    label(m_status, [&](const QVariant& v) { return c.statuses.value(ReviewStatus(v.toInt())); });
    label(m_level, [&](const QVariant& v) { return c.levels.value(v.toInt()); });
    label(m_category, [&](const QVariant& v) { return c.categories.value(v.toString()); });
    label(m_presentation, [&](const QVariant& v) { return c.presentations.value(Presentation(v.toInt())); });
    m_updating = false;
}

void FilterPanel::clear()
{
    m_updating = true;
    for (QListWidget* list : {m_status, m_level, m_category, m_presentation})
        for (int i = 0; i < list->count(); ++i)
            list->item(i)->setCheckState(Qt::Unchecked);
    m_updating = false;
    Q_EMIT facetsChanged(facets());
}

}  // namespace km::ui
