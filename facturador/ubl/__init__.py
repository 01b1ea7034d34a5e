"""UBL 2.1 / SUNAT XML of the issuing service.

- :mod:`.invoice`: ``build_sales_document`` (facturas, boletas, credit and debit notes),
  ``build_and_sign`` -> ``SignedXml``, and ``prepare_sales_document`` -> ``PreparedDocument`` (built
  and serialized before the correlative is known, signed with it later); section builders in
  :mod:`.parts`.
- :mod:`.summaries`: SUNAT UBL 2.0 daily summaries (``SummaryDocuments``) and voided communications
  (``VoidedDocuments``), ``sign_summary``.
- :mod:`.signing`: enveloped XML-DSig (``sign``, or ``prepare`` then ``UnsignedXml.sign``), signing
  identities, verification.
- :mod:`.xsd`: validation against the XSDs shipped in ``xsd/`` (UBL 2.1 and SUNAT UBL 2.0).
- :mod:`.namespaces`: namespace constants and Clark-name helpers.
"""
