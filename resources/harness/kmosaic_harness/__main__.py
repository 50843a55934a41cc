"""Entry point: `python3 -m kmosaic_harness worker` serves the protocol on stdin/stdout."""
import sys

from .worker import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
