// Copyright spate authors.
// libFuzzer target: the Parquet footer, schema and page reader over arbitrary bytes.
// Every input must give either batches or a Status — never a crash, hang or huge
// allocation. Seed corpus: fuzz/corpus/parquet (small files written by spate: codecs,
// nulls, dates, decimals, nested and dictionary columns); long campaigns can add the
// files of ../shared/data/parquet-testing as a second corpus folder.
#include <cstddef>
#include <cstdint>
#include <string>

#include "spate/formats/parquet/reader.h"
#include "spate/io/file_system.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto fs = std::make_shared<spate::io::MemoryFileSystem>();
  if (!fs->WriteAtomic("/f.parquet",
                       std::string(reinterpret_cast<const char*>(data), size))
           .ok())
    return 0;
  auto reader = spate::formats::parquet::ParquetFileReader::Open(fs, "/f.parquet");
  if (!reader.ok()) return 0;
  const auto& r = *reader;
  std::vector<int> all;
  for (int i = 0; i < r->schema()->num_fields(); ++i) all.push_back(i);
  for (int rg = 0; rg < r->num_row_groups() && rg < 16; ++rg) {
    (void)r->ReadRowGroup(rg, all);
    for (int c = 0; c < r->schema()->num_fields(); ++c) (void)r->Stats(rg, c);
  }
  return 0;
}
