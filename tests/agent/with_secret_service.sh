#!/bin/sh
# Runs COMMAND on a private D-Bus session bus with a fresh gnome-keyring (Secret Service only), unlocked, in a
# throwaway HOME: what the keychain tests need, headless (no X display), and never the user's own keyring.
# Usage: with_secret_service.sh COMMAND [ARGS...]   (exit status: COMMAND's, or 1 when the keyring did not start)
set -eu
scratch=$(mktemp -d "${TMPDIR:-/tmp}/kmosaic-keyring.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export HOME="$scratch/home"
export XDG_DATA_HOME="$HOME/.local/share" XDG_CONFIG_HOME="$HOME/.config" XDG_CACHE_HOME="$HOME/.cache"
export XDG_RUNTIME_DIR="$scratch/run"  # gnome-keyring's control socket
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
unset DISPLAY WAYLAND_DISPLAY GNOME_KEYRING_CONTROL
export KMOSAIC_TEST_PRIVATE_KEYRING=1  # the tests refuse to write to a keyring without it

status=0
dbus-run-session -- sh -eu -c '
    # --unlock reads the password of the login keyring (created on first use) from stdin; it becomes the default
    # collection, where QtKeychain stores its entries.
    printf "%s" "throwaway-test-password" |
        gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null &
    keyring=$!
    # Wait until it owns org.freedesktop.secrets: a client asking earlier would have D-Bus start a second daemon.
    tries=0
    until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
              org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true"; do
        tries=$((tries + 1))
        if [ "$tries" -ge 200 ] || ! kill -0 "$keyring" 2>/dev/null; then
            echo "with_secret_service.sh: gnome-keyring-daemon did not come up on the private bus" >&2
            kill "$keyring" 2>/dev/null || true
            exit 1
        fi
        sleep 0.05
    done
    rc=0
    "$@" || rc=$?
    kill "$keyring" 2>/dev/null || true
    wait "$keyring" 2>/dev/null || true
    exit "$rc"
' with_secret_service "$@" || status=$?
exit "$status"
