# Run by ctest from lockstep's tree (CMakeLists.txt): lockstep installed into a temporary prefix, this
# folder configured as its own project against it (find_package(lockstep)), built, and its tests run
# by its own ctest. Every step's failure stops the test with the step's output.
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/crawl")

function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "crawl against the installed lockstep: ${name} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

step("cmake --install" ${CMAKE_COMMAND} --install "${LOCKSTEP_BUILD_DIR}" --prefix "${prefix}")
step("configure crawl" ${CMAKE_COMMAND} -S "${CRAWL_SOURCE_DIR}" -B "${build}" -G "${GENERATOR}"
     "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
     -DCMAKE_BUILD_TYPE=Release -DLOCKSTEP_WERROR=ON)
file(STRINGS "${build}/CMakeCache.txt" found REGEX "^lockstep_DIR:")
if(NOT found MATCHES "^lockstep_DIR:PATH=${prefix}/")
  message(FATAL_ERROR "crawl against the installed lockstep: find_package found '${found}', not the prefix ${prefix}")
endif()
step("build crawl" ${CMAKE_COMMAND} --build "${build}")
step("crawl's ctest" ${CMAKE_CTEST_COMMAND} --test-dir "${build}" --output-on-failure)
message(STATUS "${step_output}")
