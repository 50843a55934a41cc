#!/usr/bin/env bash
# The style gates of CI, run by .ci/run before the build workflows; exit 1 on any violation.
#   format: clang-format --dry-run -Werror over every tracked C++ file of core/ ui/ app/ tests/ bench/ (.clang-format)
#   tidy:   clang-tidy, warnings as errors (.clang-tidy), over every source file of core/ and app/cli/, from the
#           compile commands of the core-only preset (configured here into build/core-only when it is not yet)
# usage: packaging/check-style.sh [format|tidy|all]   (default all)
# Environment: KMOSAIC_TIDY_JOBS (default: the number of cores), KMOSAIC_TIDY_BUILD (a configured build folder whose
# compile_commands.json to use instead of build/core-only).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
what=${1:-all}
case "$what" in format|tidy|all) ;; *) echo "usage: packaging/check-style.sh [format|tidy|all]" >&2; exit 2 ;; esac
status=0

if [ "$what" != tidy ]; then
    mapfile -t files < <(git ls-files -- core ui app tests bench | grep -E '\.(cpp|cc|cxx|h|hpp)$')
    echo "check-style: clang-format ($(clang-format --version | grep -o 'version [0-9.]*')) over ${#files[@]} files"
    if ! out=$(clang-format --dry-run -Werror "${files[@]}" 2>&1); then
        printf '%s\n' "$out" | head -n 60
        mapfile -t bad < <(printf '%s\n' "$out" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*clang-format-violations.*/\1/p' | sort -u)
        printf 'check-style: not formatted: %s\n' "${bad[@]}"
        echo "check-style: FAIL: ${#bad[@]} file(s) differ from .clang-format; fix with: clang-format -i FILE..."
        status=1
    else
        echo "check-style: format ok"
    fi
fi

if [ "$what" != format ]; then
    build=${KMOSAIC_TIDY_BUILD:-build/core-only}
    if [ ! -f "$build/compile_commands.json" ]; then
        [ -z "${KMOSAIC_TIDY_BUILD:-}" ] || { echo "check-style: no $build/compile_commands.json" >&2; exit 1; }
        cmake --preset core-only > /dev/null
    fi
    mapfile -t srcs < <(git ls-files -- 'core/*.cpp' 'app/cli/*.cpp')
    jobs=${KMOSAIC_TIDY_JOBS:-$(nproc)}
    logs=$(mktemp -d)
    trap 'rm -rf "$logs"' EXIT
    echo "check-style: $(clang-tidy --version | grep -o 'LLVM version [0-9.]*') over ${#srcs[@]} files of core/ and app/cli/, $jobs jobs"
    start=$(date +%s)
    printf '%s\0' "${srcs[@]}" | xargs -0 -P "$jobs" -I{} sh -c \
        'clang-tidy -p "$1" --quiet "$2" > "$3/$(printf %s "$2" | tr / _).log" 2>&1 || printf "%s\n" "$2" >> "$3/failed"' \
        _ "$build" {} "$logs"
    echo "check-style: clang-tidy took $(($(date +%s) - start)) s"
    if [ -s "$logs/failed" ]; then
        while read -r f; do
            grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter|^Error while processing' \
                "$logs/$(printf %s "$f" | tr / _).log" || true
        done < <(sort "$logs/failed")
        echo "check-style: FAIL: clang-tidy found problems in $(wc -l < "$logs/failed") file(s): $(sort "$logs/failed" | tr '\n' ' ')"
        status=1
    else
        echo "check-style: tidy ok"
    fi
fi
exit $status
