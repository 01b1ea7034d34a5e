"""The Peruvian tax domain as pure code: catalogs, money and rounding, totals, amount in words,
identity documents (RUC/DNI) and series rules. No I/O, no HTTP.

Modules: ``catalogs`` (SUNAT code lists and response messages), ``money`` (Decimal parsing and half-up
rounding), ``rates`` (IGV/ICBPER by date), ``totals`` (line and header amounts, SUNAT's checks),
``words`` (legend 1000), ``identity`` (RUC/DNI), ``series`` (series, numbers, sending groups),
``ubigeo`` (INEI district codes) and ``detraction`` (the SPOT amount of a factura).
"""
