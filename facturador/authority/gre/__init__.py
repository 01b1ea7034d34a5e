"""SUNAT's GRE REST API for dispatch guides (09 remitente, 31 transportista): the simulator and the client.

- :mod:`.rules`: SUNAT's GRE rules on a ``DespatchAdvice`` (codes of its GRE stylesheets);
- :mod:`.simulator`: :class:`GreSimulator`, tokens, reception and tickets;
- :mod:`.app`: the simulator as an ASGI application (``create_gre_app``), mountable or standalone;
- :mod:`.client`: :class:`GreClient`, the gateway the service sends guides through over HTTP (to the
  simulator by default, to SUNAT by configuration).
"""
