#!/bin/sh
# Copies what the kmosaic binary needs beyond glibc into device-libs/ (ignored), so that it runs on the GPU machine,
# which has no Qt: Qt Core/Sql, ICU, their helpers, libcurl's tree, and the SQLite driver plugin.
# Usage: tests/gpu/bundle_libs.sh BUILD_DIR
# The tree is packed into device-pack/libs.tar.xz (ignored, ~15 MB): carry ["device-pack"] and begin the device
# command with `tar xJf device-pack/libs.tar.xz` (the unpacked tree, ~65 MB, is over the device tool's 64 MiB).
set -eu
build=${1:?usage: bundle_libs.sh BUILD_DIR}
out=device-libs
rm -rf "$out"
mkdir -p "$out/lib" "$out/plugins/sqldrivers" "$out/bin"
cp "$build/bin/kmosaic" "$out/bin/"
strip --strip-debug "$out/bin/kmosaic"
plugin=$(find /usr/lib/x86_64-linux-gnu/qt6/plugins/sqldrivers -name libqsqlite.so | head -1)
cp -L "$plugin" "$out/plugins/sqldrivers/"
for f in "$build/bin/kmosaic" "$plugin"; do
  ldd "$f" | awk '/=> \// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libstdc++.so*|libgcc_s.so*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
du -sh "$out"
mkdir -p device-pack
tar cJf device-pack/libs.tar.xz "$out"
du -sh device-pack/libs.tar.xz
