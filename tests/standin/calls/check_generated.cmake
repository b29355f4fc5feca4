# Fails when EXPECTED is not exactly what SCRIPT prints (a call list edited by hand, or a script changed
# without regenerating its list).  cmake -DPYTHON=.. -DSCRIPT=.. -DEXPECTED=.. -P check_generated.cmake
execute_process(COMMAND ${PYTHON} ${SCRIPT} OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SCRIPT} failed (exit ${rc})")
endif()
file(READ ${EXPECTED} checked_in)
if(NOT generated STREQUAL checked_in)
  message(FATAL_ERROR "${EXPECTED} is not what ${SCRIPT} writes: regenerate it with\n"
                      "  python3 ${SCRIPT} > ${EXPECTED}")
endif()
