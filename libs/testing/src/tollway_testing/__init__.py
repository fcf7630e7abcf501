"""Tollway's test kit: fixtures for real Postgres, Valkey and Kafka, and a fake provider.

The pytest plugin (``tollway_testing.pytest_plugin``) is registered through the
``pytest11`` entry point, so its fixtures are available in every test of the
workspace without a conftest import.
"""
