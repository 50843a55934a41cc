#pragma once
// Edits a task as its folder files (task.toml, description.md, reference.py, spec.md) and turns them back into a
// task, with the validator's errors located by file and line. Tracks unsaved edits. GUI thread.

#include "model/Task.h"

#include <QWidget>
#include <variant>

class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QsciScintilla;

namespace km::ui {

class TaskEditor : public QWidget {
    Q_OBJECT
public:
    explicit TaskEditor(QWidget* parent = nullptr);
    void setTask(const Task& task);  // loads it, clears the unsaved state and enables editing
    void clear();                    // no task: empty, unsaved state cleared, disabled
    const QString& taskId() const { return m_original.id; }
    bool isDirty() const { return m_dirty; }
    // The edited task, or what is wrong ("task.toml:4: 'level': expected an integer 1-4").
    std::variant<Task, QString> editedTask() const;
    void showMessage(const QString& text, bool error);

Q_SIGNALS:
    void dirtyChanged(bool dirty);
    void saveRequested();
    void revertRequested();

private:
    void markDirty();

    QTabWidget* m_tabs;
    QsciScintilla* m_toml;
    QPlainTextEdit* m_description;
    QsciScintilla* m_reference;
    QPlainTextEdit* m_spec;
    QLabel* m_message;
    Task m_original;
    bool m_dirty = false;
    bool m_loading = false;
};

}  // namespace km::ui
