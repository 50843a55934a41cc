#!/usr/bin/env bash
# Layering on the real binary: BINARY links Qt Core (so ldd did read it) and none of Qt's Gui-side libraries.
# Fails when ldd fails, prints nothing, or lists no libQt6Core: a check that cannot see the libraries passes nothing.
# usage: check_no_gui.sh BINARY
set -uo pipefail
bin=${1:?usage: check_no_gui.sh BINARY}
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$(ldd "$bin" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || fail "ldd $bin exited with status $rc"
[ -n "$out" ] || fail "ldd $bin printed nothing"
printf '%s\n' "$out" | grep -q 'libQt6Core\.so' || fail "ldd $bin lists no libQt6Core: not the dynamic Qt program expected"
gui=$(printf '%s\n' "$out" | grep -E 'libQt6(Gui|Widgets|OpenGL|PrintSupport)' || true)
[ -z "$gui" ] || fail "$bin links Qt's Gui side: $gui"
echo "ok: $bin links Qt Core and no Gui, Widgets, OpenGL or PrintSupport"
