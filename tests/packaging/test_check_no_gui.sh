#!/usr/bin/env bash
# check_no_gui.sh itself: it fails when ldd fails, prints nothing, lists no Qt Core or lists a Gui library, and
# passes only on a Qt Core program without them (a fake ldd first in PATH plays each case; then the real ldd on a
# file that is not an executable).
# usage: test_check_no_gui.sh CHECK_SCRIPT
set -uo pipefail
check=${1:?usage: test_check_no_gui.sh CHECK_SCRIPT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
core='	libQt6Core.so.6 => /usr/lib/x86_64-linux-gnu/libQt6Core.so.6 (0x00007f0000000000)'
gui='	libQt6Gui.so.6 => /usr/lib/x86_64-linux-gnu/libQt6Gui.so.6 (0x00007f0000000000)'

# expect STATUS(pass|fail) CASE FAKE_LDD_BODY: runs the check with a fake ldd whose script body is FAKE_LDD_BODY.
expect() {
    local want=$1 name=$2 body=$3
    mkdir -p "$work/$name"
    printf '#!/bin/sh\n%s\n' "$body" > "$work/$name/ldd"
    chmod +x "$work/$name/ldd"
    if PATH="$work/$name:$PATH" bash "$check" /some/binary > "$work/$name/log" 2>&1; then got=pass; else got=fail; fi
    if [ "$got" = "$want" ]; then
        echo "ok: $name: $got"
    else
        echo "WRONG: $name: expected $want, got $got"; cat "$work/$name/log"; failures=$((failures + 1))
    fi
}
expect fail ldd-fails "echo 'ldd: something went wrong' >&2; exit 1"
expect fail ldd-fails-after-listing "printf '%s\n' '$core'; exit 1"
expect fail ldd-prints-nothing "exit 0"
expect fail not-dynamic "echo '	not a dynamic executable'; exit 0"
expect fail no-qt-core "echo '	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f0000000000)'"
expect fail links-gui "printf '%s\n%s\n' '$core' '$gui'"
expect pass core-only "printf '%s\n' '$core'"

# The real ldd on a file that is not an executable (this script): the check must fail.
if bash "$check" "${BASH_SOURCE[0]}" > "$work/real.log" 2>&1; then
    echo "WRONG: real ldd on a shell script: the check passed"; cat "$work/real.log"; failures=$((failures + 1))
else
    echo "ok: real ldd on a shell script: fail ($(tail -n1 "$work/real.log"))"
fi
[ "$failures" -eq 0 ] || { echo "$failures case(s) wrong"; exit 1; }
