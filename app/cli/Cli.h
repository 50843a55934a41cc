#pragma once
// The kmosaic command line: parses arguments, opens the store, runs one command. Core only, no GUI.

#include <QStringList>
#include <QTextStream>

namespace km::cli {

enum ExitCode { Ok = 0, Failed = 1, Usage = 2, NotPassed = 3 };  // NotPassed: a verdict other than PASSED

struct Io {
    QTextStream& out;
    QTextStream& err;
};

// args excludes the program name.
int run(const QStringList& args, Io io);

}  // namespace km::cli
