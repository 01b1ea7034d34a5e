"""The gateway to the tax authority and its default implementation, a local SUNAT simulator.

- :mod:`.gateway`: :class:`AuthorityGateway` (what the service calls) and :class:`AuthorityResponse`;
- :mod:`.packaging`: zip a document as SUNAT expects it and read zips back (01xx errors);
- :mod:`.cdr`: build and read CDRs (``ApplicationResponse``);
- :mod:`.registry`: SUNAT's memory of received documents (:class:`Registry`, in-memory implementation);
- :mod:`.simulator`: :class:`SunatSimulator`, ``sendBill`` (CDRs, registry, duplicates) and the ticket
  flow of summaries (``sendSummary`` / ``getStatus``);
- :mod:`.rules`: SUNAT's checks and codes for ``sendBill``, one module per thing they check, and the
  one ordered list of them (``rules.CHECKS``);
- :mod:`.tickets`: SUNAT's tickets (:class:`TicketStore`) and its rules for daily summaries (RC) and voided
  communications (RA);
- :mod:`.dsig`: a fast verification path for SUNAT-profile signatures used by the simulator.
"""
