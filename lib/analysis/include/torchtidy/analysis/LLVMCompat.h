//===--- LLVMCompat.h - Differences between supported LLVMs -----*- C++ -*-===//
//
// torch-tidy builds against LLVM/Clang 19 (the default) and 22
// (-DTORCHTIDY_LLVM_VERSION=22). Every API that differs between the two is
// wrapped here, so the rest of the code reads the same for both; when support
// for 19 is dropped, each wrapper collapses to its `>= 22` branch.
//
// The changes all landed between 19 and 22; the `>= 22` tests are what is
// built and tested (LLVM 20 and 21 are not).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_LLVMCOMPAT_H
#define TORCHTIDY_ANALYSIS_LLVMCOMPAT_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/LockFileManager.h"
#include "llvm/Support/Path.h"
#include <chrono>
#include <string>
#include <utility>

#if LLVM_VERSION_MAJOR < 19
#error "torch-tidy needs LLVM/Clang 19 or later"
#endif

/// clang-tidy's module registry (`ClangTidyModuleRegistry::Add`): its own
/// header up to LLVM 21; LLVM 22 moved it into ClangTidyModule.h and
/// deprecated the old header. Use as `#include TORCHTIDY_TIDY_REGISTRY_HEADER`
/// where the clang-tidy headers are on the include path.
#if LLVM_VERSION_MAJOR >= 22
#define TORCHTIDY_TIDY_REGISTRY_HEADER "ClangTidyModule.h"
#else
#define TORCHTIDY_TIDY_REGISTRY_HEADER "ClangTidyModuleRegistry.h"
#endif

namespace torchtidy::compat {

/// The type a record declares (`RD` as a type), for type predicates.
/// LLVM 22 deleted TagDecl::getTypeForDecl; the type comes from the context.
inline clang::QualType recordType(const clang::CXXRecordDecl *RD) {
#if LLVM_VERSION_MAJOR >= 22
  return RD->getASTContext().getCanonicalTagType(RD);
#else
  return {RD->getTypeForDecl(), 0};
#endif
}

/// Where \p Call begins in the source: `t` in `t[i]` and `emb` in `emb(x)`.
/// LLVM 22 made CallExpr::getBeginLoc inline and non-dispatching, so through a
/// `const CallExpr *` an overloaded operator call begins at its operator
/// (`[`, `(`); Stmt::getBeginLoc dispatches to CXXOperatorCallExpr's own,
/// in every version.
inline clang::SourceLocation beginLoc(const clang::CallExpr *Call) {
  return static_cast<const clang::Stmt *>(Call)->getBeginLoc();
}

/// Makes \p Path absolute against \p Dir when it is relative.
/// LLVM 22 moved the two-argument form from sys::fs to sys::path.
inline void makeAbsolute(const llvm::Twine &Dir,
                         llvm::SmallVectorImpl<char> &Path) {
#if LLVM_VERSION_MAJOR >= 22
  llvm::sys::path::make_absolute(Dir, Path);
#else
  llvm::sys::fs::make_absolute(Dir, Path);
#endif
}

/// Runs \p F when the returned object goes out of scope.
/// LLVM 22 deprecated make_scope_exit for scope_exit's constructor.
template <typename Callable> auto scopeExit(Callable &&F) {
#if LLVM_VERSION_MAJOR >= 22
  return llvm::scope_exit(std::forward<Callable>(F));
#else
  return llvm::make_scope_exit(std::forward<Callable>(F));
#endif
}

/// An inter-process lock on \p Path (llvm::LockFileManager; LLVM 22 replaced
/// its getState/waitForUnlock with tryLock/waitForUnlockFor). owned() when
/// this process holds it; otherwise the constructor waited, up to
/// \p MaxSeconds, for the owner to let go. A lock that cannot be had at all
/// counts as owned: the caller goes on without one.
class FileLock {
public:
  FileLock(llvm::StringRef Path, unsigned MaxSeconds) : Lock(Path) {
#if LLVM_VERSION_MAJOR >= 22
    if (llvm::Expected<bool> Owned = Lock.tryLock()) {
      Owner = *Owned;
    } else {
      llvm::consumeError(Owned.takeError());
      Owner = true;
    }
    if (!Owner)
      (void)Lock.waitForUnlockFor(std::chrono::seconds(MaxSeconds));
#else
    switch (Lock.getState()) {
    case llvm::LockFileManager::LFS_Error:
    case llvm::LockFileManager::LFS_Owned:
      Owner = true;
      break;
    case llvm::LockFileManager::LFS_Shared:
      (void)Lock.waitForUnlock(MaxSeconds);
      break;
    }
#endif
  }
  bool owned() const { return Owner; }

private:
  llvm::LockFileManager Lock;
  bool Owner = false;
};

} // namespace torchtidy::compat

#endif // TORCHTIDY_ANALYSIS_LLVMCOMPAT_H
