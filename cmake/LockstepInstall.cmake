# cmake --install: libraries, public headers, the lockstep executable and a package config so that a
# consumer's find_package(lockstep) gives lockstep::harness, lockstep::cases, lockstep::capture,
# pod::port and pod::bindings.
include(CMakePackageConfigHelpers)

install(DIRECTORY cases/include/ harness/include/ capture/include/ port/include/ port/bindings/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(TARGETS lockstep_cases lockstep_harness lockstep_capture pod_port pod_bindings
        EXPORT lockstepTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS lockstep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(EXPORT lockstepTargets NAMESPACE lockstep:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lockstep)
configure_package_config_file(cmake/lockstepConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/lockstepConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lockstep)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/lockstepConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/lockstepConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/lockstepConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lockstep)
