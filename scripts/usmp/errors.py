"""One exception type for everything a user can cause.

The CLI turns a UsmpError into a one-line message and exit status 2; anything
else is a bug in usmp and is reported as such (still without a traceback).
"""


class UsmpError(Exception):
    """A problem with the user's input: model, options, pools or environment."""


class ModelError(UsmpError):
    """The model file is corrupt, truncated or uses something unsupported."""


class PlanError(UsmpError):
    """The buffers cannot be placed in the pools (for example: they do not fit)."""


class ToolError(UsmpError):
    """An external tool (C compiler, emulator) is missing or failed."""
