"""The worker dies with its client. The client (kmosaic, the workbench, the pool) reads the worker's stdout through a
pipe: when the client dies, even by SIGKILL, that pipe has no reader left, which poll() reports as POLLERR on the
worker's end (a client that only closed the worker's stdin, having sent its last request, still reads: it is not
gone). The worker checks for that wherever it waits (spawn's watch loop calls check() every 10-100 ms; its request
loop reads stdin, which ends too) and then ends what it started and exits, so no verification outlives the command
that asked for it. Children die with the worker (PR_SET_PDEATHSIG), and
every process a child started dies with the child (its PID namespace: sandbox.py).

A poll of stdin for POLLHUP alone, not a thread and not a signal: the worker stays single-threaded (it forks)."""
import os
import select

_on_exit = []  # callables that end what the worker started (children, background builds)
_enabled = False


def watch_client(on_exit=()):
    """Called by the worker once it serves a client over its stdin and stdout."""
    global _enabled
    _enabled = True
    _on_exit.extend(on_exit)


def gone():
    """Whether the client is gone (nothing reads the worker's stdout any more)."""
    if not _enabled:
        return False
    p = select.poll()
    p.register(1, 0)  # no events asked for: POLLERR (no reader left) and POLLHUP are reported anyway
    try:
        ready = p.poll(0)
    except InterruptedError:
        return False
    return any(ev & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, ev in ready)


def check():
    if gone():
        end()


def end():
    """Ends everything the worker started, then the worker."""
    for fn in _on_exit:
        try:
            fn()
        except Exception:  # noqa: BLE001 - leaving is all that is left to do
            pass
    os._exit(75)  # the children follow: PR_SET_PDEATHSIG
