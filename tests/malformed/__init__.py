"""A seeded corpus of damaged models, and the worker that compiles them under limits."""
