# `cmake --install <build> --prefix P` installs the engine for other CMake projects:
#   P/include/spate/...            the headers (the layout of src/spate)
#   P/lib/libspate_<module>.a      one static library per module
#   P/lib/cmake/spate/             spateConfig.cmake + the exported targets spate::<module>
#   P/bin/spate                    the command
# A consumer writes `find_package(spate REQUIRED)` and links `spate::api` (the whole
# PySpark-shaped API); spateConfig.cmake finds the same Debian libraries the build used.
# tests/install/ builds and runs such a consumer against a fresh install (CTest
# "install/find_package").
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/spate DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.inc"
        PATTERN "testing" EXCLUDE)
install(TARGETS spate RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(SPATE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/spate)
install(EXPORT spateTargets NAMESPACE spate:: DESTINATION ${SPATE_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/spateConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/spateConfig.cmake
                              INSTALL_DESTINATION ${SPATE_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/spateConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/spateConfig.cmake ${PROJECT_BINARY_DIR}/spateConfigVersion.cmake
        DESTINATION ${SPATE_CMAKE_DIR})
