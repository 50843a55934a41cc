// kmosaic: the command-line client of the core. Builds the I/O, runs one command.
#include "cli/Cli.h"

#include <QCoreApplication>
#include <cstdio>

int main(int argc, char* argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("kmosaic"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KMOSAIC_VERSION));
    QTextStream out(stdout);
    QTextStream err(stderr);
    const int rc = km::cli::run(QCoreApplication::arguments().mid(1), {out, err});
    out.flush();
    err.flush();
    return rc;
}
