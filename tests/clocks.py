"""The fixed clocks of the date-sensitive tests, and the test files run once more at each of them.

``FACTURADOR_CLOCK`` (sunat.calendar) fixes Lima's clock for a process and the processes it starts. A test
asking for the ``fixed_clock`` fixture (tests/conftest.py) runs at each of :data:`FIXED_CLOCKS` in every
run; the files of :data:`DATE_SENSITIVE_FILES`, whose session-wide documents are dated from the day the
session starts, run whole once more at each of them (``scripts/test.sh`` does it after the SQLite run:
``python -m tests.clocks`` prints what it needs).
"""

from __future__ import annotations

#: Lima instants (name: ISO 8601): the first day of a month, the last day of a month at 23:30 (already
#: the next day, and month, in UTC), New Year's Eve at 23:30 and New Year's Day. Each lies away from any
#: real day a test runs on, so a test reading the machine's clock instead of sunat.calendar's fails.
FIXED_CLOCKS = {
    "month-start": "2027-03-01T09:00:00-05:00",
    "month-end-2330": "2027-04-30T23:30:00-05:00",
    "new-years-eve-2330": "2027-12-31T23:30:00-05:00",
    "new-year": "2028-01-01T00:30:00-05:00",
}

#: Files whose outcome turns on the day, through documents issued for the whole session or a module's
#: ``TODAY``: month boundaries (the register, periods, receivables), SUNAT's deadlines (summaries,
#: voiding, reversions), the simulated SUNAT's date rules, the demo's seeding over past days.
DATE_SENSITIVE_FILES = (
    "tests/dashboard/test_pages.py",
    "tests/dashboard/test_store_pages.py",
    "tests/connector/test_lists.py",
    "tests/connector/test_analyst_lists.py",
    "tests/connector/test_seeding.py",
    "tests/facturador/api/test_summaries.py",
    "tests/facturador/api/test_voided.py",
    "tests/facturador/api/test_retentions.py",
    "tests/facturador/authority/test_authority_simulator.py",
    "tests/facturador/authority/test_tickets.py",
    "tests/plugins/test_blocks.py",
    "tests/sunat/test_calendar.py",
)

if __name__ == "__main__":  # for scripts/test.sh: "clock NAME INSTANT" and "file PATH" lines
    for name, instant in FIXED_CLOCKS.items():
        print("clock", name, instant)
    for path in DATE_SENSITIVE_FILES:
        print("file", path)
