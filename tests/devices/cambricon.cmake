# cambricon.so's tests (cambricon_plugin_tests) and its fuzz targets.
add_executable(cambricon_plugin_tests
  cambricon_allocation_test.cpp
  cambricon_fit_test.cpp
  cambricon_test.cpp)
target_link_libraries(cambricon_plugin_tests PRIVATE hami_device_test_support GTest::gtest_main)
add_dependencies(cambricon_plugin_tests cambricon)
hami_target_defaults(cambricon_plugin_tests)
gtest_discover_tests(cambricon_plugin_tests DISCOVERY_TIMEOUT 30)

# The capacity decoder is new code; the allocation strings use the standard
# codec, which device_allocation_decoder already fuzzes.
set(_cambricon ${PROJECT_SOURCE_DIR}/plugins/devices/cambricon)
hami_device_fuzz(cambricon_capacity CORPUS corpus_cambricon_capacity SOURCES
  fuzz/cambricon_capacity_fuzz.cpp ${_cambricon}/cambricon_node.cpp
  ${_common}/request_values.cpp ${_common}/text.cpp)
foreach(t cambricon_capacity_regress cambricon_capacity_fuzz)
  if(TARGET ${t})
    target_include_directories(${t} PRIVATE ${_cambricon})
  endif()
endforeach()
