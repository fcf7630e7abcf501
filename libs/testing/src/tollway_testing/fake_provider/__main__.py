"""``python -m tollway_testing.fake_provider``: run the fake provider (what infra/up.sh starts)."""

from tollway_testing.fake_provider.app import main

main()
