#pragma once
// task.toml: parse into the shared variant shape (remembering where each key stood), and write it back.

#include "model/Task.h"

#include <QHash>
#include <QList>
#include <QVariantMap>
#include <optional>

namespace km {

struct TomlDocument {
    QVariantMap root;
    QHash<QString, int> lines;                 // key path ("configs[1].batch") -> 1-based line
    int lineOf(const QString& keyPath) const;  // nearest known enclosing key, or 0
};

struct TomlError {
    int line = 0;
    QString reason;
};

// nullopt on a syntax error (the first, where toml++ stops) or on values a task file cannot hold (inf, nan, dates):
// `errors` gets them all, each with its line.
std::optional<TomlDocument> parseToml(const QByteArray& text, QList<TomlError>* errors);
std::optional<TomlDocument> parseToml(const QByteArray& text, TomlError* firstError);  // the first of them

// The metadata of a task as task.toml text: fixed key order, readable, read back to the same task.
QByteArray writeTaskToml(const Task& task);

}  // namespace km
