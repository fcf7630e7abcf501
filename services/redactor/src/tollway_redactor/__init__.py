"""Tollway redactor: PII detection and anonymisation service."""
