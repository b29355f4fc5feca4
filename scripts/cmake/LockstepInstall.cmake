# cmake --install: libraries, public headers, the lockstep executable and a package config so that a
# consumer's find_package(lockstep) gives lockstep::base, lockstep::cases, the harness's libraries
# (lockstep::snapshot ... lockstep::progress, harness/CMakeLists.txt; lockstep::harness all of them), lockstep::capture,
# lockstep::cli, lockstep::gate (when GoogleTest was found), pod::port and pod::bindings, and the CMake
# function lockstep_add_gate() (capture/cli/README.md shows a game using them).
include(CMakePackageConfigHelpers)

set(LOCKSTEP_INSTALLED_LIBRARIES lockstep_x87 lockstep_base lockstep_cases ${LOCKSTEP_HARNESS_TARGETS} lockstep_harness
                                  lockstep_capture lockstep_cli pod_port pod_bindings)
list(TRANSFORM LOCKSTEP_HARNESS_TARGETS REPLACE "^lockstep_(.*)$" "harness/\\1/include/" OUTPUT_VARIABLE _harness_includes)
install(DIRECTORY cases/x87/include/ cases/base/include/ cases/include/ ${_harness_includes} capture/include/ capture/cli/include/
                  port/physics/include/ port/bindings/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET lockstep_gate)
  set(LOCKSTEP_HAVE_GATE ON)
  list(APPEND LOCKSTEP_INSTALLED_LIBRARIES lockstep_gate)
  install(DIRECTORY harness/gate/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
else()
  set(LOCKSTEP_HAVE_GATE OFF)
endif()

install(TARGETS ${LOCKSTEP_INSTALLED_LIBRARIES}
        EXPORT lockstepTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS lockstep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(EXPORT lockstepTargets NAMESPACE lockstep:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lockstep)
configure_package_config_file(scripts/cmake/lockstepConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/lockstepConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lockstep)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/lockstepConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/lockstepConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/lockstepConfigVersion.cmake
              harness/gate/LockstepGate.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lockstep)
