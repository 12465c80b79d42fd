// Copyright spate authors.
#pragma once

#include <string>
#include <vector>

namespace spate::cli {

/// `spate submit [options] job.py [args]`: replaces this process with
/// `python3 -m spate.submit <args>` (python/spate/submit.py), the arguments passed
/// verbatim. The interpreter is $SPATE_PYTHON, else the one the build found; PYTHONPATH
/// gains the build tree's package (build/<preset>/python beside this binary's cli/).
/// Returns only when the interpreter cannot be run: 127, with the reason on stderr.
int ExecSubmit(const std::vector<std::string>& args);
/// The same for `python3 -m <module> <args>` (e.g. spate.checkpoint for `spate checkpoint
/// check` on a Python query file).
int ExecPythonModule(const std::string& module, const std::vector<std::string>& args);

}  // namespace spate::cli
