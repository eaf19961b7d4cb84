"""Zephyr integration: read a build's .config and devicetree, turn the usmp
Kconfig options into pools and an algorithm, and place pools in devicetree
memory regions. Nothing here imports Zephyr unless an edt.pickle is read.
"""
