"""Showing a plan: JSON documents, SVG pictures and terminal tables."""
