#pragma once
// The `---` front matter of guidance notes and prompt templates: flat `key: value` lines where a value is a scalar
// or an inline list `[a, b]`, `#` starts a comment. Pure parsing, any thread.

#include "util/Result.h"

#include <QHash>
#include <QString>
#include <QStringList>

namespace km {

struct FrontMatter {
    QString file;                      // for messages
    QHash<QString, QStringList> list;  // keys written as [a, b]
    QHash<QString, QString> scalar;    // keys written as a single value
    QHash<QString, int> line;          // 1-based line of each key
    QString body;                      // everything after the closing `---`
    int bodyLine = 0;                  // 1-based line where the body starts

    bool has(const QString& key) const { return line.contains(key); }
    // An error located at `key`'s line (or at line 1 when the key is absent): "file:line: message".
    Error errorAt(const QString& key, const QString& message) const;
    // The key's value as a list; a scalar or absent key is an error naming the line.
    Result<QStringList> requireList(const QString& key) const;
    Result<QString> requireScalar(const QString& key) const;
    Result<int> requireInt(const QString& key, int min, int max) const;
    // A key not in `allowed` is an error (it is a typo more often than not).
    Status checkKeys(const QStringList& allowed) const;
};

// Text with a leading front matter block; CRLF is accepted. Errors say "file:line: what".
Result<FrontMatter> parseFrontMatter(const QString& text, const QString& file);

}  // namespace km
