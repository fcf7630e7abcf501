"""Tollway edge: the data plane (authenticate → admit → redact → forward → emit)."""
