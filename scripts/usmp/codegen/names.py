"""C identifiers from arbitrary tensor and model names."""
import re

_C_KEYWORDS = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
    "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
    "volatile", "while", "_Bool", "_Complex", "_Imaginary",
}


def c_text(name: str) -> str:
    """A tensor name safe inside a C comment or string literal: no */, /*, quotes, escapes or trigraphs."""
    return re.sub(r"[^0-9A-Za-z_:/.#+ -]", "_", name)


def c_identifier(text: str, max_length: int = 48) -> str:
    ident = re.sub(r"[^0-9A-Za-z]+", "_", text).strip("_").lower()
    if len(ident) > max_length:  # long TF names: keep the informative tail
        ident = ident[-max_length:].lstrip("_")
    if not ident or ident[0].isdigit() or ident in _C_KEYWORDS:
        ident = f"t_{ident}"
    return ident
