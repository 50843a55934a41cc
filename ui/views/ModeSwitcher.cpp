#include "views/ModeSwitcher.h"

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QMainWindow>
#include <QSettings>
#include <QStackedWidget>

namespace km::ui {

QString toString(Mode m)
{
    switch (m) {
    case Mode::Tasks: return QStringLiteral("tasks");
    case Mode::Runs: return QStringLiteral("runs");
    case Mode::Solutions: break;
    }
    return QStringLiteral("solutions");
}

ModeSwitcher::ModeSwitcher(QMainWindow& window, QSettings& settings)
    : QObject(&window)
    , m_window(window)
    , m_settings(settings)
    , m_stack(new QStackedWidget(&window))
    , m_group(new QActionGroup(this))
{
    m_stack->setObjectName(QStringLiteral("modePages"));
    m_window.setCentralWidget(m_stack);
    m_group->setExclusive(true);
}

void ModeSwitcher::addMode(Mode mode, const QString& title, QWidget* page, const QKeySequence& key,
                           const QList<QDockWidget*>& docks, const QList<QAction*>& keyed)
{
    auto* action = new QAction(title, this);
    action->setObjectName(QStringLiteral("mode-") + toString(mode));
    action->setCheckable(true);
    action->setShortcut(key);
    action->setShortcutContext(Qt::WindowShortcut);
    action->setStatusTip(tr("Show the %1").arg(title.toLower().remove(QLatin1Char('&'))));
    m_group->addAction(action);
    m_window.addAction(action);
    connect(action, &QAction::triggered, this, [this, mode] { setMode(mode); });
    auto* group = new QActionGroup(this);
    group->setExclusionPolicy(QActionGroup::ExclusionPolicy::None);
    for (QAction* a : keyed)
        group->addAction(a);
    Entry e{mode, page, action, docks, {}, group};
    for (QDockWidget* d : docks)
        e.visibleDocks.append(d->objectName());
    m_stack->addWidget(page);
    const bool first = m_entries.isEmpty();
    if (!first)
        page->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    m_entries.append(e);
    if (first) {
        m_mode = mode;
        action->setChecked(true);
    } else {
        group->setEnabled(false);
        for (QDockWidget* d : docks)
            d->hide();
    }
}

ModeSwitcher::Entry* ModeSwitcher::entry(Mode mode)
{
    for (Entry& e : m_entries)
        if (e.mode == mode)
            return &e;
    return nullptr;
}

QList<QAction*> ModeSwitcher::modeActions() const
{
    QList<QAction*> out;
    for (const Entry& e : m_entries)
        out.append(e.action);
    return out;
}

QWidget* ModeSwitcher::page(Mode mode) const
{
    for (const Entry& e : m_entries)
        if (e.mode == mode)
            return e.page;
    return nullptr;
}

void ModeSwitcher::showDock(Mode mode, QDockWidget* dock, bool shown)
{
    Entry* e = entry(mode);
    if (!e || !e->docks.contains(dock))
        return;
    e->visibleDocks.removeAll(dock->objectName());
    if (shown)
        e->visibleDocks.append(dock->objectName());
    if (mode == m_mode)
        dock->setVisible(shown);
}

void ModeSwitcher::setMode(Mode mode)
{
    Entry* next = entry(mode);
    Entry* now = entry(m_mode);
    if (!next)
        return;
    if (now == next) {  // the docks stay as the user has them now
        next->action->setChecked(true);
        next->page->setFocus();
        return;
    }
    if (now) {
        now->visibleDocks.clear();
        for (QDockWidget* d : now->docks)
            if (d->isVisible() || d->isFloating())
                now->visibleDocks.append(d->objectName());
        for (QDockWidget* d : now->docks)
            d->hide();
        now->keyed->setEnabled(false);
    }
    show(*next);
}

void ModeSwitcher::show(Entry& next)
{
    m_mode = next.mode;
    next.action->setChecked(true);
    next.keyed->setEnabled(true);
    for (QDockWidget* d : next.docks)
        d->setVisible(next.visibleDocks.contains(d->objectName()));
    // Only the shown page's minimum size counts: a stack otherwise holds the window to its largest page's.
    for (const Entry& e : m_entries)
        e.page->setSizePolicy(&e == &next ? QSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred)
                                          : QSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored));
    m_stack->setCurrentWidget(next.page);
    next.page->setFocus();
    Q_EMIT modeChanged(next.mode);
}

void ModeSwitcher::save()
{
    m_settings.setValue(QStringLiteral("mainWindow/mode"), toString(m_mode));
    for (Entry& e : m_entries) {
        if (e.mode == m_mode) {  // as they are now
            e.visibleDocks.clear();
            for (QDockWidget* d : e.docks)
                if (d->isVisible())
                    e.visibleDocks.append(d->objectName());
        }
        m_settings.setValue(QStringLiteral("mainWindow/docks/") + toString(e.mode), e.visibleDocks);
    }
}

void ModeSwitcher::restore()
{
    for (Entry& e : m_entries) {
        const QString key = QStringLiteral("mainWindow/docks/") + toString(e.mode);
        if (m_settings.contains(key))
            e.visibleDocks = m_settings.value(key).toStringList();
        else if (e.mode == m_mode) {  // a layout from before modes: the docks as restored
            e.visibleDocks.clear();
            for (QDockWidget* d : e.docks)
                if (!d->isHidden())
                    e.visibleDocks.append(d->objectName());
        }
    }
    if (m_entries.isEmpty())
        return;
    const QString saved = m_settings.value(QStringLiteral("mainWindow/mode")).toString();
    Entry* chosen = &m_entries.first();
    for (Entry& e : m_entries)
        if (toString(e.mode) == saved)
            chosen = &e;
    // The docks as restoreState() left them belong to no mode yet: every other mode's are hidden, the chosen one's
    // shown as that mode last had them.
    for (Entry& e : m_entries) {
        e.keyed->setEnabled(false);
        if (&e != chosen)
            for (QDockWidget* d : e.docks)
                d->hide();
    }
    show(*chosen);
}

}  // namespace km::ui
