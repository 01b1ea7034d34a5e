"""Unit tests of the tax domain (``sunat``)."""
