//===--- TorchOps.cpp - Recognise LibTorch calls by declaration -----------===//

#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/AST/DeclCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace clang;

namespace torchtidy {

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

namespace {

using namespace op;

const OpRow OpRows[] = {
#define TORCHTIDY_OP(Name, Forms, Facts) {#Name, (Forms), (Facts)},
#define TORCHTIDY_OP_SINCE(Name, Forms, Facts, Since)                          \
  {#Name, (Forms), (Facts), #Since},
#define TORCHTIDY_OP_UNTIL(Name, Forms, Facts, Until)                          \
  {#Name, (Forms), (Facts), "", #Until},
#include "torchtidy/analysis/TorchOps.def"
};

const IndexSinkRow SinkRows[] = {
#define TORCHTIDY_INDEX_SINK(Name, Forms, SinkKind, SourceArg, IndexArg,       \
                             Bound, BoundArg, SourceParam, IndexParam)         \
  {#Name,     (Forms),      IndexOpSite::SinkKind,                             \
   SourceArg, IndexArg,     IndexBound::Bound,                                 \
   BoundArg,  #SourceParam, #IndexParam},
#include "torchtidy/analysis/TorchOps.def"
};

const ModuleRow ModuleRows[] = {
#define TORCHTIDY_MODULE(Name, Facts) {#Name, (Facts)},
#include "torchtidy/analysis/TorchOps.def"
};

const DataHookRow DataHookRows[] = {
#define TORCHTIDY_DATA_HOOK(Base, Method) {KnownClass::Base, #Base, #Method},
#include "torchtidy/analysis/TorchOps.def"
};

const NamedOpRow NamedOpRows[] = {
#define TORCHTIDY_NAMED_OP(Name, Forms) {#Name, (Forms)},
#include "torchtidy/analysis/TorchOps.def"
};

const DtypeRow DtypeRows[] = {
#define TORCHTIDY_DTYPE(Name, Bytes, Kind, Real, Spelling, Pretty)             \
  {#Name, Bytes, DtypeRow::Kind, DtypeName::Real, Spelling, Pretty},
#include "torchtidy/analysis/TorchDtypes.def"
};

const ClassRow ClassRows[] = {
#define TORCHTIDY_CLASS(Name, Scope, Origin)                                   \
  {#Name, Scope, ClassOrigin::Origin},
#include "torchtidy/analysis/TorchOps.def"
};

const OpFamilyRow OpFamilyRows[] = {
#define TORCHTIDY_OP_FAMILY(Prefix, Forms, Facts, Next)                        \
  {#Prefix, (Forms), (Facts), FamilyNext::Next},
#include "torchtidy/analysis/TorchOps.def"
};

const ParamRow ParamRows[] = {
#define TORCHTIDY_PARAM(Name) {#Name},
#include "torchtidy/analysis/TorchOps.def"
};

const MacroRow MacroRows[] = {
#define TORCHTIDY_MACRO(Name, Facts, Origin, Header)                           \
  {#Name, (Facts), MacroOrigin::Origin, Header},
#include "torchtidy/analysis/TorchOps.def"
};

/// The rows by name, built once (function-local statics are thread-safe,
/// which torch-clangd's worker threads need).
struct Index {
  llvm::StringMap<llvm::SmallVector<const OpRow *, 2>> Ops;
  llvm::StringMap<llvm::SmallVector<const IndexSinkRow *, 2>> Sinks;
  llvm::StringMap<unsigned> Modules; // by implementation class name
};

const Index &index() {
  static const Index I = [] {
    Index I;
    for (const OpRow &R : OpRows)
      I.Ops[R.Name].push_back(&R);
    for (const IndexSinkRow &R : SinkRows)
      I.Sinks[R.Name].push_back(&R);
    for (const ModuleRow &R : ModuleRows)
      I.Modules[(R.Name + "Impl").str()] |= R.Facts;
    return I;
  }();
  return I;
}

} // namespace

llvm::ArrayRef<OpRow> opRows() { return OpRows; }
llvm::ArrayRef<IndexSinkRow> indexSinkRows() { return SinkRows; }
llvm::ArrayRef<ModuleRow> moduleRows() { return ModuleRows; }
llvm::ArrayRef<DataHookRow> dataHookRows() { return DataHookRows; }
llvm::ArrayRef<NamedOpRow> namedOpRows() { return NamedOpRows; }
llvm::ArrayRef<ClassRow> classRows() { return ClassRows; }
llvm::ArrayRef<DtypeRow> dtypeRows() { return DtypeRows; }
const DtypeRow &dtypeRow(DtypeName D) {
  return DtypeRows[static_cast<unsigned>(D)];
}
llvm::ArrayRef<OpFamilyRow> opFamilyRows() { return OpFamilyRows; }
llvm::ArrayRef<ParamRow> paramRows() { return ParamRows; }
llvm::ArrayRef<MacroRow> macroRows() { return MacroRows; }

unsigned macroFacts(llvm::StringRef Name) {
  unsigned Facts = op::NoMacroFact;
  for (const MacroRow &R : MacroRows)
    if (R.Name == Name)
      Facts |= R.Facts;
  return Facts;
}

std::vector<std::string> macrosWith(unsigned Facts) {
  std::vector<std::string> Names;
  for (const MacroRow &R : MacroRows)
    if ((R.Facts & Facts) == Facts)
      Names.push_back(R.Name.str());
  return Names;
}

const OpRow *firstOpWith(op::FactSet Facts) {
  for (const OpRow &R : OpRows)
    if ((R.Facts & Facts) == Facts)
      return &R;
  return nullptr;
}

const MacroRow *firstMacroWith(unsigned Facts) {
  for (const MacroRow &R : MacroRows)
    if ((R.Facts & Facts) == Facts)
      return &R;
  return nullptr;
}

bool OpFamilyRow::names(llvm::StringRef Name) const {
  if (!Name.consume_front(Prefix) || Name.empty())
    return false;
  switch (Next) {
  case FamilyNext::AnyChar:
    return true;
  case FamilyNext::Upper:
    return llvm::isUpper(Name.front());
  }
  return false;
}

bool hasParamName(const ParmVarDecl *P, op::Param N) {
  return P && P->getIdentifier() &&
         P->getName() == ParamRows[static_cast<unsigned>(N)].Name;
}

llvm::StringRef className(KnownClass C) {
  return ClassRows[static_cast<unsigned>(C)].Name;
}

llvm::StringRef opName(op::Named N) {
  return NamedOpRows[static_cast<unsigned>(N)].Name;
}

bool hasOpName(const NamedDecl *D, op::Named N) {
  return D && D->getIdentifier() && D->getName() == opName(N);
}

bool hasOpName(const NamedDecl *D, std::initializer_list<op::Named> Ns) {
  return llvm::any_of(Ns, [&](op::Named N) { return hasOpName(D, N); });
}

op::FactSet opFacts(llvm::StringRef Name, unsigned Forms) {
  const auto &Ops = index().Ops;
  auto It = Ops.find(Name);
  if (It == Ops.end())
    return NoFact;
  FactSet Facts = NoFact;
  for (const OpRow *R : It->second)
    if (R->Forms & Forms)
      Facts |= R->Facts;
  return Facts;
}

const IndexSinkRow *findIndexSink(llvm::StringRef Name, op::Form Form) {
  const auto &Sinks = index().Sinks;
  auto It = Sinks.find(Name);
  if (It == Sinks.end())
    return nullptr;
  for (const IndexSinkRow *R : It->second)
    if (R->Forms & Form)
      return R;
  return nullptr;
}

unsigned moduleFacts(const CXXRecordDecl *Impl) {
  if (!Impl || !Impl->getIdentifier() ||
      !inNamespaceOf(Impl, KnownClass::Module))
    return NoModuleFact;
  return index().Modules.lookup(Impl->getName());
}

unsigned moduleOptionsFacts(const CXXRecordDecl *Options) {
  if (!Options || !Options->getIdentifier())
    return NoModuleFact;
  llvm::StringRef Module = Options->getName();
  if (!Module.consume_back("Options") ||
      !inNamespaceOf(Options, KnownClass::Module))
    return NoModuleFact;
  return index().Modules.lookup((Module + "Impl").str());
}

/// A namespace of \p NS's name (\p NS a NamespaceDecl or another context).
static bool isNamespaceNamed(const DeclContext *NS, StringRef Name) {
  const auto *N = dyn_cast_or_null<NamespaceDecl>(NS);
  return N && N->getIdentifier() && N->getName() == Name;
}

/// Some namespace enclosing \p FD (at any depth) satisfies \p Is.
static bool inNamespace(const FunctionDecl *FD,
                        llvm::function_ref<bool(const DeclContext *)> Is) {
  for (const DeclContext *DC = FD->getDeclContext(); DC; DC = DC->getParent())
    if (isa<NamespaceDecl>(DC) && Is(DC))
      return true;
  return false;
}

/// Declared in namespace thrust or a namespace inside it.
static bool inThrustNamespace(const FunctionDecl *FD) {
  return inNamespace(
      FD, [](const DeclContext *NS) { return isNamespaceNamed(NS, "thrust"); });
}

/// Declared in torch::nn::functional or a namespace inside it (detail).
static bool inFunctionalNamespace(const FunctionDecl *FD) {
  return inNamespace(FD, [](const DeclContext *NS) {
    return isNamespaceNamed(NS, "functional") &&
           isNamespaceNamed(NS->getParent(), "nn");
  });
}

op::Form formOf(const FunctionDecl *FD) {
  if (!FD)
    return NoForm;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && !MD->isStatic()) {
    if (isTensorMethod(MD))
      return Method;
    const CXXRecordDecl *RD = MD->getParent();
    if (isClass(RD, KnownClass::TensorOptions))
      return op::Options;
    if (isModuleBaseClass(RD))
      return ModuleBase;
    return AnyMember;
  }
  if (!isTorchFunction(FD)) {
    if (FD->isInStdNamespace())
      return Std;
    if (FD->getDeclContext()->getRedeclContext()->isTranslationUnit())
      return Global;
    return inThrustNamespace(FD) ? Thrust : NoForm;
  }
  return inFunctionalNamespace(FD) ? Functional : Aten;
}

op::FactSet callFacts(const CallExpr *Call) {
  return callFacts(Call, formOf(Call ? Call->getDirectCallee() : nullptr));
}

op::FactSet callFacts(const CallExpr *Call, op::Form CalleeForm) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier())
    return NoFact;
  const StringRef Name = FD->getName();
  FactSet Facts = opFacts(Name, CalleeForm | AnyScope);
  for (const OpFamilyRow &R : OpFamilyRows)
    if ((R.Forms & CalleeForm) && R.names(Name))
      Facts |= R.Facts;
  return Facts;
}

const Expr *MoveDestination::givenDevice() const {
  if ((K != Device && K != Options) || !Operand ||
      isa<CXXDefaultArgExpr>(Operand))
    return nullptr;
  return Operand;
}

MoveDestination moveDestination(const CallExpr *Call) {
  MoveDestination D;
  const op::FactSet Facts = callFacts(Call);
  if (Facts & op::MovesToCuda) {
    D.K = MoveDestination::Cuda;
    return D;
  }
  if (Facts & op::MovesToCpu) {
    D.K = MoveDestination::Cpu;
    return D;
  }
  if (!(Facts & op::MovesToArgument))
    return D;
  D.K = MoveDestination::Unknown;
  const FunctionDecl *FD = Call->getDirectCallee();
  // `a.to(b)` spelled as an operator call has the object as argument 0.
  const unsigned Offset =
      isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(FD) ? 1 : 0;
  for (unsigned I = 0;
       I < FD->getNumParams() && I + Offset < Call->getNumArgs(); ++I) {
    const Expr *Arg = Call->getArg(I + Offset);
    const QualType P = FD->getParamDecl(I)->getType();
    if (I == 0) {
      if (isDeviceClass(P) || isDeviceTypeEnum(P))
        D.K = MoveDestination::Device;
      else if (isTensorOptionsClass(P))
        D.K = MoveDestination::Options;
      else if (isTensorType(P.getNonReferenceType()))
        D.K = MoveDestination::Like;
      else if (isScalarTypeEnum(P))
        D.K = MoveDestination::SameDevice;
      if (D.K != MoveDestination::SameDevice && D.K != MoveDestination::Unknown)
        D.Operand = Arg;
    }
    if (!D.Dtype && isScalarTypeEnum(P) && !isa<CXXDefaultArgExpr>(Arg))
      D.Dtype = Arg;
  }
  return D;
}

static bool mentionsCudaAvailability(const Stmt *S, unsigned Depth) {
  if (!S || Depth > limits::SearchDepth)
    return false;
  if (const auto *CE = dyn_cast<CallExpr>(S))
    if (callFacts(CE) & op::CudaAvailability)
      return true;
  for (const Stmt *Child : S->children())
    if (mentionsCudaAvailability(Child, Depth + 1))
      return true;
  return false;
}

bool mentionsCudaAvailability(const Stmt *S) {
  return mentionsCudaAvailability(S, 0);
}

op::FactSet constructFacts(const CXXConstructExpr *Construct) {
  const CXXConstructorDecl *Ctor =
      Construct ? Construct->getConstructor() : nullptr;
  const CXXRecordDecl *RD = Ctor ? Ctor->getParent() : nullptr;
  if (!RD || !RD->getIdentifier() || !isTorchFunction(Ctor))
    return NoFact;
  return opFacts(RD->getName(), op::Class);
}

bool mayBeIndexOpCallee(const FunctionDecl *FD) {
  if (!FD)
    return false;
  const OverloadedOperatorKind Op = FD->getOverloadedOperator();
  if (Op == OO_Call || Op == OO_Subscript)
    return true;
  if (!FD->getIdentifier())
    return false;
  return hasOpName(FD, op::Named::forward) ||
         index().Sinks.count(FD->getName());
}

bool inTorchNamespace(const Decl *D, bool OrCaffe2) {
  if (!D)
    return false;
  const NamespaceDecl *Top = nullptr;
  for (const DeclContext *DC = D->getDeclContext();
       DC && !DC->isTranslationUnit(); DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      if (!NS->isInline())
        Top = NS;
  if (!Top || !Top->getIdentifier())
    return false;
  const StringRef Name = Top->getName();
  return Name == "at" || Name == "c10" || Name == "torch" ||
         (OrCaffe2 && Name == "caffe2");
}

bool inTorchCudaNamespace(const Decl *D) {
  if (!inTorchNamespace(D))
    return false;
  for (const DeclContext *DC = D->getDeclContext();
       DC && !DC->isTranslationUnit(); DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC);
        NS && !NS->isInline() && NS->getIdentifier() && NS->getName() == "cuda")
      return true;
  return false;
}

bool isTorchFunction(const FunctionDecl *FD) { return inTorchNamespace(FD); }

bool isTensorMethod(const CXXMethodDecl *MD) {
  if (!MD)
    return false;
  const CXXRecordDecl *RD = MD->getParent();
  return isClass(RD, {KnownClass::Tensor, KnownClass::TensorBase});
}

bool isInPlaceTensorMethod(const CXXMethodDecl *MD) {
  return isTensorMethod(MD) && MD->getIdentifier() &&
         MD->getName().ends_with("_");
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
    if (!MD || !hasOpName(MD, op::Named::forward))
      return nullptr;
    const CXXRecordDecl *RD = MD->getParent();
    if (!isModuleClass(RD))
      return nullptr;
    if (ModuleExpr) {
      const Expr *Obj =
          peel::peel(MC->getImplicitObjectArgument(), peel::ParenImpCasts);
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

/// The only element of `{idx}`, else null.
static const Expr *singleListElement(const Expr *E) {
  const InitListExpr *IL = peel::writtenList(E);
  return IL && IL->getNumInits() == 1 ? IL->getInit(0) : nullptr;
}

std::optional<IndexOpSite> matchIndexSink(const CallExpr *Call) {
  if (!Call || Call->isInstantiationDependent() ||
      !mayBeIndexOpCallee(Call->getDirectCallee()))
    return std::nullopt;
  std::optional<IndexOpSite> Site = matchIndexOp(Call);
  if (!Site || !Site->Index || Site->K == IndexOpSite::AdvancedIndex)
    return std::nullopt;
  return Site;
}

std::optional<IndexOpSite> matchIndexOp(const CallExpr *Call) {
  if (!Call)
    return std::nullopt;
  IndexOpSite Site;

  const Expr *ModuleExpr = nullptr;
  if (const CXXRecordDecl *M = moduleForwardCall(Call, &ModuleExpr)) {
    const unsigned Facts = moduleFacts(M);
    if (!(Facts & (op::EmbeddingSink | op::EmbeddingBagSink)))
      return std::nullopt;
    const bool IsEmbedding = Facts & op::EmbeddingSink;
    Site.K = IsEmbedding ? IndexOpSite::Embedding : IndexOpSite::EmbeddingBag;
    Site.Name = IsEmbedding ? "Embedding" : "EmbeddingBag";
    Site.Module = ModuleExpr;
    Site.ModuleClass = M;
    Site.Bound = IndexBound::NumEmbeddings;
    // operator() has the holder as argument 0; forward has only its own.
    const unsigned First = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
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
  const op::Form Form = formOf(FD);
  const IndexSinkRow *Row = findIndexSink(FD->getName(), Form);
  if (!Row)
    return std::nullopt;
  // Arguments as the free function takes them: (self, ...).
  auto Arg = [&](unsigned FreeIndex) -> const Expr * {
    if (Form == op::Method) {
      if (FreeIndex == 0)
        return cast<CXXMemberCallExpr>(Call)->getImplicitObjectArgument();
      FreeIndex -= 1;
    }
    return FreeIndex < Call->getNumArgs() ? Call->getArg(FreeIndex) : nullptr;
  };
  Site.K = Row->Kind;
  Site.Name = Row->Name;
  Site.Source = Arg(Row->SourceArg);
  Site.Index = Arg(Row->IndexArg);
  Site.Bound = Row->Bound;
  if (Row->BoundArg >= 0)
    if (const Expr *Dim = Arg(static_cast<unsigned>(Row->BoundArg));
        Dim && !isa<CXXDefaultArgExpr>(Dim))
      Site.BoundDim = Dim;
  // A list of indices: the site's index is its only element, if one.
  if (Site.K == IndexOpSite::IndexPut || Site.K == IndexOpSite::AdvancedIndex)
    Site.Index = singleListElement(Site.Index);
  else if (!Site.Index)
    return std::nullopt;
  if (!Site.Source)
    return std::nullopt;
  return Site;
}

} // namespace torchtidy
