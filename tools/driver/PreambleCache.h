//===--- PreambleCache.h - one precompiled preamble per project -*- C++ -*-===//
//
// Most files of a LibTorch project begin with the same `#include <...>`
// lines, and parsing them (8 s for <torch/torch.h>) is nearly all of the
// time a check run takes. The cache precompiles those leading system includes
// once per distinct preamble and compile flags, into a PCH in a directory
// (`--cache-dir`, default `<build>/torch-tidy-cache`), and gives every file
// that starts with them `-include-pch` of it; the file's own #include lines
// are then skipped by their include guards.
//
// Only files whose preamble reads system headers alone are served, so the
// user's own headers are always parsed, and checked, as before. An entry is
// rebuilt when any file its PCH read changed size or time; it is keyed by the
// includes, the whole command line, the working directory and the compiler
// version. docs/performance.md has the measurements.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_TOOLS_DRIVER_PREAMBLECACHE_H
#define TORCHTIDY_TOOLS_DRIVER_PREAMBLECACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class CompilerInvocation;
class FileManager;
} // namespace clang

namespace torchtidy::driver {

struct LeadingInclude {
  bool Angled; ///< `<name>`, else `"name"`
  std::string Name;
};

/// The #include lines a file begins with, before any other code.
struct LeadingIncludes {
  std::vector<LeadingInclude> Includes;
  /// The file has nothing else: includes, comments, blank lines, `#pragma
  /// once` and an include guard only.
  bool Complete = false;
};

/// Scans the #include lines \p Source begins with; blank lines, comments,
/// `#pragma once` and an include guard are read through. Stops at the first
/// other line: a macro, a conditional, a continued line or code.
LeadingIncludes scanLeadingIncludes(llvm::StringRef Source);

/// The system includes \p File (whose text is \p Source) begins with, one
/// `#include <name>` a line, in the order the compiler meets them: a leading
/// quoted include is followed into the header (found beside its includer,
/// then in \p QuoteDirs, read with \p Read), whose own leading system
/// includes come first; the preamble ends at the first line of code or
/// macro in any of those files. So `#include "model.h"` at the top of a
/// .cpp contributes the `#include <torch/torch.h>` at the top of model.h,
/// while model.h itself stays out of the preamble.
std::string systemPreamble(
    llvm::StringRef File, llvm::StringRef Source,
    llvm::ArrayRef<std::string> QuoteDirs,
    llvm::function_ref<std::optional<std::string>(llvm::StringRef)> Read);

/// systemPreamble of a file whose quoted includes are not followed.
std::string leadingSystemIncludes(llvm::StringRef Source);

/// The part of \p Preamble (systemPreamble's lines) that is precompiled:
/// all but the standard library headers it ends with (names without a
/// directory or an extension, as <vector>), and at least its first line.
/// LibTorch and the other libraries are nearly all of a preamble's parse;
/// the standard headers after them take a fraction of a second (LibTorch
/// includes most of them already), and files that differ only in those
/// share one PCH instead of building one each. The rest is parsed after the
/// PCH, in the file's order.
std::string precompiledPart(llvm::StringRef Preamble);

/// Sets in \p Invocation what the driver's parse of a file, the PCH build of
/// its preamble and the probe of that PCH must agree on (a PCH built
/// otherwise is refused): clang-tidy's predefines, `__clang_analyzer__`,
/// which code may test.
void setUpAsClangTidy(clang::CompilerInvocation &Invocation);

/// What a cache entry records about the PCH it describes.
struct PreambleManifest {
  enum StatusKind {
    Usable,           ///< the PCH is there and may be used
    Failed,           ///< the preamble does not compile with these flags
    ReadsUserHeaders, ///< the preamble reaches a non-system header
    /// a file that begins with the preamble does not compile after the PCH:
    /// a header of it without an include guard is read again and redefines
    /// what the PCH holds
    NotReincludable,
  };
  struct Input {
    std::string Path;
    uint64_t Size = 0;
    int64_t MTime = 0; ///< nanoseconds since the epoch
  };
  StatusKind Status = Failed;
  std::vector<Input> Inputs;

  std::string serialize() const;
  static std::optional<PreambleManifest> parse(llvm::StringRef Text);
  /// Whether every input still has the size and time recorded.
  bool upToDate(llvm::vfs::FileSystem &FS) const;
};

/// Records an input of \p Path as it is now in \p FS; false when it is gone.
bool statInput(llvm::vfs::FileSystem &FS, llvm::StringRef Path,
               PreambleManifest::Input &Out);

class PreambleCache {
public:
  /// \p FS is the file system the analysis reads; its working directory is
  /// the compile command's when adjust() is called.
  /// With \p SkipLibraryBodies, the PCH leaves out the bodies no check
  /// reads (isSkippableLibraryBody), as the files' own parse does under the
  /// traversal scope; such a PCH has a key of its own.
  PreambleCache(std::string Dir,
                llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
                bool Verbose, bool SkipLibraryBodies);

  /// \p Args, the final command line of \p File, changed to use the PCH of
  /// the file's preamble (built first when missing or stale); \p Args as
  /// they are when the file does not qualify or no PCH can be had.
  std::vector<std::string> adjust(const std::vector<std::string> &Args,
                                  llvm::StringRef File);

  /// Whether adjust() wrote an entry (the directory may have outgrown its
  /// limit, CacheDirectory.h).
  bool wroteEntry() const { return Wrote; }

  /// Whether a process that finds another building the PCH it needs should
  /// analyse its file without the PCH instead of waiting: when the build
  /// began less than a third of the last build's duration ago (a parse of
  /// the file alone takes most of what a build takes), or, with no build on
  /// record, less than \p NoRecordSeconds ago. \p LastBuildSeconds is 0
  /// without a record.
  static bool parseInsteadOfWaiting(double BuildAgeSeconds,
                                    double LastBuildSeconds,
                                    double NoRecordSeconds = 5);

  /// Whether a filesystem with \p AvailableBytes free can take a new PCH:
  /// one of <torch/torch.h> is about 100 MB, and clang ends the process
  /// when it cannot write one ("IO failure on output stream"), so a build
  /// is begun only with MinFreeBytes free; the file is parsed without the
  /// PCH otherwise.
  static constexpr uint64_t MinFreeBytes = uint64_t{512} << 20;
  static bool roomToBuild(uint64_t AvailableBytes) {
    return AvailableBytes >= MinFreeBytes;
  }

  /// The key of \p File's entry from its command line and includes; what
  /// the cache would use, for tests.
  static std::string key(const std::vector<std::string> &FlagsWithoutFile,
                         llvm::StringRef WorkingDir, llvm::StringRef Includes,
                         bool SkipLibraryBodies = false);

private:
  bool build(const std::vector<std::string> &Flags, llvm::StringRef Includes,
             llvm::StringRef Base, llvm::StringRef WorkingDir);
  /// Whether a file that is \p Includes alone parses after -include-pch of
  /// \p PCH, their PCH, as each file served includes them again.
  bool reincludes(const std::vector<std::string> &Flags,
                  llvm::StringRef Includes, llvm::StringRef PCH,
                  llvm::StringRef Base, clang::FileManager &Files) const;
  void log(llvm::StringRef File, llvm::StringRef What) const;

  std::string Dir;
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS;
  bool Verbose;
  bool SkipLibraryBodies;
  bool Wrote = false;
};

} // namespace torchtidy::driver

#endif
