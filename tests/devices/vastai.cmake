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

# Fuzz targets: the attributes text vastai.so keeps per device, and the path
# from a (die-mode) registration to that text.
set(_vastai ${PROJECT_SOURCE_DIR}/plugins/devices/vastai)
hami_device_fuzz(vastai_attributes_decoder CORPUS corpus_vastai_attributes SOURCES
  fuzz/vastai_attributes_fuzz.cpp ${_vastai}/vastai_die.cpp ${_common}/node_register.cpp
  ${_common}/text.cpp)
hami_device_fuzz(vastai_register_decoder CORPUS corpus_vastai_register SOURCES
  fuzz/vastai_register_fuzz.cpp ${_vastai}/vastai_die.cpp ${_common}/node_register.cpp
  ${_common}/text.cpp)
foreach(_t vastai_attributes_decoder vastai_register_decoder)
  foreach(_bin ${_t}_regress ${_t}_fuzz)
    if(TARGET ${_bin})
      target_include_directories(${_bin} PRIVATE ${_vastai})
    endif()
  endforeach()
endforeach()
