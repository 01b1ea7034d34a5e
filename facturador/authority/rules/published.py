"""SUNAT's published stylesheets, when the tenant's ``authority_rules_dir`` points at them.

:func:`stylesheets` runs the stylesheet of the document's type
(:class:`~facturador.authority.stylesheets.SunatStylesheets`, given to the simulator; nothing runs when
there is none): its first rejection is the answer, with SUNAT's code and the stylesheet's detail, and
its observations join the CDR's notes. The simulator's own business rules still run after it, for what
only the simulator can decide (SUNAT's registries, the sending window) and where it is stricter.
"""

from __future__ import annotations

from facturador.authority.rules.context import Answer, Submission, note

__all__ = ["stylesheets"]


def stylesheets(doc: Submission) -> None:
    """SUNAT's own answer to the document (see the module doc)."""
    if doc.stylesheets is None:
        return
    verdict = doc.stylesheets.check(doc.file.doc_type, doc.xml, f"{doc.file.name}.xml", doc.today())
    if verdict.rejection is not None:
        raise Answer(verdict.rejection.code, verdict.rejection.detail)
    for finding in verdict.observations:
        observation = note(finding.code)
        if observation not in doc.notes:
            doc.notes.append(observation)
