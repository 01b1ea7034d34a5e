"""Unit tests of the tax domain (``facturador.sunat``)."""
