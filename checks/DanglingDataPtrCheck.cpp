//===--- DanglingDataPtrCheck.cpp - torch-tidy ----------------------------===//

#include "DanglingDataPtrCheck.h"
#include "MemoryText.h"
#include "SourceText.h"
#include "torchtidy/analysis/CudaWork.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/TensorStorage.h"
#include "torchtidy/analysis/TorchOps.h"

#include "clang/AST/ExprCXX.h"

using torchtidy::DanglingPointer;

namespace clang::tidy::libtorch {

void DanglingDataPtrCheck::checkFunction(const FunctionDecl *FD,
                                         ASTContext &Ctx) {
  if (!torchtidy::containsRawDataCall(FD))
    return;
  torchtidy::FunctionContext *Fn = torchtidy::FunctionContexts::of(Ctx).get(FD);
  if (!Fn)
    return;
  auto &Lifetime = Fn->analysis<torchtidy::PointerLifetime>();
  for (const DanglingPointer &D : Lifetime.danglingPointers())
    report(D, FD, Ctx);
}

namespace {

const char *const WhatHappens =
    "reads freed memory (on CUDA an illegal memory access, or silently "
    "another tensor's data)";

/// The name of the raw-pointer call: "data_ptr", "accessor".
std::string rawName(const CallExpr *Raw) {
  const FunctionDecl *FD = Raw->getDirectCallee();
  return FD ? FD->getNameAsString()
            : torchtidy::opName(torchtidy::op::Named::data_ptr).str();
}

/// What a fix-it calls the tensor it binds: the tensor it is made from and
/// what the op makes of it (`mu_cpu`, `x_contig`, `a_add`).
std::string bindingName(const DanglingPointer &D, const FunctionDecl *FD) {
  std::string Base;
  const Expr *E = D.AllocOp;
  for (unsigned I = 0; E && I < torchtidy::limits::OriginDepth; ++I) {
    const torchtidy::StorageStep S = torchtidy::storageStep(E);
    if (S.K == torchtidy::StorageStep::Named) {
      if (S.Decl->getIdentifier())
        Base = S.Decl->getName().str();
      break;
    }
    E = S.Input;
  }
  std::string Suffix = opName(D.AllocOp);
  if (const auto *Call = dyn_cast<CallExpr>(D.AllocOp)) {
    using torchtidy::MoveDestination;
    const MoveDestination Move = torchtidy::moveDestination(Call);
    const Expr *Given = Move.givenDevice();
    const torchtidy::DeviceClass To = Given ? torchtidy::classifyDevice(Given)
                                            : torchtidy::DeviceClass::Unknown;
    if (Move.K == MoveDestination::Cpu || To == torchtidy::DeviceClass::CPU) {
      Suffix = "cpu";
    } else if (Move.K == MoveDestination::Cuda ||
               To == torchtidy::DeviceClass::CUDA) {
      Suffix = "cuda";
    } else if (!Move.isMove() &&
               torchtidy::hasOpName(Call->getDirectCallee(),
                                    torchtidy::op::Named::contiguous)) {
      Suffix = "contig";
    }
  }
  return freshName(Base.empty() ? Suffix + "_tensor" : Base + "_" + Suffix, FD);
}

} // namespace

void DanglingDataPtrCheck::report(const DanglingPointer &D,
                                  const FunctionDecl *FD, ASTContext &Ctx) {
  const SourceLocation Loc = D.Raw->getExprLoc();
  if (!firstReport(Loc))
    return;
  const std::string Raw = rawName(D.Raw);
  const std::string Where = describeStore(D.Kept, Ctx);
  const std::string Holder =
      D.Kept.Holder ? D.Kept.Holder->getNameAsString() : "";

  if (D.C == DanglingPointer::Temporary) {
    const std::string Op = opName(D.AllocOp);
    const char *How = D.MayAlias ? "may have freshly allocated" : "allocated";
    {
      const DiagnosticBuilder Diag =
          D.Kept.escapes()
              ? diag(Loc, "'%0' of a temporary tensor that '%1' %2 is %3, but "
                          "the temporary is freed at the end of the "
                          "statement: the pointer %4; keep the tensor in a "
                          "torch::Tensor that lives as long as the pointer")
                    << Raw << Op << How << Where << WhatHappens
              : diag(Loc, "'%0' of a temporary tensor that '%1' %2 is %3, but "
                          "the temporary is freed at the end of the "
                          "statement: '%4' then %5; bind the tensor to a "
                          "named torch::Tensor first")
                    << Raw << Op << How << Where << Holder << WhatHappens;
      const std::string Text = writtenText(D.TemporaryTensor, Ctx);
      const SourceLocation Begin =
          D.Statement ? D.Statement->getBeginLoc() : SourceLocation();
      if (D.BindingFixes && !Text.empty() && Begin.isValid() &&
          !Begin.isMacroID()) {
        const std::string Name = bindingName(D, FD);
        const StringRef Indent = indentationAt(Begin, Ctx.getSourceManager());
        std::string Line =
            tensorTypeSpelling(Ctx) + " " + Name + " = " + Text + ";";
        Line += Indent.empty() ? std::string(" ") : "\n" + Indent.str();
        Diag << FixItHint::CreateInsertion(Begin, Line)
             << FixItHint::CreateReplacement(
                    CharSourceRange::getTokenRange(
                        D.TemporaryTensor->getSourceRange()),
                    Name);
      }
    }
    if (D.MayAlias)
      diag(D.AllocOp->getExprLoc(),
           "'%0' makes a new tensor here whenever it has to convert, move or "
           "copy the data",
           DiagnosticIDs::Note)
          << Op;
    if (D.Use)
      diag(D.Use->getBeginLoc(), "'%0' is used here, after the tensor is freed",
           DiagnosticIDs::Note)
          << Holder;
    return;
  }

  const std::string Tensor = D.Tensor->getNameAsString();
  if (D.Kept.escapes()) {
    diag(Loc, "'%0' of local tensor '%1' is %2, but '%1' frees its storage "
              "when it goes out of scope: the pointer then %3; keep the "
              "tensor alive as long as the pointer")
        << Raw << Tensor << Where << WhatHappens;
    return;
  }
  if (D.C == DanglingPointer::OutOfScope)
    diag(Loc, "'%0' of '%1' is %2, which is used after '%1' goes out of "
              "scope and frees its storage: '%3' then %4; keep '%1' alive as "
              "long as '%3' is used")
        << Raw << Tensor << Where << Holder << WhatHappens;
  else
    diag(Loc, "'%0' of '%1' is %2, which is used after '%1' is reassigned "
              "and its old storage freed: '%3' then %4; take the pointer "
              "again after the assignment")
        << Raw << Tensor << Where << Holder << WhatHappens;
  if (D.Kill)
    diag(D.C == DanglingPointer::OutOfScope ? D.Kill->getEndLoc()
                                            : D.Kill->getBeginLoc(),
         D.C == DanglingPointer::OutOfScope ? "'%0' goes out of scope here"
                                            : "'%0' is reassigned here",
         DiagnosticIDs::Note)
        << Tensor;
  if (D.Use)
    diag(D.Use->getBeginLoc(), "'%0' is used here", DiagnosticIDs::Note)
        << Holder;
}

} // namespace clang::tidy::libtorch
