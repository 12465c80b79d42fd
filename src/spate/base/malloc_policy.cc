// Copyright spate authors.
#include "spate/base/malloc_policy.h"

#include <malloc.h>

#include <cstdlib>
#include <mutex>
#include <string_view>

#include "spate/base/malloc_probe.h"

namespace spate {

#if SPATE_GLIBC_MALLOC
namespace {

bool EnvironmentChoosesMalloc() {
  for (const char* name :
       {"GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_",
        "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_"}) {
    if (const char* v = std::getenv(name); v && *v) return true;
  }
  const char* p = std::getenv("SPATE_MALLOC_POLICY");
  return p && std::string_view(p) == "default";
}

}  // namespace
#endif

bool ApplyMallocPolicy() {
  static std::once_flag once;
  bool applied = false;
  std::call_once(once, [&] {
#if SPATE_GLIBC_MALLOC
    if (EnvironmentChoosesMalloc()) return;
    applied = mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMallocMmapThreshold)) == 1 &&
              mallopt(M_TRIM_THRESHOLD, static_cast<int>(kMallocTrimThreshold)) == 1;
#endif
  });
  return applied;
}

}  // namespace spate
