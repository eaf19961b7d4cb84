"""Emit stage: the planned program as C source from the Jinja2 templates."""
from usmp.codegen.emit import emit_library, write_files
from usmp.codegen.layout import Layout, make_layout

__all__ = ["Layout", "emit_library", "make_layout", "write_files"]
