# Installs the SDK component of this build into a scratch prefix, builds
# sdk/examples/out_of_tree against it with find_package(HamiSDK), and checks
# that the plugin exports only hami_plugin_negotiate and loads in the host.
#
# cmake -DHAMI_BUILD_DIR=... -DEXAMPLE_DIR=... -DWORK_DIR=... -DLOAD_PLUGIN=...
#       [-DNM=nm] -P out_of_tree_test.cmake
foreach(var HAMI_BUILD_DIR EXAMPLE_DIR WORK_DIR LOAD_PLUGIN)
  if(NOT ${var})
    message(FATAL_ERROR "${var} is not set")
  endif()
endforeach()
if(NOT NM)
  set(NM nm)
endif()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
run("installing the SDK component"
    "${CMAKE_COMMAND}" --install "${HAMI_BUILD_DIR}" --component sdk --prefix "${prefix}")
foreach(installed include/hami/plugin.h include/hami/device.hpp)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "the SDK install lacks ${installed}")
  endif()
endforeach()

run("configuring the out-of-tree plugin"
    "${CMAKE_COMMAND}" -S "${EXAMPLE_DIR}" -B "${WORK_DIR}/build"
    "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Debug
    "-DCMAKE_CXX_FLAGS=-Wall -Wextra -Wpedantic -Wconversion -Wold-style-cast -Werror")
run("building the out-of-tree plugin" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")

set(plugin "${WORK_DIR}/build/example-policy.so")
if(NOT EXISTS "${plugin}")
  message(FATAL_ERROR "expected ${plugin}")
endif()
run("listing exported symbols" "${NM}" -D --defined-only "${plugin}")
string(REGEX MATCHALL "[^\n]+" lines "${run_output}")
set(exported "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^[0-9a-fA-F]* *[A-Za-z] " "" symbol "${line}")
  list(APPEND exported "${symbol}")
endforeach()
if(NOT exported STREQUAL "hami_plugin_negotiate")
  message(FATAL_ERROR "the plugin must export only hami_plugin_negotiate, exports: ${exported}")
endif()

run("loading the plugin in the host"
    "${LOAD_PLUGIN}" "${WORK_DIR}/build" example-policy.so scheduling)
if(NOT run_output STREQUAL "example-policy 1.0.0 scheduling node:emptiest\n")
  message(FATAL_ERROR "unexpected load summary: '${run_output}'")
endif()
message(STATUS "out-of-tree plugin built and loaded: ${run_output}")
