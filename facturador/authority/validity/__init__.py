"""SUNAT's *consulta integrada de validez de CPE* API, simulated (``docs/validity.md``).

- :mod:`.simulator`: :class:`~.simulator.ValiditySimulator`, tokens (``client_credentials``), the query
  answered from the authority's :class:`~facturador.authority.registry.Registry`, its errors and its
  throttling (a token bucket per client, HTTP 429 with ``Retry-After``);
- :mod:`.app`: the simulator as an ASGI application, mounted by ``facturador serve`` at ``/validez`` and
  served by ``facturador sunat`` beside the SOAP services.
"""
