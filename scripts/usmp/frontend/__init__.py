"""Import stage: model files into the graph IR."""
from usmp.frontend.tflite_reader import read_tflite

__all__ = ["read_tflite"]
