#pragma once
// Versioned prompt templates (resources/prompts/*.md): front matter (version, required and optional placeholder
// names) and a body with {{name}} placeholders and standalone {{#name}} / {{^name}} ... {{/name}} section lines
// (kept when the value is non-empty / empty). Immutable values once loaded: usable on any thread.

#include "util/Result.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <memory>
#include <vector>

namespace km {

class PromptTemplate {
public:
    // `name` is what messages and recordings call it (the file's base name); `file` is for messages.
    // A placeholder or section not declared in the front matter, a declared name the body never uses, or an
    // unbalanced section is an error naming the name and its line.
    static Result<PromptTemplate> parse(const QString& text, const QString& name, const QString& file = {});
    static Result<PromptTemplate> load(const QString& path);

    QString name() const { return m_name; }
    int version() const { return m_version; }
    QStringList required() const { return m_required; }
    QStringList optional() const { return m_optional; }
    QString source() const { return m_source; }  // the file's text as loaded

    // Values are inserted verbatim (never expanded again), with trailing newlines removed. A required name whose
    // value is missing or empty is an error naming it; values the template does not use are ignored.
    Result<QString> render(const QHash<QString, QString>& values) const;
    Result<QString> render(const QVariantMap& values) const;

    struct Node;  // the parsed body

private:
    QString m_name;
    QString m_file;
    int m_version = 0;
    QStringList m_required;
    QStringList m_optional;
    QString m_source;
    std::shared_ptr<const std::vector<Node>> m_body;
};

struct PromptVersion {
    QString name;
    int version = 0;
    bool operator==(const PromptVersion&) const = default;
};

// The templates of one folder, by name. The standard ones (system, implement, repair, optimise, no_code) must exist.
class PromptLibrary {
public:
    static const QStringList& standardNames();
    static Result<PromptLibrary> load(const QString& dir);  // every *.md except README.md
    static Result<PromptLibrary> loadDefault();             // resourcePath("prompts")

    const PromptTemplate* find(const QString& name) const;
    Result<QString> render(const QString& name, const QHash<QString, QString>& values) const;
    QStringList names() const;              // sorted
    QList<PromptVersion> versions() const;  // sorted by name, to record with a run
    QString versionString() const;          // "implement@1 no_code@1 optimise@1 repair@1 system@1"
    QByteArray contentHash() const;         // sha256 (hex) over the templates' texts in name order

private:
    static Result<PromptLibrary> loadFolder(const QString& dir);  // load() without the log line

    QList<PromptTemplate> m_templates;  // sorted by name
};

}  // namespace km
