#pragma once
// The main window's modes (Tasks, Runs, Solutions): one page each in the central area, a key each (Ctrl+1..3), the
// docks that belong to a mode shown only in it (as the user left them), and the mode's single-key actions enabled
// only in it, so that "a" accepts the task in Tasks mode and the solution in Solutions mode, never both. GUI thread.

#include <QHash>
#include <QList>
#include <QObject>

class QAction;
class QActionGroup;
class QDockWidget;
class QKeySequence;
class QMainWindow;
class QSettings;
class QStackedWidget;
class QWidget;

namespace km::ui {

enum class Mode { Tasks, Runs, Solutions };
QString toString(Mode m);  // "tasks", "runs", "solutions"

class ModeSwitcher : public QObject {
    Q_OBJECT
public:
    // The stack becomes the window's central widget.
    ModeSwitcher(QMainWindow& window, QSettings& settings);

    // `docks`: shown only in this mode; `keyed`: enabled only in it (actions in a group of their own are fine: a
    // disabled mode group disables them, and re-enabling gives each back the state it had).
    void addMode(Mode mode, const QString& title, QWidget* page, const QKeySequence& key,
                 const QList<QDockWidget*>& docks = {}, const QList<QAction*>& keyed = {});
    QList<QAction*> modeActions() const;  // for the View menu and the mode bar, in the order added
    Mode mode() const { return m_mode; }
    QWidget* page(Mode mode) const;
    // Whether the mode shows the dock (now, if it is the current mode; else when it is next shown).
    void showDock(Mode mode, QDockWidget* dock, bool shown);

    // Saves which docks the mode showed, hides them, shows the new mode's (as last left), focuses its page.
    void setMode(Mode mode);
    // The mode and each mode's docks, for the next start (restore() after QMainWindow::restoreState).
    void save();
    void restore();

Q_SIGNALS:
    void modeChanged(km::ui::Mode mode);

private:
    struct Entry {
        Mode mode;
        QWidget* page;
        QAction* action;
        QList<QDockWidget*> docks;
        QStringList visibleDocks;  // the docks' object names, as the mode was left
        QActionGroup* keyed;
    };
    Entry* entry(Mode mode);
    void show(Entry& next);

    QMainWindow& m_window;
    QSettings& m_settings;
    QStackedWidget* m_stack;
    QActionGroup* m_group;
    QList<Entry> m_entries;
    Mode m_mode = Mode::Tasks;
};

}  // namespace km::ui
