"""`west usmp`: the usmp command line inside a west workspace.

A thin WestCommand: the subcommands (compile, run, check, plan, ...) and their
options are the usmp package's own. It adds one convenience: when no
-d/--build-dir, --dotconfig or --pool is given, pools and the algorithm come
from ./build (west's default build directory) when it holds a Zephyr build,
else from ./prj.conf when that enables usmp.
"""
from __future__ import annotations

import sys
from pathlib import Path

from west.commands import WestCommand

SCRIPTS_DIR = Path(__file__).resolve().parents[1]  # where the usmp package lives
if str(SCRIPTS_DIR) not in sys.path:
    sys.path.insert(0, str(SCRIPTS_DIR))

ZEPHYR_AWARE = ("compile", "plan", "report")
EXPLICIT_SOURCES = ("-d", "--build-dir", "--dotconfig", "--devicetree", "--pool")


class UsmpCommand(WestCommand):
    def __init__(self):
        super().__init__(
            "usmp", "check, compile and plan TensorFlow Lite models with usmp",
            "Runs the usmp command line (see `west usmp --help`). With -d BUILD, or inside an "
            "application whose ./build exists, pools and the planning algorithm come from the "
            "build's CONFIG_USMP_* options and devicetree.",
            accepts_unknown_args=True)

    def do_add_parser(self, parser_adder):
        parser = parser_adder.add_parser(self.name, help=self.help, description=self.description,
                                         add_help=False)
        return parser

    def do_run(self, args, unknown_args):
        try:
            from usmp.cli import main
        except ImportError as exc:  # the Python running west lacks the compiler's packages
            self.die(f"cannot load the usmp package from {SCRIPTS_DIR} ({exc}); "
                     f"install its dependencies: {sys.executable} -m pip install tflite numpy jinja2 pyyaml")
        argv = with_default_build_dir(list(unknown_args), Path.cwd())
        status = main(argv, prog="west usmp")
        if status:
            sys.exit(status)


def with_default_build_dir(argv: list[str], cwd: Path) -> list[str]:
    """For compile/plan/report with nothing said about pools: `-d build` when ./build is a Zephyr
    build (sysbuild too), else `--dotconfig prj.conf` when ./prj.conf enables usmp."""
    if not argv or argv[0] not in ZEPHYR_AWARE:
        return argv
    if any(a == opt or a.startswith(opt + "=") for a in argv for opt in EXPLICIT_SOURCES):
        return argv
    build = cwd / "build"
    if (build / "zephyr" / ".config").is_file() or any(build.glob("*/zephyr/.config")):
        return argv + ["-d", str(build)]
    prj_conf = cwd / "prj.conf"
    if prj_conf.is_file() and "CONFIG_USMP=y" in prj_conf.read_text().split():
        return argv + ["--dotconfig", str(prj_conf)]
    return argv
