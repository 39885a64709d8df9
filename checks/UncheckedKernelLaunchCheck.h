//===--- UncheckedKernelLaunchCheck.h - torch-tidy --------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_UNCHECKEDKERNELLAUNCHCHECK_H
#define TORCHTIDY_CHECKS_UNCHECKEDKERNELLAUNCHCHECK_H

#include "UserCodeCheck.h"
#include "torchtidy/analysis/KernelLaunches.h"
#include "utils/IncludeInserter.h"

#include "llvm/ADT/DenseSet.h"

#include <string>
#include <vector>

namespace clang::tidy::libtorch {

/// Finds custom CUDA kernel launches that can fail with nothing reading the
/// error, that run on the legacy default stream instead of LibTorch's
/// current stream, or that receive the storage of a tensor that is not on
/// CUDA, not contiguous, or not of the pointer's dtype.
///
/// For the user-facing documentation see:
/// docs/checks/unchecked-kernel-launch.md
class UncheckedKernelLaunchCheck : public UserCodeCheck {
public:
  UncheckedKernelLaunchCheck(StringRef Name, ClangTidyContext *Context);
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    // A .cpp file has no launches, but calls the launchers of its .cu files.
    return LangOpts.CPlusPlus;
  }

private:
  void checkTranslationUnit(ASTContext &Ctx) override;
  void endTranslationUnit() override;
  void reportUnchecked(const torchtidy::KernelLaunchSite &Site);
  void reportStream(const torchtidy::KernelLaunchSite &Site);
  void reportArgument(const torchtidy::KernelArgIssue &Issue);
  /// Where the user wrote \p Loc: the file location, or the spelling of a
  /// macro argument (a launch inside AT_DISPATCH_...(..., [&] { ... })); in
  /// a macro's body, where the macro is used (its end, with \p End).
  SourceLocation writtenLoc(SourceLocation Loc, bool End = false) const;

  const std::string LaunchCheckMacros;
  const bool RequireLaunchCheck;
  const bool ReportDefaultStream;
  const bool ReportUnprovenArguments;
  utils::IncludeInserter Inserter;
  Preprocessor *PP = nullptr;
  ASTContext *Context = nullptr;
  /// Offsets a launch-check fix-it already inserts at.
  llvm::DenseSet<unsigned> FixedAt;

public:
  /// Evidence that this translation unit's kernels can run while LibTorch
  /// works on a stream other than the default one: the file is built as a
  /// PyTorch extension (TORCH_EXTENSION_NAME defined, as
  /// torch.utils.cpp_extension does: Python calls its ops under
  /// torch.cuda.stream), registers ops with the dispatcher (TORCH_LIBRARY,
  /// TORCH_LIBRARY_IMPL, PYBIND11_MODULE), or runs work on a stream of its
  /// own (op::OtherStream: cudaStreamCreate..., getStreamFromPool, a
  /// CUDAStreamGuard). Without it a launch on the default stream races
  /// with nothing and is not reported. An invalid Loc: the command line.
  struct StreamEvidence {
    SourceLocation Loc;
    std::string What;
  };
  std::optional<StreamEvidence> OtherStreams;
};

} // namespace clang::tidy::libtorch

#endif
