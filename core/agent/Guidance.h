#pragma once
// The CUDA guidance library: short Markdown notes with front matter (resources/guidance/*.md) and the pure choice of
// the notes that fit one turn of the agent. An immutable value once loaded: usable on any thread.

#include "util/Result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace km {

struct GuidanceNote {
    QString id;  // unique in a library
    QString title;
    QStringList categories;  // task categories it helps (knownCategories()), or "any"
    QStringList stages;      // "implement", "repair", "optimise"
    QStringList failures;    // verdict statuses ("COMPILE_ERROR") and check ids ("runtime.side_stream") it answers
    int priority = 3;        // 1 = most generally useful ... 5
    QString body;            // Markdown after the front matter, trimmed
    QString file;            // where it was loaded from
};

// What one turn needs advice on.
struct GuidanceQuery {
    QStringList categories;  // the task's
    QString stage;           // "implement", "repair", "optimise"
    QString failureStatus;   // the last verdict's status; empty when there is none
    QStringList checks;      // ids of the checks that fired on the last verdict
};

class GuidanceLibrary {
public:
    static const QStringList& stageNames();  // implement, repair, optimise

    // Every *.md of `dir` except README.md. A malformed note, an unknown category, stage or status, or a duplicate
    // id is an error naming the file and line.
    static Result<GuidanceLibrary> load(const QString& dir);
    // The bundled library: resourcePath("guidance").
    static Result<GuidanceLibrary> loadDefault();
    // One note's text; `file` is used in messages.
    static Result<GuidanceNote> parseNote(const QString& text, const QString& file);

    const QList<GuidanceNote>& notes() const { return m_notes; }  // sorted by id
    const GuidanceNote* find(const QString& id) const;

    // At most `max` notes, best first. A note qualifies when its categories meet the query's (or it is for "any")
    // and it answers the failure or is meant for the stage. Ranked by: a fired check it answers, then the status it
    // answers; a category of the task over "any"; the stage; priority; id.
    QList<GuidanceNote> select(const GuidanceQuery& query, int max) const;

    // sha256 (hex) over every note's file content in id order, and a short form to record with runs.
    QByteArray contentHash() const { return m_hash; }
    QString version() const;  // "guidance:<n>:<12 hex>"

private:
    static Result<GuidanceLibrary> loadFolder(const QString& dir);  // load() without the log line

    QList<GuidanceNote> m_notes;
    QByteArray m_hash;
};

// Notes as the {{guidance}} block of a prompt: "### Title" then the body, one after another.
QString formatGuidance(const QList<GuidanceNote>& notes);

}  // namespace km
