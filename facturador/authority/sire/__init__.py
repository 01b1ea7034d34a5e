"""SUNAT's SIRE REST API for the sales register (RVIE), simulated.

- :mod:`.simulator`: :class:`~.simulator.SireSimulator`: tokens, periods, the proposal (with injectable
  mismatches), tickets, acceptance, TUS imports, the preliminar and its summary;
- :mod:`.app`: the simulator as an ASGI application (``create_sire_app``), mounted by ``facturador serve``
  and ``facturador sunat`` beside the SOAP services and the GRE API.

The client (the accountant's side) is :mod:`connector.sire`.
"""
