#pragma once
// How an import reads files it was handed: a file that is there but cannot be read (a dangling or looping symbolic
// link, a folder, no permission, an I/O error) is an error naming it, never taken as absent; files and JSONL lines
// have size limits.

#include "util/Result.h"

#include <optional>

namespace km {

struct ImportOptions {
    static constexpr qint64 kKiB = 1024;
    // task.toml, description.md, reference.py, spec.md, a KernelBench .py: real ones are a few KiB.
    qint64 maxFileBytes = 1024 * kKiB;
    qint64 maxLineBytes = 4096 * kKiB;  // one line of a JSONL file: a whole task with its texts
};

// Whether anything (a file, a folder, a symbolic link, even a broken one) has this name.
bool entryExists(const QString& path);

// A regular file that can be opened, or an error naming it (broken or looping link, folder, device, permission).
Status checkRegularFile(const QString& path);

// The UTF-8 text of a file; nullopt when nothing has that name. An error names the path when it cannot be read, is
// larger than maxBytes (with its size and the limit) or is not valid UTF-8.
Result<std::optional<QString>> readOptionalTextFile(const QString& path, qint64 maxBytes);
// As above, for a file that must be there.
Result<QString> readTextFile(const QString& path, qint64 maxBytes);

// "52428800 bytes (50.0 MiB), over the import limit of 1024 KiB"
QString overLimitText(qint64 size, qint64 limit);

}  // namespace km
