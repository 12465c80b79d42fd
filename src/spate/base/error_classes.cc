// Copyright spate authors.
#include "spate/base/error_classes.h"

#include <algorithm>
#include <unordered_map>

namespace spate {

namespace {
#define SPATE_ERROR_CLASS(name, sqlstate, kind, tmpl) \
  {name, sqlstate, ErrorKind::kind, tmpl},
const std::vector<ErrorClassInfo> kClasses = {
#include "spate/base/error_classes.inc"
};
#undef SPATE_ERROR_CLASS

const std::unordered_map<std::string_view, const ErrorClassInfo*>& Index() {
  static const auto* index = [] {
    auto* m = new std::unordered_map<std::string_view, const ErrorClassInfo*>();
    for (const auto& c : kClasses) (*m)[c.name] = &c;
    return m;
  }();
  return *index;
}
}  // namespace

const ErrorClassInfo* FindErrorClass(std::string_view name) {
  const auto& idx = Index();
  auto it = idx.find(name);
  return it == idx.end() ? nullptr : it->second;
}

const std::vector<ErrorClassInfo>& AllErrorClasses() { return kClasses; }

std::string RenderErrorTemplate(std::string_view tmpl,
                                const std::vector<ErrorParam>& params) {
  std::string out;
  out.reserve(tmpl.size() + 32);
  size_t i = 0;
  while (i < tmpl.size()) {
    char c = tmpl[i];
    if (c == '<') {
      size_t end = tmpl.find('>', i + 1);
      if (end != std::string_view::npos) {
        std::string_view key = tmpl.substr(i + 1, end - i - 1);
        auto it = std::find_if(params.begin(), params.end(),
                               [&](const ErrorParam& p) { return p.name == key; });
        if (it != params.end()) {
          out += it->value;
          i = end + 1;
          continue;
        }
      }
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace spate
