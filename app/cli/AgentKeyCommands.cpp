// kmosaic agent key set / delete / check: the API keys that provider files name in "api_key_keychain", kept in the
// desktop keychain (agent/Keychain.h). No store is opened; no key is ever printed.
#include "agent/Keychain.h"
#include "cli/AgentCommands.h"
#include "cli/Options.h"

#include <QFile>
#include <cstdio>
#include <unistd.h>

namespace km::cli {

namespace {

// The one positional argument NAME of `agent key SUB`, or empty with *exit set: Ok after --help, Usage after telling
// why on io.err.
QString entryArgument(const QString& sub, const QStringList& args, Io io, int* exit)
{
    QCommandLineParser p;
    p.addPositionalArgument(QStringLiteral("name"), QStringLiteral("The keychain entry (api_key_keychain)."));
    *exit = Usage;
    if (const auto code = parseOrExit(p, QStringLiteral("agent key ") + sub, args, io)) {
        *exit = *code;
        return {};
    }
    const QStringList names = p.positionalArguments();
    if (names.size() != 1 || names[0].trimmed().isEmpty() || names[0] != names[0].trimmed()) {
        io.err << "kmosaic agent key " << sub << ": give one entry name, the provider file's api_key_keychain\n";
        return {};
    }
    return names[0];
}

int keychainFailure(const QString& sub, const Error& e, Io io)
{
    io.err << "kmosaic agent key " << sub << ": " << e.message << "\n";
    return Failed;
}

}  // namespace

int agentKeySetCommand(const QStringList& args, Io io)
{
    int exit = Usage;
    const QString name = entryArgument(QStringLiteral("set"), args, io, &exit);
    if (name.isEmpty())
        return exit;
    if (::isatty(STDIN_FILENO))
        io.err << "kmosaic agent key set: paste the key for \"" << name << "\" and press Enter\n" << Qt::flush;
    QFile in;
    if (!in.open(stdin, QIODevice::ReadOnly)) {
        io.err << "kmosaic agent key set: cannot read the key from stdin: " << in.errorString() << "\n";
        return Failed;
    }
    const QString key = QString::fromUtf8(in.readLine()).trimmed();
    if (key.isEmpty()) {
        io.err << "kmosaic agent key set: no key on stdin (give it as one line, e.g. from a password manager's "
                  "output); nothing stored\n";
        return Usage;
    }
    if (Status s = writeKeychainSecret(name, key); !s)
        return keychainFailure(QStringLiteral("set"), s.error(), io);
    io.out << "stored the key in keychain entry \"" << name << "\" (service " << keychainService()
           << "); name it in a provider file as \"api_key_keychain\": \"" << name << "\"\n";
    return Ok;
}

int agentKeyDeleteCommand(const QStringList& args, Io io)
{
    int exit = Usage;
    const QString name = entryArgument(QStringLiteral("delete"), args, io, &exit);
    if (name.isEmpty())
        return exit;
    // Asked first: deleting an entry that is not there succeeds silently with libsecret.
    if (auto existing = readKeychainSecret(name); !existing)
        return keychainFailure(QStringLiteral("delete"), existing.error(), io);
    if (Status s = deleteKeychainSecret(name); !s)
        return keychainFailure(QStringLiteral("delete"), s.error(), io);
    io.out << "deleted keychain entry \"" << name << "\" (service " << keychainService() << ")\n";
    return Ok;
}

int agentKeyCheckCommand(const QStringList& args, Io io)
{
    int exit = Usage;
    const QString name = entryArgument(QStringLiteral("check"), args, io, &exit);
    if (name.isEmpty())
        return exit;
    const Result<QString> key = readKeychainSecret(name);
    if (!key && key.error().code == ErrorCode::NotFound) {
        io.out << "keychain entry \"" << name << "\" (service " << keychainService() << ") does not exist\n";
        return Failed;
    }
    if (!key)
        return keychainFailure(QStringLiteral("check"), key.error(), io);
    io.out << "keychain entry \"" << name << "\" (service " << keychainService() << ") exists"
           << (key->trimmed().isEmpty() ? " but is empty" : "") << "\n";
    return key->trimmed().isEmpty() ? Failed : Ok;
}

}  // namespace km::cli
