// Copyright spate authors.
#include "checkpoint_cmd.h"

#include <ostream>

#include "spate/stream/checkpoint.h"
#include "spate/stream/checkpoint_describe.h"

namespace spate::cli {

int DescribeCheckpoint(const std::string& dir, bool json, std::ostream& out, std::ostream& err) {
  // file:///abs/path as Spark's logs write it is the folder itself.
  auto d = stream::DescribeCheckpoint(io::LocalFileSystem::Get(), stream::StripFileScheme(dir));
  if (!d.ok()) {
    err << "Error: " << d.status().ToString() << "\n";
    return 1;
  }
  out << (json ? d->ToJson().ToPrettyString() + "\n" : d->ToText());
  return 0;
}

}  // namespace spate::cli
