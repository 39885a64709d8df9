//===--- FromBlobDtypeCheck.h - torch-tidy ----------------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_FROMBLOBDTYPECHECK_H
#define TORCHTIDY_CHECKS_FROMBLOBDTYPECHECK_H

#include "UserCodeCheck.h"
#include "torchtidy/analysis/PointeeTypes.h"

namespace clang::tidy::libtorch {

/// Finds from_blob calls whose dtype (float when none is given) does not
/// match the type of the elements its pointer points at: the tensor
/// reinterprets their bytes, and may read past the end of the buffer.
///
/// For the user-facing documentation see:
/// docs/checks/from-blob-dtype.md
class FromBlobDtypeCheck : public UserCodeCheck {
public:
  FromBlobDtypeCheck(StringRef Name, ClangTidyContext *Context)
      : UserCodeCheck(Name, Context) {}

private:
  void checkTranslationUnit(ASTContext &Ctx) override;
  void report(const torchtidy::BlobDtypeMismatch &M, ASTContext &Ctx);
};

} // namespace clang::tidy::libtorch

#endif
