"""Test-only failpoints: a real crash at a chosen moment, armed by an environment variable.

``FACTURADOR_TEST_KILL_AFTER_COMMIT=PATH``: the first issue (POST /api/documents, or of a guide) that
commits its document while the file PATH exists removes the file and kills its own process with SIGKILL
before it sends the document (or stores the guide's PDF) and answers, as a power cut or an OOM kill
would. Tests use it to show that nothing is left unsent (the pending sender finds the document) and that
a guide gets its PDF. Unset, as in any real deployment, it costs one check of a module constant per issue.
"""

from __future__ import annotations

import os
import signal

from sqlalchemy.exc import OperationalError

KILL_AFTER_COMMIT_ENV = "FACTURADOR_TEST_KILL_AFTER_COMMIT"
_KILL_AFTER_COMMIT = os.environ.get(KILL_AFTER_COMMIT_ENV) or None


def after_issue_commit() -> None:
    """Kill this process (SIGKILL) when the failpoint is armed and its trigger file exists (one shot)."""
    if _KILL_AFTER_COMMIT is None:
        return
    try:
        os.remove(_KILL_AFTER_COMMIT)
    except FileNotFoundError:
        return
    os.kill(os.getpid(), signal.SIGKILL)


KILL_AFTER_CLAIM_ENV = "FACTURADOR_TEST_KILL_AFTER_CLAIM"
_KILL_AFTER_CLAIM = os.environ.get(KILL_AFTER_CLAIM_ENV) or None


def after_send_claim() -> None:
    """``FACTURADOR_TEST_KILL_AFTER_CLAIM=PATH``: the first sender that claims a pending document while
    PATH exists removes it and kills its own process (SIGKILL) before sending, holding the job's lease
    and the document's claim (tests show another worker takes the job again). One shot."""
    if _KILL_AFTER_CLAIM is None:
        return
    try:
        os.remove(_KILL_AFTER_CLAIM)
    except FileNotFoundError:
        return
    os.kill(os.getpid(), signal.SIGKILL)


FAIL_AFTER_SEND_ENV = "FACTURADOR_TEST_FAIL_AFTER_SEND"
_FAIL_AFTER_SEND = os.environ.get(FAIL_AFTER_SEND_ENV) or None
#: What the trigger file of :func:`after_send` says to make the database look unreachable.
DATABASE_GONE = "database"


def after_send(document: str) -> None:
    """``FACTURADOR_TEST_FAIL_AFTER_SEND=PATH``: the first issue that has sent ``document`` (committed, then
    answered by the authority) while PATH exists removes it and fails before storing the answer: with
    ``database`` in PATH, as a database gone away does (``OperationalError``), else as a bug would
    (``RuntimeError``). One shot."""
    if _FAIL_AFTER_SEND is None:
        return
    try:
        with open(_FAIL_AFTER_SEND, encoding="utf-8") as trigger:
            kind = trigger.read().strip()
        os.remove(_FAIL_AFTER_SEND)
    except FileNotFoundError:
        return
    if kind == DATABASE_GONE:
        lost = ConnectionError(f"failpoint: the database went away after sending {document}")
        raise OperationalError("UPDATE documents", {}, lost)
    raise RuntimeError(f"failpoint: a bug after sending {document}")
