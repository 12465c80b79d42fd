# Warnings for spate's own targets.
set(SPATE_WARNINGS -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers)
# clang's thread-safety analysis of the SPATE_GUARDED_BY / SPATE_REQUIRES annotations
# (src/spate/base/mutex.h): a violation is a compile error. gcc has no such analysis; the
# fuzz build in scripts/test.sh compiles the libraries with clang, so CI checks it, and
# scripts/thread-safety.sh checks a gcc build tree's annotated files with clang.
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  list(APPEND SPATE_WARNINGS -Wthread-safety -Werror=thread-safety)
endif()
