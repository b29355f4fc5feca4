# Run by ctest (tests/install/CMakeLists.txt): install, configure + build the consumer, run it.
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

step("cmake --install" ${CMAKE_COMMAND} --install "${LOCKSTEP_BUILD_DIR}" --prefix "${prefix}")
if(NOT EXISTS "${prefix}/include/lockstep/harness/load.hpp")
  message(FATAL_ERROR "install test: headers missing under ${prefix}/include")
endif()
step("configure the consumer" ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/consumer" -G "${GENERATOR}"
     "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
     -DCMAKE_BUILD_TYPE=Release)
step("build the consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/consumer")
step("run the consumer" "${WORK_DIR}/consumer/consumer" "${WORK_DIR}/consumer/out.lks")
if(NOT step_output MATCHES "consumer: ok")
  message(FATAL_ERROR "install test: the consumer did not report success:\n${step_output}")
endif()
message(STATUS "${step_output}")
