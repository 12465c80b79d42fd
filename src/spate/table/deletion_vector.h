// Copyright spate authors.
#pragma once

// Deletion vectors (PROTOCOL.md "Deletion Vectors", "Deletion Vector Format"): the set of
// row positions of a data file that are logically deleted.
//
//  * storageType 'u': `<random prefix><20-char Z85 UUID>` names
//    `<table>/<prefix>/deletion_vector_<uuid>.bin`; 'p': an absolute path; 'i': the
//    serialized bitmap itself, Z85-encoded in the log.
//  * A DV file starts with a version byte (1); at `offset` each DV is a big-endian u32
//    size, the serialized bitmap (`size` bytes) and a CRC-32.
//  * The serialized bitmap is a little-endian magic number 1681511377 followed by a
//    RoaringBitmapArray in the "portable" 64-bit layout: u64 count of 32-bit Roaring
//    bitmaps, each a u32 key (the high 32 bits) and a standard portable Roaring bitmap
//    (RoaringFormatSpec: array, bitmap and run containers).
//
// Thread safety: pure functions. Failure: malformed input -> kDataCorruption naming the
// DV file (or "inline deletion vector"); never reads out of bounds.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spate/base/status.h"
#include "spate/io/file_system.h"
#include "spate/table/actions.h"

namespace spate::table {

/// Z85 (ZeroMQ base-85) decoding; the input length must be a multiple of 5.
Result<std::string> Z85Decode(std::string_view text);

/// Parses a serialized DV (magic + RoaringBitmapArray) into sorted row positions.
Result<std::vector<uint64_t>> ParseDeletionVector(std::string_view bytes,
                                                  const std::string& what);

/// The file a 'u' or 'p' DV lives in ("" for inline DVs).
Result<std::string> DeletionVectorPath(const DeletionVectorDescriptor& dv,
                                       const std::string& table_path);

/// Loads the deleted row positions of `dv` (sorted, distinct); checks the cardinality.
Result<std::vector<uint64_t>> LoadDeletionVector(io::FileSystem& fs,
                                                 const DeletionVectorDescriptor& dv,
                                                 const std::string& table_path);

}  // namespace spate::table
