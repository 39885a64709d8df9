//===--- TorchOps.cpp - Recognise LibTorch calls by declaration -----------===//

#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/AST/DeclCXX.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace torchtidy {

bool isTorchFunction(const FunctionDecl *FD) {
  if (!FD)
    return false;
  const DeclContext *DC = FD->getDeclContext();
  const NamespaceDecl *Top = nullptr;
  for (; DC && !DC->isTranslationUnit(); DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      if (!NS->isInline())
        Top = NS;
  if (!Top || !Top->getIdentifier())
    return false;
  StringRef Name = Top->getName();
  return Name == "at" || Name == "c10" || Name == "torch";
}

bool isTensorMethod(const CXXMethodDecl *MD) {
  if (!MD)
    return false;
  const CXXRecordDecl *RD = MD->getParent();
  return RD && (hasQualifiedName(RD, "Tensor", {"at"}) ||
                hasQualifiedName(RD, "TensorBase", {"at"}));
}

llvm::StringRef torchCalleeName(const CallExpr *Call) {
  if (!Call)
    return "";
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return "";
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return isTensorMethod(MD) ? FD->getName() : "";
  return isTorchFunction(FD) ? FD->getName() : "";
}

const CXXRecordDecl *moduleForwardCall(const CallExpr *Call,
                                       const Expr **ModuleExpr) {
  // `emb(ids)`: ModuleHolder<EmbeddingImpl>::operator().
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
    if (Op->getOperator() != OO_Call || Op->getNumArgs() < 1)
      return nullptr;
    const Expr *Obj = Op->getArg(0);
    if (const CXXRecordDecl *M = getHolderModule(Obj->getType())) {
      if (ModuleExpr)
        *ModuleExpr = Obj;
      return M;
    }
    return nullptr;
  }
  // `emb->forward(ids)`, `impl.forward(ids)`.
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || !MD->getIdentifier() || MD->getName() != "forward")
      return nullptr;
    const CXXRecordDecl *RD = MD->getParent();
    if (!isModuleClass(RD))
      return nullptr;
    if (ModuleExpr) {
      const Expr *Obj = MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
      // Look through the holder's operator->.
      if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Obj))
        if (Arrow->getOperator() == OO_Arrow && Arrow->getNumArgs() == 1)
          Obj = Arrow->getArg(0);
      *ModuleExpr = Obj;
    }
    return RD;
  }
  return nullptr;
}

static bool isNnModuleNamed(const CXXRecordDecl *RD, StringRef Name) {
  return RD && hasQualifiedName(RD, Name, {"torch", "nn"});
}

/// The only element of `{idx}`, else null.
static const Expr *singleListElement(const Expr *E) {
  if (!E)
    return nullptr;
  E = E->IgnoreImplicit();
  if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E))
    if (Ctor->getNumArgs() == 1)
      E = Ctor->getArg(0)->IgnoreImplicit();
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E))
    E = List->getSubExpr()->IgnoreImplicit();
  if (const auto *IL = dyn_cast<InitListExpr>(E))
    return IL->getNumInits() == 1 ? IL->getInit(0) : nullptr;
  return nullptr;
}

std::optional<IndexOpSite> matchIndexOp(const CallExpr *Call) {
  if (!Call)
    return std::nullopt;
  IndexOpSite Site;

  const Expr *ModuleExpr = nullptr;
  if (const CXXRecordDecl *M = moduleForwardCall(Call, &ModuleExpr)) {
    bool IsEmbedding = isNnModuleNamed(M, "EmbeddingImpl");
    if (!IsEmbedding && !isNnModuleNamed(M, "EmbeddingBagImpl"))
      return std::nullopt;
    Site.K = IsEmbedding ? IndexOpSite::Embedding : IndexOpSite::EmbeddingBag;
    Site.Name = IsEmbedding ? "Embedding" : "EmbeddingBag";
    Site.Module = ModuleExpr;
    Site.ModuleClass = M;
    // operator() has the holder as argument 0; forward has only its own.
    unsigned First = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
    if (Call->getNumArgs() <= First)
      return std::nullopt;
    Site.Index = Call->getArg(First);
    return Site;
  }

  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
    // t[idx] with a tensor index.
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
    if (!isTensorMethod(MD) || Op->getOperator() != OO_Subscript ||
        Op->getNumArgs() != 2 || !isTensorType(Op->getArg(1)->getType()))
      return std::nullopt;
    Site.K = IndexOpSite::AdvancedIndex;
    Site.Name = "operator[]";
    Site.Source = Op->getArg(0);
    Site.Index = Op->getArg(1);
    return Site;
  }

  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return std::nullopt;
  StringRef Name = FD->getName();
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  const bool Method = MD && !MD->isStatic();
  if (Method ? !isTensorMethod(MD) : !isTorchFunction(FD))
    return std::nullopt;
  // Arguments as the free function takes them: (self, ...).
  auto Arg = [&](unsigned FreeIndex) -> const Expr * {
    if (Method) {
      if (FreeIndex == 0)
        return cast<CXXMemberCallExpr>(Call)->getImplicitObjectArgument();
      FreeIndex -= 1;
    }
    return FreeIndex < Call->getNumArgs() ? Call->getArg(FreeIndex) : nullptr;
  };
  const bool Functional =
      !Method && FD->getDeclContext()->isNamespace() &&
      cast<NamespaceDecl>(FD->getDeclContext())->getName() == "functional";

  using K = IndexOpSite;
  std::optional<std::pair<K::Kind, unsigned>> Shape =
      llvm::StringSwitch<std::optional<std::pair<K::Kind, unsigned>>>(Name)
          .Case("index_select", std::make_pair(K::IndexSelect, 2u))
          .Case("gather", std::make_pair(K::Gather, 2u))
          .Case("take_along_dim", std::make_pair(K::Gather, 1u))
          .Cases("scatter", "scatter_", "scatter_add", "scatter_add_",
                 std::make_pair(K::Scatter, 2u))
          .Cases("index_add", "index_add_", "index_copy", "index_copy_",
                 std::make_pair(K::IndexUpdate, 2u))
          .Cases("index_fill", "index_fill_",
                 std::make_pair(K::IndexUpdate, 2u))
          .Case("take", std::make_pair(K::Take, 1u))
          .Case("index_put_", std::make_pair(K::IndexPut, 1u))
          .Case("index", std::make_pair(K::AdvancedIndex, 1u))
          .Default(std::nullopt);
  if (Shape) {
    Site.K = Shape->first;
    Site.Name = Name;
    Site.Source = Arg(0);
    const Expr *Index = Arg(Shape->second);
    if (Site.K == K::IndexPut || Site.K == K::AdvancedIndex) {
      if (!Method)
        return std::nullopt;
      Index = singleListElement(Index);
    }
    Site.Index = Index;
    if (!Site.Source ||
        (!Site.Index && Site.K != K::IndexPut && Site.K != K::AdvancedIndex))
      return std::nullopt;
    return Site;
  }
  if (Method)
    return std::nullopt;

  if (Name == "embedding" || Name == "embedding_bag") {
    Site.K = Name == "embedding" ? K::Embedding : K::EmbeddingBag;
    Site.Name = Name;
    // at::embedding(weight, indices); F::embedding(input, weight).
    Site.Source = Functional ? Arg(1) : Arg(0);
    Site.Index = Functional ? Arg(0) : Arg(1);
    if (!Site.Source || !Site.Index)
      return std::nullopt;
    return Site;
  }
  if (Name == "nll_loss" || Name == "cross_entropy" ||
      Name == "cross_entropy_loss" || Name == "nll_loss2d") {
    Site.K = K::LossTarget;
    Site.Name = Name;
    Site.Source = Arg(0);
    Site.Index = Arg(1);
    if (!Site.Source || !Site.Index)
      return std::nullopt;
    return Site;
  }
  return std::nullopt;
}

} // namespace torchtidy
