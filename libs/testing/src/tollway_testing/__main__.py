from tollway_testing.fake_provider.app import main

main()
