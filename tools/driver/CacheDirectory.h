//===--- CacheDirectory.h - one bounded directory for both caches -*- C++
//-*-===//
//
// The preamble cache (PreambleCache.h) and the results cache
// (ResultsCache.h) share one directory, `--cache-dir` (default
// `<build>/torch-tidy-cache`). Its size is bounded (`--cache-max-size`):
// after each write, the least recently used entries go until the directory
// fits. An entry is a preamble (its .h, .pch and .manifest), a file's
// results, or a list of inputs the results of several files share; its last
// use is the newest modification time among its files, which a hit renews.
// Files are written to a temporary name and renamed, so a reader never sees
// half of one, and concurrent workers need no lock to read.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_TOOLS_DRIVER_CACHEDIRECTORY_H
#define TORCHTIDY_TOOLS_DRIVER_CACHEDIRECTORY_H

#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <cstdint>
#include <optional>

namespace torchtidy::driver {

/// The default of --cache-max-size: a dozen preambles of <torch/torch.h>
/// (about 120 MB each) and the results of thousands of files.
constexpr uint64_t DefaultCacheMaxBytes = static_cast<uint64_t>(2) << 30;

/// A preamble used this recently may be in use by a running analysis (its
/// PCH about to be opened); eviction leaves it, even above the limit.
constexpr std::chrono::minutes PreambleInUseGrace(10);

/// "2G", "512M", "64K" or a number of bytes; std::nullopt on anything else.
std::optional<uint64_t> parseCacheSize(llvm::StringRef Text);

/// Writes \p Content to \p Path through a temporary file and a rename.
bool writeFileAtomically(llvm::StringRef Path, llvm::StringRef Content);

/// Records that \p Path was used now (its modification time).
void markUsed(llvm::StringRef Path);

struct EvictionResult {
  uint64_t BytesBefore = 0, BytesAfter = 0;
  unsigned EntriesRemoved = 0;
};

/// Removes the least recently used entries of the cache directory \p Dir
/// until it holds at most \p MaxBytes; preambles used within \p Grace of
/// now stay.
EvictionResult
evictLeastRecentlyUsed(llvm::StringRef Dir, uint64_t MaxBytes,
                       std::chrono::seconds Grace = PreambleInUseGrace);

} // namespace torchtidy::driver

#endif
