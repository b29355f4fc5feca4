# Run by ctest (tests/install/CMakeLists.txt): install, configure + build the consumer (which captures
# its corpus with its own lockstep while building), run it, its lockstep and its gates.
# Every step's failure stops the test with the step's output.
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: ${name} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

# `output` must match the regular expression `regex`, else the test fails saying what was expected.
function(expect name output regex)
  if(NOT output MATCHES "${regex}")
    message(FATAL_ERROR "install test: ${name}: expected output matching '${regex}', got:\n${output}")
  endif()
endfunction()

step("cmake --install" ${CMAKE_COMMAND} --install "${LOCKSTEP_BUILD_DIR}" --prefix "${prefix}")
foreach(header lockstep/load/load.hpp lockstep/cli/cli.hpp lockstep/testing/gate.hpp)
  if(NOT EXISTS "${prefix}/include/${header}")
    message(FATAL_ERROR "install test: ${header} missing under ${prefix}/include")
  endif()
endforeach()
step("the installed lockstep" "${prefix}/bin/lockstep" --version)
expect("lockstep --version" "${step_output}" "^lockstep [0-9]+\\.[0-9]+\\.[0-9]+ ")
step("configure the consumer" ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/consumer" -G "${GENERATOR}"
     "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
     -DCMAKE_BUILD_TYPE=Release)
step("build the consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/consumer")
step("run the consumer" "${WORK_DIR}/consumer/consumer" "${WORK_DIR}/consumer/out.lks")
if(NOT step_output MATCHES "consumer: ok")
  message(FATAL_ERROR "install test: the consumer did not report success:\n${step_output}")
endif()
message(STATUS "${step_output}")

# The game's own lockstep (lockstep::cli + its bindings) replays the corpus it captured: its 3 calls
# (game/calls.toml), every one matched.
set(game "${WORK_DIR}/consumer")
step("the consumer's lockstep: replay" "${game}/sum_lockstep" replay "${game}/corpus" --profile
     "${CONSUMER_SOURCE_DIR}/game/sum.toml")
expect("replay" "${step_output}" "total +1 functions? +3 +3 +0")
message(STATUS "${step_output}")

# Its gate (lockstep_add_gate) passes: one test, sum::sum's.
step("the consumer's gate" ${CMAKE_CTEST_COMMAND} --test-dir "${game}" -L gate --output-on-failure)
expect("the gate" "${step_output}" "100% tests passed, 0 tests failed out of 1")
expect("the gate" "${step_output}" "sum\\.Gate\\.fn_00401000_sum__sum")
# The gate over a wrong port fails, naming the differing bytes.
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir "${game}" -L broken --output-on-failure
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "install test: the gate over a wrong port passed:\n${out}")
endif()
expect("the gate over a wrong port" "${out}" "3 of 3 cases of sum::sum mismatched")
message(STATUS "install test: the consumer's lockstep and gate work (the wrong port's gate fails, as it must)")
