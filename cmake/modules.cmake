# spate_module(NAME DEPS dep...): one static library per folder src/spate/NAME, whose sources
# are every *.cc there and one folder down (formats/parquet/) except tests, benchmarks and
# fuzzers. Tests (*_test.cc) become one gtest binary spate_NAME_test with CTest label "unit".
# Every module but `testing` is installed and exported (cmake/install.cmake).
include(GNUInstallDirs)
function(spate_module name)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${name}/*.cc ${CMAKE_CURRENT_SOURCE_DIR}/${name}/*/*.cc)
  list(FILTER srcs EXCLUDE REGEX "_(test|benchmark|fuzzer)\\.cc$")
  add_library(spate_${name} STATIC ${srcs})
  add_library(spate::${name} ALIAS spate_${name})
  target_include_directories(spate_${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>
                                                  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # `cmake --install` ships each module as spate::NAME (cmake/install.cmake).
  set_target_properties(spate_${name} PROPERTIES EXPORT_NAME ${name})
  if(NOT name STREQUAL "testing")
    install(TARGETS spate_${name} EXPORT spateTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
  target_compile_options(spate_${name} PRIVATE ${SPATE_WARNINGS})
  target_link_libraries(spate_${name} PUBLIC ${ARG_DEPS})
  if(SPATE_BUILD_TESTS)
    file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${name}/*_test.cc ${CMAKE_CURRENT_SOURCE_DIR}/${name}/*/*_test.cc)
    if(tests)
      add_executable(spate_${name}_test ${tests})
      target_link_libraries(spate_${name}_test PRIVATE spate_${name} GTest::gtest_main GTest::gmock)
      target_compile_options(spate_${name}_test PRIVATE ${SPATE_WARNINGS})
      gtest_discover_tests(spate_${name}_test
                           PROPERTIES LABELS unit ENVIRONMENT "SPATE_SHARED_DIR=${SPATE_SHARED_DIR}"
                           DISCOVERY_TIMEOUT 60)
    endif()
  endif()
endfunction()
