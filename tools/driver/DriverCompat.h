//===--- DriverCompat.h - the driver's LLVM 19/22 differences ---*- C++ -*-===//
//
// torch-tidy builds against LLVM/Clang 19 (the default) and 22
// (-DTORCHTIDY_LLVM_VERSION=22). Every API of clang, clang-tidy and LLVM that
// the driver (tools/driver) uses and that differs between the two is wrapped
// here, so the rest of the driver reads the same for both; when support for
// 19 is dropped, each wrapper collapses to its `>= 22` branch. The checks and
// analyses have their own, lib/analysis/include/torchtidy/analysis/
// LLVMCompat.h; the driver does not include that one.
//
// The one difference outside C++ is the mangled name of the function the
// link replaces (--wrap): tools/CMakeLists.txt reads it from the library
// being linked, and FastRun.cpp checks the replacement's signature against
// clang-tidy's declaration (TORCHTIDY_RUN_CLANG_TIDY_EXTRA_PARAMS below).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_TOOLS_DRIVER_DRIVERCOMPAT_H
#define TORCHTIDY_TOOLS_DRIVER_DRIVERCOMPAT_H

#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/LockFileManager.h"

#include <memory>
#include <string>
#include <vector>

#if LLVM_VERSION_MAJOR < 19
#error "torch-tidy needs LLVM/Clang 19 or later"
#endif

namespace clang::tidy {
class ClangTidyContext;
struct ClangTidyOptions;
} // namespace clang::tidy

/// The parameters clang::tidy::runClangTidy has after StoreCheckProfile:
/// LLVM 22 added `bool Quiet` (clang-tidy's --quiet, which then no longer
/// reaches the frontend through the diagnostic options alone). Use as
/// `..., llvm::StringRef StoreCheckProfile
/// TORCHTIDY_RUN_CLANG_TIDY_EXTRA_PARAMS)` and read the flag with
/// TORCHTIDY_RUN_CLANG_TIDY_QUIET.
#if LLVM_VERSION_MAJOR >= 22
#define TORCHTIDY_RUN_CLANG_TIDY_EXTRA_PARAMS , bool Quiet
#define TORCHTIDY_RUN_CLANG_TIDY_QUIET Quiet
#else
#define TORCHTIDY_RUN_CLANG_TIDY_EXTRA_PARAMS
#define TORCHTIDY_RUN_CLANG_TIDY_QUIET false
#endif

namespace torchtidy::driver::compat {

/// Makes \p Path absolute against \p Dir when it is relative.
/// LLVM 22 moved the two-argument form from sys::fs to sys::path.
void makeAbsolute(const llvm::Twine &Dir, llvm::SmallVectorImpl<char> &Path);

/// The resource directory (clang's own headers) clang tooling gives a file
/// without one. LLVM 22 moved GetResourcesPath out of CompilerInvocation.
std::string clangResourceDir();

/// The checks \p Options enable, as clang-tidy counts them for \p Context.
/// LLVM 22's getCheckNames also takes whether experimental custom checks are
/// allowed.
std::vector<std::string>
enabledCheckNames(const clang::tidy::ClangTidyOptions &Options,
                  const clang::tidy::ClangTidyContext &Context);

/// The diagnostics engine a ClangTidyContext reports through, sending to
/// \p Consumer, for as long as this object lives (as in clang-tidy's own
/// runClangTidy). LLVM 22's context owns the engine's DiagnosticOptions,
/// LLVM 19's engine shares them.
class ContextDiagnostics {
public:
  ContextDiagnostics(clang::tidy::ClangTidyContext &Context,
                     clang::DiagnosticConsumer &Consumer);
  ~ContextDiagnostics();

private:
  std::unique_ptr<clang::DiagnosticsEngine> Engine;
};

/// An inter-process lock on \p Path (llvm::LockFileManager; LLVM 22 replaced
/// its getState/waitForUnlock with tryLock/waitForUnlockFor). The
/// constructor tries once and never waits: owned() when this process holds
/// the lock, or when no lock can be had at all (the caller then goes on
/// without one).
class FileLock {
public:
  explicit FileLock(llvm::StringRef Path);
  bool owned() const { return Owner; }
  /// Waits up to \p MaxSeconds for the owner to let go. The lock is not
  /// taken over: the caller re-reads what the owner made.
  void waitForOwner(unsigned MaxSeconds);

private:
  llvm::LockFileManager Lock;
  bool Owner = false;
};

} // namespace torchtidy::driver::compat

#endif
