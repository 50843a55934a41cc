#pragma once
// The help of kmosaic: the whole usage text, and the usage of one command (its lines of the whole text, and its
// options as its parser describes them).

#include <QString>

class QCommandLineParser;

namespace km::cli {

const char* usageText();
// `command`: "tasks list", or a group such as "tasks" (every entry under it); parser: the command's options, if any.
QString commandUsage(const QString& command, const QCommandLineParser* parser = nullptr);

}  // namespace km::cli
