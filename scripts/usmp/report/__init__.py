"""Showing a plan and what a model costs: JSON documents, terminal tables, SVG charts, MACs per operator,
the per-operator profile table and the report page (page/)."""
