#!/usr/bin/env bash
# Builds the Debian package from a build tree and checks it: contents, dependencies, and that the programs run,
# from the extracted tree always, and really installed with dpkg when running as root.
# usage: check_deb.sh BUILD_DIR WORK_DIR WITH_UI(0|1)
set -euo pipefail
build=$1 work=$2 with_ui=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work" > "$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack failed"; }
deb=$(ls "$work"/kmosaic_*.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || fail "no kmosaic_*.deb in $work"
echo "package: $(basename "$deb") ($(du -h "$deb" | cut -f1))"

info=$(dpkg-deb -I "$deb")
depends=$(printf '%s\n' "$info" | sed -n 's/^ Depends: //p')
echo "Depends: $depends"
for lib in libqt6core6 libqt6sql6 libqt6sql6-sqlite; do
    printf '%s' "$depends" | grep -q "$lib" || fail "Depends lacks $lib"
done
contents=$(dpkg-deb -c "$deb")
expect=(./usr/bin/kmosaic ./usr/share/kmosaic/tasks/softmax-rows/task.toml)
[ "$with_ui" = 1 ] && expect+=(./usr/bin/kmosaic-workbench ./usr/share/applications/kmosaic-workbench.desktop)
for f in "${expect[@]}"; do
    printf '%s\n' "$contents" | grep -q " $f\$" || fail "package lacks $f"
done
ntasks=$(printf '%s\n' "$contents" | grep -c '/usr/share/kmosaic/tasks/[^/]*/task.toml$' || true)
[ "$ntasks" -ge 40 ] || fail "package holds $ntasks tasks, expected at least 40"

# The extracted tree runs: version, and an import of the packaged tasks into a fresh store.
dpkg-deb -x "$deb" "$work/root"
"$work/root/usr/bin/kmosaic" --version | grep -q '^kmosaic ' || fail "extracted kmosaic --version"
"$work/root/usr/bin/kmosaic" --db "$work/extracted.sqlite" import "$work/root/usr/share/kmosaic/tasks" --quiet \
    | grep -q " $ntasks new, 0 updated, 0 unchanged, 0 skipped, 0 error" || fail "import of the packaged tasks"

if [ "$(id -u)" -ne 0 ]; then
    echo "not root: dpkg -i skipped; the extracted package runs"
    exit 0
fi
if dpkg-query -W -f='${Status}' kmosaic 2>/dev/null | grep -q 'install ok installed'; then
    echo "a kmosaic package is already installed here: dpkg -i skipped to leave it alone"
    exit 0
fi
trap 'dpkg -r kmosaic > /dev/null 2>&1 || true' EXIT
dpkg -i "$deb" > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i failed"; }
/usr/bin/kmosaic --version | grep -q '^kmosaic ' || fail "installed kmosaic --version"
XDG_DATA_HOME="$work/xdg" KMOSAIC_DB= /usr/bin/kmosaic tasks list > /dev/null || fail "installed kmosaic tasks list"
[ -f "$work/xdg/kmosaic/kmosaic.sqlite" ] || fail "installed kmosaic did not create the store in the XDG data folder"
if [ "$with_ui" = 1 ]; then
    QT_QPA_PLATFORM=offscreen /usr/bin/kmosaic-workbench --version | grep -q 'kmosaic-workbench' || fail "installed kmosaic-workbench --version"
fi
echo "installed with dpkg, ran, removed"
