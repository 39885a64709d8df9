//===--- DriverCompat.cpp - the driver's LLVM 19/22 differences -----------===//

#include "DriverCompat.h"

#include "ClangTidy.h"
#include "ClangTidyDiagnosticConsumer.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "llvm/Support/FileSystem.h"
#if LLVM_VERSION_MAJOR >= 22
#include "clang/Options/OptionUtils.h"
#include "llvm/Support/Path.h"

#include <chrono>
#endif

namespace torchtidy::driver::compat {

void makeAbsolute(const llvm::Twine &Dir, llvm::SmallVectorImpl<char> &Path) {
#if LLVM_VERSION_MAJOR >= 22
  llvm::sys::path::make_absolute(Dir, Path);
#else
  llvm::sys::fs::make_absolute(Dir, Path);
#endif
}

std::string clangResourceDir() {
  // The resource directory of the clang whose libraries are linked: clang's
  // own headers, the CUDA wrappers among them. Derived from this
  // executable's path it is build/lib/clang/N in a build tree, which does
  // not exist, and clang then takes another directory whose CUDA wrappers
  // do not work (device placement new, in CUB, failed to parse).
#ifdef TORCHTIDY_CLANG_RESOURCE_DIR
  if (llvm::sys::fs::is_directory(TORCHTIDY_CLANG_RESOURCE_DIR "/include"))
    return TORCHTIDY_CLANG_RESOURCE_DIR;
#endif
  static int Anchor;
#if LLVM_VERSION_MAJOR >= 22
  return clang::GetResourcesPath("clang_tool", &Anchor);
#else
  return clang::CompilerInvocation::GetResourcesPath("clang_tool", &Anchor);
#endif
}

std::vector<std::string>
enabledCheckNames(const clang::tidy::ClangTidyOptions &Options,
                  const clang::tidy::ClangTidyContext &Context) {
  return clang::tidy::getCheckNames(Options,
                                    Context.canEnableAnalyzerAlphaCheckers()
#if LLVM_VERSION_MAJOR >= 22
                                        ,
                                    Context.canExperimentalCustomChecks()
#endif
  );
}

ContextDiagnostics::ContextDiagnostics(clang::tidy::ClangTidyContext &Context,
                                       clang::DiagnosticConsumer &Consumer) {
#if LLVM_VERSION_MAJOR >= 22
  auto Opts = std::make_unique<clang::DiagnosticOptions>();
  Engine = std::make_unique<clang::DiagnosticsEngine>(
      clang::DiagnosticIDs::create(), *Opts, &Consumer,
      /*ShouldOwnClient=*/false);
  Context.setDiagnosticsEngine(std::move(Opts), Engine.get());
#else
  Engine = std::make_unique<clang::DiagnosticsEngine>(
      new clang::DiagnosticIDs(), new clang::DiagnosticOptions(), &Consumer,
      /*ShouldOwnClient=*/false);
  Context.setDiagnosticsEngine(Engine.get());
#endif
}

ContextDiagnostics::~ContextDiagnostics() = default;

FileLock::FileLock(llvm::StringRef Path) : Lock(Path) {
#if LLVM_VERSION_MAJOR >= 22
  if (llvm::Expected<bool> Owned = Lock.tryLock()) {
    Owner = *Owned;
  } else {
    llvm::consumeError(Owned.takeError());
    Owner = true;
  }
#else
  Owner = Lock.getState() != llvm::LockFileManager::LFS_Shared;
#endif
}

void FileLock::waitForOwner(unsigned MaxSeconds) {
  if (Owner)
    return;
#if LLVM_VERSION_MAJOR >= 22
  (void)Lock.waitForUnlockFor(std::chrono::seconds(MaxSeconds));
#else
  (void)Lock.waitForUnlock(MaxSeconds);
#endif
}

} // namespace torchtidy::driver::compat
