#pragma once
// Shows one task: description, reference program, specification and metadata. GUI thread.

#include "model/Task.h"

#include <QWidget>

class QLabel;
class QTabWidget;
class QTextBrowser;
class QsciScintilla;

namespace km::ui {

class TaskDetailView : public QWidget {
    Q_OBJECT
public:
    explicit TaskDetailView(QWidget* parent = nullptr);
    void setTask(const Task& task);
    void clear();

private:
    QLabel* m_header;
    QTabWidget* m_tabs;
    QTextBrowser* m_description;
    QsciScintilla* m_reference;
    QTextBrowser* m_spec;
    QTextBrowser* m_metadata;
};

}  // namespace km::ui
