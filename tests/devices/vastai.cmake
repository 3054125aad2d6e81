# vastai.so: its test program (HAMi's Vastai tests through the ABI, and the
# die-mode logic) and the fuzz targets of its decoders.
add_executable(vastai_plugin_tests
  vastai_die_test.cpp
  vastai_test.cpp)
# The die-mode helper best_combination is also tested directly, as HAMi's
# TestComputeBestCombination tests computeBestCombination.
target_link_libraries(vastai_plugin_tests PRIVATE hami_device_test_support hami_vastai_logic
  GTest::gtest_main)
add_dependencies(vastai_plugin_tests vastai)
hami_target_defaults(vastai_plugin_tests)
gtest_discover_tests(vastai_plugin_tests DISCOVERY_TIMEOUT 30)
