"""State stage: resource variables and variable tensors become state buffers.

TFLite Micro keeps a model's state (tf.Variable ring buffers of streaming
models, the state inputs of SVDF and LSTM) in a persistent arena it fills at
run time. Here every variable is resolved at compile time into one buffer of
kind "state": VAR_HANDLEs are matched by container and shared name, the
initialiser subgraph becomes the buffer's initial contents, and reads and
writes become plain buffer accesses (views where that is safe). The planner
puts state buffers in pools of kind `state`, live at every step.
"""
from usmp.state.variables import StatePlan, StateVariable, resolve_state

__all__ = ["StatePlan", "StateVariable", "resolve_state"]
