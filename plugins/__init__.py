"""Built-in scenario plugins of the connector, registered on every client by import path
(:data:`connector.plugins.DEFAULT_PLUGINS`).

* :mod:`plugins.detraction` — detraction (SPOT): operation 1001, ``detraccion`` block,
  legend 2006;
* :mod:`plugins.instalments` — sales on credit: ``codigo_condicion_de_pago`` 02 and ``cuotas``.

Each is a module of ``@hookimpl`` functions, exactly like a tenant's own plugin (``docs/plugin_hooks.md``).
Plugins import the connector (and ``sunat``), never the service.
"""
