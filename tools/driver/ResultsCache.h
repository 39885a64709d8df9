//===--- ResultsCache.h - the findings of unchanged files -------*- C++ -*-===//
//
// Most files of a project have not changed since the last run. The results
// cache keeps what the analysis of a file returned to clang-tidy's main (the
// diagnostics with their notes, ranges and fix-its, what the frontend printed
// and what the run added to clang-tidy's statistics), so that a run over an
// unchanged file replays them instead of parsing it; clang-tidy's own code
// then prints, exports and filters them as it does a fresh analysis, and the
// output is byte-identical (test/tools/identical-findings.test).
//
// An entry is found by a key over what decides the findings besides the
// files read: torch-tidy's version and build, the compile command, the
// enabled checks and their options, the header and line filters (see
// FastRun.cpp, which builds it). It holds the files the analysis read (the
// dependency list of the compile, the PCH's inputs included), each with its
// size, modification time and content hash. An entry is used when every file
// still has its size and time or, when only the time moved, its content; any
// other change is a miss, never a stale hit.
//
// Entries live in `<cache dir>/results/`; CacheDirectory.h bounds the whole
// directory's size.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_TOOLS_DRIVER_RESULTSCACHE_H
#define TORCHTIDY_TOOLS_DRIVER_RESULTSCACHE_H

#include "ClangTidyDiagnosticConsumer.h"
#include "clang/Frontend/Utils.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace torchtidy::driver {

/// What identifies this torch-tidy for the results cache: its version
/// (PROJECT_VERSION), the build ids of the executable and of the clang and
/// LLVM libraries it runs (GNU build-id notes, or the executable's content
/// hash without them), and clang's full version. A new build is a new key.
std::vector<std::string> torchTidyIdentity();

/// The hash the cache uses for keys and file contents (BLAKE3, in hex).
std::string contentHash(llvm::StringRef Data);

/// A key made of named parts. The cache stores the parts' hashes with each
/// file's last entry, so a miss can say which part changed.
class CacheKey {
public:
  /// Adds a part; \p Values are hashed as one list.
  void add(llvm::StringRef Part, llvm::ArrayRef<std::string> Values);
  /// The hash over all parts, in the order added.
  std::string hash() const;
  const std::vector<std::pair<std::string, std::string>> &parts() const {
    return Parts;
  }

private:
  std::vector<std::pair<std::string, std::string>> Parts; // name, hash
};

/// One file an analysis read, as it was then.
struct FileStamp {
  std::string Path; ///< absolute
  uint64_t Size = 0;
  int64_t MTime = 0; ///< nanoseconds since the epoch
  std::string Hash;  ///< contentHash of the file; empty until computed
  bool System = false;
};

/// Every file the preprocessor enters and, through the ASTReader it is
/// attached to (CompilerInstance::addDependencyCollector), every input of the
/// PCH it loads, with whether it is a system header: the dependency list of
/// a compile.
class InputCollector : public clang::DependencyCollector {
public:
  std::vector<std::pair<std::string, bool>> Seen; // path, is system
  bool needSystemDependencies() override { return true; }
  void maybeAddDependency(llvm::StringRef Filename, bool FromModule,
                          bool IsSystem, bool IsModuleFile,
                          bool IsMissing) override;

private:
  llvm::StringSet<> Names;
};

/// Fills in the size and time of \p Stamp.Path; false when it is no file.
bool statFile(llvm::vfs::FileSystem &FS, FileStamp &Stamp);
/// Fills in the size, time and content hash of \p Stamp.Path; false when the
/// file cannot be read.
bool stampFile(llvm::vfs::FileSystem &FS, FileStamp &Stamp);

/// What replaying one analysis takes.
struct CachedRun {
  std::vector<clang::tidy::ClangTidyError> Errors;
  /// What the analysis added to the context's statistics.
  clang::tidy::ClangTidyStats Stats;
  /// What the frontend printed for the file ("2 warnings generated.").
  std::string FrontendOutput;
  /// The file's summary for the project (ProjectSummaries.h), as JSON
  /// text; empty when none was made (checks other than libtorch-*).
  std::string Summary;
};

llvm::json::Value toJSON(const clang::tidy::ClangTidyError &E);
/// Reads back what toJSON wrote; false on anything else.
bool fromJSON(const llvm::json::Value &V, clang::tidy::ClangTidyError &E);
llvm::json::Value toJSON(const CachedRun &R);
bool fromJSON(const llvm::json::Value &V, CachedRun &R);

/// The times of files written from \p Now on, less the lag of the kernel's
/// file times behind the clock (up to a tick), cannot vouch for what was
/// read: the file may be written again with the same time. Analyses read
/// after they start, so they store no results for files with such times;
/// lookups record no such time (git's rule for "racily clean" files).
int64_t racyFrom(std::chrono::system_clock::time_point Now);

class ResultsCache {
public:
  /// \p Dir is the cache directory (entries go to its results/); \p FS the
  /// file system the analysis reads.
  ResultsCache(llvm::StringRef Dir,
               llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS);

  struct Lookup {
    std::optional<CachedRun> Run; ///< set on a hit
    /// Why it missed: no entry (and which part of the key changed since
    /// \p File's last run), a file that changed or went away, an entry
    /// that cannot be read.
    std::string Why;
    /// On a hit: how many files had a new time but the same content (the
    /// entry now has their new times, but for the Unrecorded ones).
    unsigned Retimed = 0;
    /// Of those, how many have a time too recent to record (racyFrom): a
    /// file written again within the same tick of the kernel's clock keeps
    /// its time, so such a time cannot vouch for the content; it is hashed
    /// again on each run until its time is older.
    unsigned Unrecorded = 0;
  };
  /// The entry of \p Key for \p File, when every file it read is unchanged.
  Lookup lookup(const CacheKey &Key, llvm::StringRef File);

  /// Stores \p Run under \p Key, with the files it read (hashed here where
  /// \p Inputs has no hash, but for system headers whose shared list is
  /// stored already), and records \p Key as \p File's last (as a hit does).
  /// Files that cannot be read make the entry unstorable (false), as does a
  /// cache directory that cannot be written.
  bool store(const CacheKey &Key, llvm::StringRef File, const CachedRun &Run,
             std::vector<FileStamp> Inputs);

  /// The directory entries go to.
  const std::string &resultsDir() const { return Results; }

private:
  std::string entryPath(llvm::StringRef Key) const;
  std::string lastPath(llvm::StringRef File) const;
  std::string whyNoEntry(const CacheKey &Key, llvm::StringRef File) const;
  /// Remembers the parts of \p Key as \p File's last, for whyNoEntry.
  void recordLastKey(const CacheKey &Key, llvm::StringRef File) const;

  std::string Results;
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS;
};

} // namespace torchtidy::driver

#endif
