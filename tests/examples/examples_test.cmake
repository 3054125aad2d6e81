# Installs the SDK component of this build into a scratch prefix, builds
# examples/ (a scheduling policy and a device plugin) against it with
# find_package(HamiSDK), checks that each plugin exports only
# hami_plugin_negotiate, loads both in the host with a config naming them
# (--list-plugins and --check-config), and runs hami-plugin-check on them.
#
# cmake -DHAMI_BUILD_DIR=... -DEXAMPLES_DIR=... -DWORK_DIR=... -DHOST=...
#       -DPLUGIN_CHECK=... [-DNM=nm] -P examples_test.cmake
foreach(var HAMI_BUILD_DIR EXAMPLES_DIR WORK_DIR HOST PLUGIN_CHECK)
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

function(expect_in haystack needle what)
  string(FIND "${haystack}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: '${needle}' not found in:\n${haystack}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
run("installing the SDK component"
    "${CMAKE_COMMAND}" --install "${HAMI_BUILD_DIR}" --component sdk --prefix "${prefix}")
foreach(installed include/hami/plugin.h include/hami/device.hpp include/hami/scheduling.hpp
                  lib/cmake/HamiSDK/HamiSDKConfig.cmake)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "the SDK install lacks ${installed}")
  endif()
endforeach()

# Nothing from the source tree or the build may leak in: only the prefix.
run("configuring the examples"
    "${CMAKE_COMMAND}" -S "${EXAMPLES_DIR}" -B "${WORK_DIR}/build"
    "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Debug
    "-DCMAKE_CXX_FLAGS=-Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wold-style-cast -Wshadow -Werror")
run("building the examples" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")

# A plugin folder as an installation has it: 0755 directory, 0644 files.
set(plugins "${WORK_DIR}/plugins")
file(MAKE_DIRECTORY "${plugins}")
foreach(plugin example-policy.so example-device.so)
  set(built "${WORK_DIR}/build/${plugin}")
  if(NOT EXISTS "${built}")
    message(FATAL_ERROR "expected ${built}")
  endif()
  run("listing the symbols of ${plugin}" "${NM}" -D --defined-only "${built}")
  string(REGEX MATCHALL "[^\n]+" lines "${run_output}")
  set(exported "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[0-9a-fA-F]* *[A-Za-z] " "" symbol "${line}")
    list(APPEND exported "${symbol}")
  endforeach()
  if(NOT exported STREQUAL "hami_plugin_negotiate")
    message(FATAL_ERROR "${plugin} must export only hami_plugin_negotiate, exports: ${exported}")
  endif()
  file(COPY "${built}" DESTINATION "${plugins}"
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
endforeach()
file(CHMOD "${plugins}" DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
     GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

# The host, configured with nothing but the two examples.
file(WRITE "${WORK_DIR}/config.yaml" "listen: 127.0.0.1:0
tls:
  selfSigned: true
plugins:
  directory: plugins
  devices:
    - name: vaccel
      library: example-device.so
  scheduling:
    - name: emptiest
      library: example-policy.so
      config: {}
scheduler:
  nodePolicy: emptiest
  gpuPolicy: emptiest
cluster:
  source: file
  file: \"\"
")
run("listing the plugins in the host" "${HOST}" --config "${WORK_DIR}/config.yaml" --list-plugins)
set(listing "${run_output}")
expect_in("${listing}" "example-device" "--list-plugins")
expect_in("${listing}" "example-policy" "--list-plugins")
run("checking the config in the host" "${HOST}" --config "${WORK_DIR}/config.yaml" --check-config)
expect_in("${run_output}" "plugins: 2 loaded from ${plugins}" "--check-config")
expect_in("${run_output}" "node policy emptiest, gpu policy emptiest" "--check-config")

# The conformance checks pass on both.
run("hami-plugin-check" "${PLUGIN_CHECK}" "${plugins}/example-device.so"
    "${plugins}/example-policy.so")
expect_in("${run_output}" "name    example-device 1.0.0 (device plugin" "hami-plugin-check")
expect_in("${run_output}" "name    example-policy 1.0.0 (scheduling plugin" "hami-plugin-check")
string(REGEX MATCHALL "result  PASSED" passed "${run_output}")
list(LENGTH passed passed_count)
if(NOT passed_count EQUAL 2)
  message(FATAL_ERROR "hami-plugin-check did not pass both examples:\n${run_output}")
endif()
message(STATUS "out-of-tree examples built, loaded and checked:\n${listing}")
