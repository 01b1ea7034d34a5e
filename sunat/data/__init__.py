"""Data files of the tax domain (read through :mod:`importlib.resources`)."""
