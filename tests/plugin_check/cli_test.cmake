# hami-plugin-check from the command line: exit 0 and PASSED for nvidia.so
# and a plugin built against ABI 1.0, 1 with each failure spelled out for a
# broken plugin and a 1.1 liar, 2 for files that are not plugins; the worst
# status of several files wins.
foreach(var TOOL NVIDIA BROKEN LIAR_1_1 VINTAGE_1_0 NOT_A_PLUGIN NO_ENTRY)
  if(NOT ${var})
    message(FATAL_ERROR "${var} is not set")
  endif()
endforeach()

function(check_tool expected_rc)
  execute_process(COMMAND "${TOOL}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 100)
  if(NOT rc STREQUAL "${expected_rc}")
    message(FATAL_ERROR "hami-plugin-check ${ARGN}: exit ${rc}, expected ${expected_rc}\n${out}\n${err}")
  endif()
  set(tool_output "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect_in needle)
  string(FIND "${tool_output}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "'${needle}' not in the output:\n${tool_output}")
  endif()
endfunction()

check_tool(0 "${NVIDIA}")
expect_in("name    nvidia ")
expect_in("PASS  device-allocation-round-trip ")
expect_in(" 0 failed")
expect_in("result  PASSED")

# Built against ABI 1.0: every check passes, the 1.1 one does not apply.
check_tool(0 "${VINTAGE_1_0}")
expect_in("name    vintage 1.0.0 (device plugin, ABI 1.0, concurrent calls: no)")
expect_in("SKIP  device-abi-1-1 ")
expect_in(" 0 failed")
expect_in("result  PASSED")

check_tool(1 "${LIAR_1_1}")
expect_in("FAIL  device-abi-1-1 ")
expect_in("      - describe: cores_unit 7 is neither HAMI_CORES_PERCENT (0) nor HAMI_CORES_COUNT (1)")
expect_in("result  FAILED")

check_tool(1 "${BROKEN}")
expect_in("FAIL  bad-config-rejected ")
expect_in("      - create accepted the config [] (HAMI-PLUGIN-9)")
expect_in("FAIL  device-describe ")
expect_in("      - describe: empty vendor")
expect_in("      - crashed with signal 6 (Aborted)")
expect_in("result  FAILED")

check_tool(1 --quiet "${BROKEN}")
expect_in("${BROKEN}: FAIL device-describe: describe: empty vendor")

check_tool(2 "${NOT_A_PLUGIN}")
expect_in("cannot be opened as a shared library")
expect_in("result  NOT LOADED")

check_tool(2 "${NO_ENTRY}")
expect_in("exports no hami_plugin_negotiate")

# Several files: every report, and the worst status.
check_tool(2 "${NVIDIA}" "${BROKEN}" "${NO_ENTRY}")
expect_in("result  PASSED")
expect_in("result  FAILED")
expect_in("result  NOT LOADED")
check_tool(1 "${NVIDIA}" "${BROKEN}")

check_tool(2)
expect_in("usage: hami-plugin-check")
check_tool(2 --bogus "${NVIDIA}")
expect_in("unknown option --bogus")
check_tool(0 --help)
message(STATUS "hami-plugin-check: exit codes and reports as expected")
