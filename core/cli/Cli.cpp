#include "cli/Cli.h"

#include "cli/AgentCommands.h"
#include "cli/Commands.h"
#include "store/Migrations.h"
#include "store/TaskStore.h"

#include <QCoreApplication>

namespace km::cli {

namespace {
const char* const kUsage = R"(Usage: kmosaic [--db PATH] COMMAND [OPTIONS]

KernelMosaic: CUDA tasks, verified kernels and agent trajectories.

Commands:
  import PATH [--format auto|folder|kernelbench|jsonl]
                           import a task folder, a folder of tasks, a KernelBench checkout or a JSONL file
  export OUT [--format folder|jsonl] [FILTERS]
                           write tasks as task folders under OUT, or as one JSONL file OUT
  tasks list [FILTERS] [--json]
                           list tasks
  tasks show ID [--json]   show one task in full
  tasks history ID [--json]
                           the task's review decisions and audit trail
  review ID --status STATUS [--reason TEXT] [--comment TEXT] [--reviewer NAME]
                           record a review decision (draft, in_review, accepted, rejected, needs_changes);
                           the reviewer defaults to $KMOSAIC_REVIEWER
  verify --solution FILE (--task ID | --reference FILE) [--json] [--device auto|cpu|cuda] [--config NAME]
         [--seeds N] [--timing-runs N] [--timeout S] [--memory-mb MB] [--file-mb MB] [--build-cache DIR]
         [--build-cache-max-gb GB] [--no-profile] [--ncu] [--memcheck] [--compile-baseline] [--no-store] [--quiet]
         [--unsafe-no-sandbox]
                           compile, run and judge a solution; the verdict is stored with the solution
  verify --batch FILE|DIR [--task ID] [--build-jobs N] [verify options]
                           many solutions (JSON array or JSONL of {task, file|code}, or a folder of .py files),
                           built ahead on the cores, verified in order by one worker, each stored as it comes
  verify ... --gpus all|N[,N...]
                           one verification worker per GPU (nvidia-smi indices, after CUDA_VISIBLE_DEVICES), each
                           verdict naming its GPU; default: every visible GPU, or one worker where there is none
  gpus [--json]            the GPUs nvidia-smi finds, narrowed by CUDA_VISIBLE_DEVICES
  verify ... --pool PATH|auto
                           verify through a running pool (no worker start, no import torch); auto: the default socket
  pool serve [--socket PATH] [--idle-exit MIN] [--gpus all|N[,N...]] [--device auto|cpu|cuda]
                           keep warm verification workers (one per GPU) and serve verify --pool over a local socket
  pool status [--socket PATH] [--stop]
                           what a running pool has done; --stop asks it to exit
  verdicts list [--task ID] [--status S[,S]] [--solution N] [--limit N] [--json]
                           list stored verdicts, newest first (S: PASSED, COMPILE_ERROR, REWARD_HACK, ...)
  verdicts show ID [--json]
                           show one verdict: findings, diagnostics, trials and timing
  agent run (--task ID | FILTERS) (--provider FILE.json | --manual DIR | --manual-cmd CMD) [--concurrency N]
            [--max-turns N] [--max-tokens N] [--max-minutes M] [--repair-turns N] [--optimise-turns N]
            [--target-speedup X] [--plateau N] [--temperature T] [--top-p P] [--reply-tokens N] [--seed N]
            [verify options: --device --config --seeds --timing-runs --timeout --build-cache --ncu
                             --unsafe-no-sandbox] [--json]
                           implement, repair and optimise with an LLM or a person; every step is stored
  agent list [--task ID] [--limit N] [--json]
                           list agent runs, newest first
  agent show ID [--json]   one run's steps: stage, status, speedup, tokens, latency, error
  agent resume ID          continue an interrupted, failed or cancelled run from its last stored step
  agent cancel ID          ask the process running a run to stop after its current step
  agent export (ID ... | --task ID | --all) -o FILE [--label TEXT]
                           write runs with their steps and verdicts as one trajectory bundle (JSON)
  agent import FILE [--json]
                           store the runs of a bundle (tasks first); a run imported before is skipped
  agent key set NAME       store an API key (one line on stdin) in the desktop keychain as entry NAME, for
                           provider files that name it in "api_key_keychain"
  agent key check NAME     whether keychain entry NAME exists (exit 0) or not (exit 1); never prints the key
  agent key delete NAME    remove keychain entry NAME

Filters:
  --status S  --level N  --category C  --presentation P (shown to the model)  --query TEXT (full text)
  --id ID  --limit N   (each list option may repeat or take a comma-separated list)

Global options:
  --db PATH      the store file (default: $KMOSAIC_DB, else ~/.local/share/kmosaic/kmosaic.sqlite)
  --version      print the version
  --help         print this help

Exit status: 0 success, 1 failure (details on stderr), 2 bad usage, 3 a verdict other than PASSED.
)";
template <typename F> struct Sub {
    const char* name;
    F fn;
};

// The handler of the subcommand that starts `rest` (taken off it), or nullptr once `need` is printed.
template <typename F, std::size_t N> F pickSub(QStringList& rest, const Sub<F> (&subs)[N], const char* need, Io io)
{
    const QString sub = rest.value(0);
    rest = rest.mid(1);
    for (const Sub<F>& s : subs) {
        if (sub == QLatin1String(s.name))
            return s.fn;
    }
    io.err << "kmosaic: " << need << "; see kmosaic --help\n";
    return nullptr;
}
}  // namespace

int run(const QStringList& args, Io io)
{
    QString dbPath;
    int i = 0;
    for (; i < args.size(); ++i) {
        const QString& a = args[i];
        if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            io.out << kUsage;
            return Ok;
        }
        if (a == QLatin1String("--version")) {
            io.out << "kmosaic " << QCoreApplication::applicationVersion() << " (store schema "
                   << store::latestSchemaVersion() << ")\n";
            return Ok;
        }
        if (a == QLatin1String("--db")) {
            if (i + 1 >= args.size()) {
                io.err << "kmosaic: --db needs a path\n";
                return Usage;
            }
            dbPath = args[++i];
        } else if (a.startsWith(QLatin1String("--db="))) {
            dbPath = a.mid(5);
        } else if (a.startsWith(QLatin1Char('-'))) {
            io.err << "kmosaic: unknown option " << a << " (before the command); see kmosaic --help\n";
            return Usage;
        } else {
            break;
        }
    }
    if (i >= args.size()) {
        io.err << "kmosaic: no command given; see kmosaic --help\n";
        return Usage;
    }
    const QString command = args[i];
    QStringList rest = args.mid(i + 1);
    using Fn = int (*)(TaskStore&, const QStringList&, Io);
    Fn fn = nullptr;
    using StorelessFn = int (*)(const QStringList&, Io);  // commands that open no store
    StorelessFn storeless = nullptr;
    if (command == QLatin1String("import")) {
        fn = importCommand;
    } else if (command == QLatin1String("export")) {
        fn = exportCommand;
    } else if (command == QLatin1String("review")) {
        fn = reviewCommand;
    } else if (command == QLatin1String("tasks")) {
        static const Sub<Fn> subs[] = {
            {"list", tasksListCommand}, {"show", tasksShowCommand}, {"history", tasksHistoryCommand}};
        if (!(fn = pickSub(rest, subs, "'tasks' needs list, show or history", io)))
            return Usage;
    } else if (command == QLatin1String("verify")) {
        fn = verifyCommand;
    } else if (command == QLatin1String("gpus")) {
        fn = gpusCommand;
    } else if (command == QLatin1String("pool")) {
        static const Sub<Fn> subs[] = {{"serve", poolServeCommand}, {"status", poolStatusCommand}};
        if (!(fn = pickSub(rest, subs, "'pool' needs serve or status", io)))
            return Usage;
    } else if (command == QLatin1String("verdicts")) {
        static const Sub<Fn> subs[] = {{"list", verdictsListCommand}, {"show", verdictsShowCommand}};
        if (!(fn = pickSub(rest, subs, "'verdicts' needs list or show", io)))
            return Usage;
    } else if (command == QLatin1String("agent") && rest.value(0) == QLatin1String("key")) {
        rest = rest.mid(1);
        static const Sub<StorelessFn> subs[] = {
            {"set", agentKeySetCommand}, {"delete", agentKeyDeleteCommand}, {"check", agentKeyCheckCommand}};
        if (!(storeless = pickSub(rest, subs, "'agent key' needs set, check or delete", io)))
            return Usage;
    } else if (command == QLatin1String("agent")) {
        static const Sub<Fn> subs[] = {{"run", agentRunCommand},       {"resume", agentResumeCommand},
                                       {"list", agentListCommand},     {"show", agentShowCommand},
                                       {"cancel", agentCancelCommand}, {"export", agentExportCommand},
                                       {"import", agentImportCommand}};
        if (!(fn = pickSub(rest, subs, "'agent' needs run, resume, list, show, cancel, export, import or key", io)))
            return Usage;
    } else {
        io.err << "kmosaic: unknown command '" << command << "'; see kmosaic --help\n";
        return Usage;
    }
    if (storeless)
        return storeless(rest, io);
    if (dbPath.isEmpty())
        dbPath = defaultStorePath();
    auto store = TaskStore::open(dbPath);
    if (!store) {
        io.err << "kmosaic: " << store.error().message << "\n";
        return Failed;
    }
    return fn(*store.value(), rest, io);
}

}  // namespace km::cli
