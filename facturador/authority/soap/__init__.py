"""SUNAT's SOAP services: the protocol both sides share, the client that sends a tenant's documents to
SUNAT or an OSE, and the simulator's SOAP endpoint (see ``docs/going_live.md``)."""
