from tollway_testing.fake_provider import main

main()
