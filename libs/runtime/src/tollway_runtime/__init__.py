"""Tollway's shared runtime kit (settings base, logging, health, limits)."""
