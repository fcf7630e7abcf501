"""Tollway's benchmark harness: Tollway beside LiteLLM and Portkey on one machine (issue 6).

Run everything with `uv run --no-sync python -m bench` or `bash bench/run.sh`.
"""
