# cambricon.so's tests (cambricon_plugin_tests) and its fuzz targets.
add_executable(cambricon_plugin_tests
  cambricon_allocation_test.cpp
  cambricon_fit_test.cpp
  cambricon_test.cpp)
target_link_libraries(cambricon_plugin_tests PRIVATE hami_device_test_support GTest::gtest_main)
add_dependencies(cambricon_plugin_tests cambricon)
hami_target_defaults(cambricon_plugin_tests)
gtest_discover_tests(cambricon_plugin_tests DISCOVERY_TIMEOUT 30)
