"""The demo: a tenant filled with realistic documents, issued through the connector like any client.

:mod:`demo.seeding` is the generator behind ``facturador seed`` and ``facturador demo``. The demo sits
beside the service, not inside it: it talks to the service over HTTP with :mod:`connector`, and the
service never imports it; the CLI (``facturador/cli.py``) is where the two are put together.
"""
