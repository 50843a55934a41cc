"""Line-based JSON framing: one object per line on stdout; nothing else may be written there."""
import json
import math
import os
import sys


def _clean(value):
    """JSON has no NaN/Inf: they travel as strings so that a verdict about a NaN output still parses."""
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def dumps(obj):
    return json.dumps(_clean(obj), separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class Channel:
    """Owns the real stdout as the protocol channel; sys.stdout is pointed at stderr so a stray print cannot
    corrupt the stream."""

    def __init__(self):
        self._out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8", buffering=1)
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
        sys.stdout = sys.stderr
        self._in = sys.stdin

    def send(self, obj):
        self._out.write(dumps(obj) + "\n")
        self._out.flush()

    def requests(self):
        """Yields (request or None, error message) for every line of stdin until it closes."""
        for line in self._in:
            line = line.strip()
            if not line:
                continue
            try:
                req = json.loads(line)
            except ValueError as e:
                yield None, f"the line is not JSON: {e}"
                continue
            if not isinstance(req, dict):
                yield None, "a request must be a JSON object"
                continue
            yield req, ""
