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
// Writing (DELETE / UPDATE / MERGE of a table with delta.enableDeletionVectors, as
// delta-spark 4.4 writes them): the bitmap in the portable layout with array containers
// (<= 4096 values) and bitmap containers, no run containers; one DV file per command at
// the table root (`deletion_vector_<uuid>.bin`, storageType 'u' without a prefix), each
// DV at its offset with its size and CRC-32.
//
// Thread safety: pure functions. Failure: malformed input -> kDataCorruption naming the
// DV file (or "inline deletion vector"); never reads out of bounds.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spate/base/status.h"
#include "spate/io/file_system.h"
#include "spate/table/actions.h"

namespace spate::table {

/// Z85 (ZeroMQ base-85) decoding; the input length must be a multiple of 5.
Result<std::string> Z85Decode(std::string_view text);
/// Z85 encoding; the input length must be a multiple of 4.
std::string Z85Encode(std::string_view bytes);

/// Serializes sorted, distinct row positions as a DV (magic + portable
/// RoaringBitmapArray).
std::string SerializeDeletionVector(const std::vector<uint64_t>& rows);

/// Writes `dvs` (each sorted, distinct, non-empty) into one new DV file under
/// `table_path` and returns their descriptors, in order. *file_path: the file written
/// (for clean-up when the commit fails).
Result<std::vector<DeletionVectorDescriptor>> WriteDeletionVectors(
    io::FileSystem& fs, const std::string& table_path,
    const std::vector<std::vector<uint64_t>>& dvs, std::string* file_path);

/// `add` with `dv` as its deletion vector and its stats marked `"tightBounds":false`
/// (its min/max/nullCount still bound the rows left; numRecords stays the file's).
AddFile WithDeletionVector(const AddFile& add, DeletionVectorDescriptor dv);

/// The rows of `add` a read returns: numRecords of its stats less its DV's cardinality
/// (nullopt without stats).
std::optional<int64_t> LogicalRecords(const AddFile& add);

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
