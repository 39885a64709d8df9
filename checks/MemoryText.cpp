//===--- MemoryText.cpp - How the memory checks name what they found ------===//

#include "MemoryText.h"
#include "torchtidy/analysis/TensorStorage.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSet.h"

namespace clang::tidy::libtorch {

using torchtidy::BufferOrigin;
using torchtidy::Store;

static std::string nameOf(const ValueDecl *D) {
  return D && D->getIdentifier() ? D->getName().str() : std::string("?");
}

std::string describeStore(const Store &S, const ASTContext &Ctx) {
  std::string Text;
  switch (S.K) {
  case Store::None:
    return "used";
  case Store::Local:
    Text = "kept in '" + nameOf(S.Holder) + "'";
    break;
  case Store::Member:
    Text = "stored in member '" + nameOf(S.Holder) + "'";
    break;
  case Store::Global:
    Text = "stored in '" + nameOf(S.Holder) + "', which outlives the function";
    break;
  case Store::OutParam:
    Text = "stored through '" + nameOf(S.Holder) + "'";
    break;
  case Store::Returned:
    Text = "returned";
    break;
  case Store::Module:
    Text = "registered in the module";
    break;
  }
  if (!S.Through)
    return Text;
  if (const auto *Call = dyn_cast<CallExpr>(S.Through);
      Call && !isa<CXXOperatorCallExpr>(Call))
    return Text + " (wrapped by " + opName(Call) + ")";
  if (isa<LambdaExpr>(S.Through))
    return Text + " (captured by a lambda)";
  const QualType T = S.Through->getType();
  if (!T.isNull() && T->getAsCXXRecordDecl())
    return Text + " (inside a '" +
           T.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy()) + "')";
  return Text;
}

std::string describeBuffer(const BufferOrigin &B, const ASTContext &Ctx) {
  const VarDecl *VD = B.Owner;
  if (B.K == BufferOrigin::Temporary)
    return "the buffer of a temporary";
  if (!VD)
    return "memory it does not own";
  const bool Param = isa<ParmVarDecl>(VD);
  switch (B.K) {
  case BufferOrigin::Array:
    return Param ? "a parameter's array" : "a local array";
  case BufferOrigin::Container:
    return (Param ? "a '" : "a local '") +
           VD->getType().getNonReferenceType().getUnqualifiedType().getAsString(
               Ctx.getPrintingPolicy()) +
           (Param ? "' parameter passed by value" : "'");
  case BufferOrigin::Scalar:
    return Param ? "a parameter passed by value" : "a local variable";
  case BufferOrigin::Pointer:
    return "the memory '" + nameOf(VD) + "' points to";
  case BufferOrigin::Temporary:
    return "the buffer of a temporary";
  case BufferOrigin::Unknown:
    break;
  }
  return "memory it does not own";
}

std::string opName(const Expr *Op) {
  const torchtidy::StorageStep S = torchtidy::storageStep(Op);
  if (!S.OpName.empty())
    return S.OpName.str();
  if (const auto *Call = dyn_cast_or_null<CallExpr>(Op))
    if (const FunctionDecl *FD = Call->getDirectCallee())
      return FD->getNameAsString();
  return "the op";
}

std::string freshName(std::string Wanted, const FunctionDecl *FD) {
  llvm::StringSet<> Taken;
  for (const ParmVarDecl *P : FD->parameters())
    if (P->getIdentifier())
      Taken.insert(P->getName());
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    for (const FieldDecl *F : MD->getParent()->fields())
      if (F->getIdentifier())
        Taken.insert(F->getName());
  if (FD->getBody())
    torchtidy::forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      if (const auto *DS = dyn_cast<DeclStmt>(S))
        for (const Decl *D : DS->decls())
          if (const auto *ND = dyn_cast<NamedDecl>(D);
              ND && ND->getIdentifier())
            Taken.insert(ND->getName());
    });
  if (!Taken.contains(Wanted))
    return Wanted;
  for (unsigned I = 2;; ++I) {
    std::string Candidate = Wanted + "_" + std::to_string(I);
    if (!Taken.contains(Candidate))
      return Candidate;
  }
}

std::string tensorTypeSpelling(const ASTContext &Ctx) {
  // The C++ frontend's namespace, where torch::Tensor names at::Tensor
  // (torch/types.h's `using namespace at`). ATen's headers alone declare a
  // namespace torch too (torch::jit), without it.
  constexpr llvm::StringLiteral Frontend = "torch";
  const torchtidy::ClassRow &Tensor =
      torchtidy::classRows()[static_cast<unsigned>(
          torchtidy::KnownClass::Tensor)];
  const bool HasFrontend = torchtidy::isClass(
      torchtidy::lookupQualified(const_cast<ASTContext &>(Ctx), Frontend,
                                 Tensor.Name),
      torchtidy::KnownClass::Tensor);
  return ((HasFrontend ? llvm::StringRef(Frontend) : Tensor.Scope) +
          "::" + Tensor.Name)
      .str();
}

} // namespace clang::tidy::libtorch
