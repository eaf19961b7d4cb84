"""`usmp` command line: a thin layer over the library.

Each subcommand is a module in usmp.commands. Errors a user can cause are one
line on stderr and exit status 2; no traceback reaches the terminal unless
USMP_DEBUG=1 asks for it.
"""
from __future__ import annotations

import argparse
import os
import sys

from usmp import __version__, progress
from usmp.commands import all_commands
from usmp.errors import UsmpError


def build_parser(prog: str = "usmp") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description="Compile TensorFlow Lite models to plain C with a unified static memory planner.")
    parser.add_argument("--version", action="version", version=f"usmp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for command in all_commands():
        command_parser = sub.add_parser(command.NAME, help=command.HELP, description=command.HELP)
        command.add_arguments(command_parser)
        command_parser.set_defaults(handler=command.run)
    return parser


def main(argv: list[str] | None = None, prog: str = "usmp") -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        status = int(args.handler(args) or 0)
        progress.clear()
        return status
    except UsmpError as exc:
        progress.clear()
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        progress.clear()
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug in usmp: still one line, with a way to see more
        if os.environ.get("USMP_DEBUG"):
            raise
        progress.clear()
        print(f"{prog}: internal error: {type(exc).__name__}: {exc} (set USMP_DEBUG=1 for details)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
