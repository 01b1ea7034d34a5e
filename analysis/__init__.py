"""The analyst's figures, beside the connector: what a month's documents add up to and what needs doing.

* :mod:`analysis.sales` — sales figures in :class:`~decimal.Decimal` from listed rows (credit notes
  subtract, voided and rejected documents are out, currencies never added);
* :mod:`analysis.register` — the month's Registro de Ventas e Ingresos (PLE 14.1/14.2, SIRE RVIE,
  Excel): :func:`analysis.register.sales_register` builds it from a tenant;
* :mod:`analysis.igv` — the sales boxes of the month's Formulario Virtual 621 (PDT 621), from the same
  month's register lines;
* :mod:`analysis.receivables` — the credit instalments, due and overdue, by customer and age;
* :mod:`analysis.alerts` — what needs the accountant's attention today.

They read what :class:`connector.Client` lists and do no HTTP of their own (the register asks the
client for the notes' XML). The dashboard and the notebooks import them; they import the connector;
the connector never imports them.
"""
