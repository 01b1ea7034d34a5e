"""Sample data of the tests, written by us: one place for every test package.

``tenants`` (the live service's tenants), ``bodies`` (API request bodies, from ``tests/data``),
``documents`` (the service's document model, for the UBL and render tests) and ``ubl_xml``
(hand-written UBL for the simulator tests). SUNAT's own published files are reached through
``tests/reference.py`` instead.
"""
