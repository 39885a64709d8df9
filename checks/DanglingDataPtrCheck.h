//===--- DanglingDataPtrCheck.h - torch-tidy --------------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_DANGLINGDATAPTRCHECK_H
#define TORCHTIDY_CHECKS_DANGLINGDATAPTRCHECK_H

#include "UserCodeCheck.h"
#include "torchtidy/analysis/PointerLifetime.h"

namespace clang::tidy::libtorch {

/// Finds raw pointers into tensor storage (`data_ptr<T>()`, `data<T>()`,
/// accessors) that are used after that storage is freed: taken on a
/// temporary tensor an op may have freshly allocated and kept past the end
/// of the statement, or taken on a local tensor that goes out of scope or
/// is reassigned before the pointer's last use.
///
/// For the user-facing documentation see:
/// docs/checks/dangling-data-ptr.md
class DanglingDataPtrCheck : public UserCodeCheck {
public:
  DanglingDataPtrCheck(StringRef Name, ClangTidyContext *Context)
      : UserCodeCheck(Name, Context) {}

private:
  void checkFunction(const FunctionDecl *FD, ASTContext &Ctx) override;
  void report(const torchtidy::DanglingPointer &D, const FunctionDecl *FD,
              ASTContext &Ctx);
};

} // namespace clang::tidy::libtorch

#endif
