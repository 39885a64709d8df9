//===--- IndexRanges.cpp - Can an index leave its table? ------------------===//

#include "torchtidy/analysis/IndexRanges.h"
#include "torchtidy/analysis/CudaWork.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/Registration.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/Builtins.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace torchtidy {

//===----------------------------------------------------------------------===//
// Quantities and ranges
//===----------------------------------------------------------------------===//

bool Quantity::sameBase(const Quantity &O) const {
  if (K != O.K)
    return false;
  switch (K) {
  case Unknown:
    return false;
  case Constant:
    return true;
  case Named:
    return Base == O.Base && Field == O.Field;
  case Runtime:
    return Base == O.Base && Field == O.Field && Dim == O.Dim &&
           Container == O.Container;
  }
  return false;
}

/// Lo of a join: the smaller, when the two can be compared.
static Quantity lower(const Quantity &A, const Quantity &B) {
  if (A.sameBase(B))
    return A.Offset <= B.Offset ? A : B;
  return {};
}

/// Hi of a join: the larger, when the two can be compared.
static Quantity upper(const Quantity &A, const Quantity &B) {
  if (A.sameBase(B))
    return A.Offset >= B.Offset ? A : B;
  return {};
}

void IndexRange::join(const IndexRange &O) {
  Produced |= O.Produced;
  Opaque |= O.Opaque;
  if (O.HasInterval) {
    if (!HasInterval) {
      HasInterval = true;
      Lo = O.Lo;
      Hi = O.Hi;
      Interval = O.Interval;
      LoopCondition = O.LoopCondition;
      OpBound = O.OpBound;
    } else {
      Lo = lower(Lo, O.Lo);
      Hi = upper(Hi, O.Hi);
      OpBound &= O.OpBound;
    }
  }
  for (const auto &V : O.Values)
    Values.push_back(V);
  Sentinel |= O.Sentinel;
  if (!External && O.External) {
    External = O.External;
    How = O.How;
  }
}

namespace {

/// Looks through what only wraps a value: parens, implicit and explicit
/// casts, temporaries, cleanups, copies and converting constructors
/// (an integer to a c10::Scalar).
const Expr *unwrap(const Expr *E) {
  return peel::peel(E, peel::Converted | peel::CopiesAndMoves |
                           peel::ConvertingConstructions);
}

bool evaluateInt(const Expr *E, const ASTContext &Ctx, int64_t &Out) {
  E = unwrap(E);
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return false;
  if (!E->getType()->isIntegralOrEnumerationType() &&
      !E->getType()->isRealFloatingType())
    return false;
  Expr::EvalResult R;
  if (E->getType()->isIntegralOrEnumerationType()) {
    if (!E->EvaluateAsInt(R, Ctx))
      return false;
    Out = R.Val.getInt().getExtValue();
    return true;
  }
  return false;
}

/// The arguments of \p Call as the free function numbers them (self = 0).
const Expr *argAt(const CallExpr *Call, unsigned FreeIndex) {
  unsigned Index = FreeIndex;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    if (FreeIndex == 0)
      return MC->getImplicitObjectArgument();
    Index -= 1;
  } else if (isa<CXXOperatorCallExpr>(Call) &&
             isa_and_nonnull<CXXMethodDecl>(Call->getDirectCallee())) {
    // An operator method's object is argument 0 already.
  }
  if (Index >= Call->getNumArgs() ||
      isa<CXXDefaultArgExpr>(Call->getArg(Index)))
    return nullptr;
  return Call->getArg(Index);
}

/// The written arguments of a call, its object first for a method.
unsigned writtenArgs(const CallExpr *Call) {
  unsigned N = isa<CXXMemberCallExpr>(Call) ? 1 : 0;
  for (const Expr *A : Call->arguments())
    if (!isa<CXXDefaultArgExpr>(A))
      ++N;
  return N;
}

/// The elements of `{a, b}` passed as a braced list, else empty.
llvm::SmallVector<const Expr *, 4> listElements(const Expr *E) {
  llvm::SmallVector<const Expr *, 4> Out;
  if (const InitListExpr *IL = peel::writtenList(E))
    Out.append(IL->inits().begin(), IL->inits().end());
  return Out;
}

bool isStdContainer(QualType T) {
  return !getContainerElementType(T.getNonReferenceType()).isNull();
}

/// `(Base, Field)` of a named value written as \p E: `n`, `this->n_`,
/// `cfg.n`, `this->cfg_.n`.
std::optional<std::pair<const ValueDecl *, const FieldDecl *>>
namedValue(const Expr *E) {
  E = unwrap(E);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (isa<VarDecl>(DRE->getDecl()) || isa<BindingDecl>(DRE->getDecl()))
      return std::make_pair(DRE->getDecl(), nullptr);
  const auto *ME = dyn_cast<MemberExpr>(E);
  if (!ME)
    return std::nullopt;
  const auto *Field = dyn_cast<FieldDecl>(ME->getMemberDecl());
  if (!Field)
    return std::nullopt;
  const Expr *Base = unwrap(ME->getBase());
  if (isa<CXXThisExpr>(Base))
    return std::make_pair(nullptr, Field);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Base))
    if (isa<VarDecl>(DRE->getDecl()))
      return std::make_pair(DRE->getDecl(), Field);
  if (const auto *Inner = dyn_cast<MemberExpr>(Base))
    if (isa<CXXThisExpr>(unwrap(Inner->getBase())))
      if (const auto *Outer = dyn_cast<FieldDecl>(Inner->getMemberDecl()))
        return std::make_pair(Outer, Field);
  return std::nullopt;
}

const FunctionDecl *definitionOf(const FunctionDecl *FD) {
  const FunctionDecl *Def = nullptr;
  if (!FD || !FD->hasBody(Def) || !Def || Def->isDependentContext() ||
      !isUserDecl(Def))
    return nullptr;
  return Def;
}

/// A call that copies a sub-range of a tensor: slice, narrow, chunk...,
/// and `x.index({Slice(...), ...})`.
bool isCropCall(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CallExpr>(unwrap(E));
  if (!Call)
    return false;
  uint64_t Facts = callFacts(Call);
  if (Facts & op::Slices)
    return true;
  // Tensor::index with a Slice among its indices.
  if (formOf(Call->getDirectCallee()) == op::Method &&
      Call->getDirectCallee()->getName() == "index")
    for (const Expr *Part : listElements(argAt(Call, 1))) {
      bool IsSlice = false;
      forEachOwnStmt(Part, [&](const Stmt *S) {
        if (const auto *E = dyn_cast<Expr>(S))
          if (const auto *RD =
                  E->getType().getNonReferenceType()->getAsCXXRecordDecl())
            if (RD->getIdentifier() && RD->getName() == "Slice")
              IsSlice = true;
      });
      if (IsSlice)
        return true;
    }
  return false;
}

} // namespace

static std::string withOffset(std::string Text, int64_t Offset) {
  if (Offset > 0)
    Text += " + " + std::to_string(Offset);
  else if (Offset < 0)
    Text += " - " + std::to_string(-Offset);
  return Text;
}

static std::string nameOf(const ValueDecl *D) {
  const auto *ND = dyn_cast_or_null<NamedDecl>(D);
  return ND ? ND->getNameAsString() : std::string("?");
}

std::string describeQuantity(const Quantity &Q, const ASTContext &Ctx,
                             int64_t Delta) {
  switch (Q.K) {
  case Quantity::Unknown:
    return "?";
  case Quantity::Constant:
    return std::to_string(Q.Offset + Delta);
  case Quantity::Named: {
    std::string Name = Q.Field && Q.Base
                           ? nameOf(Q.Base) + "." + nameOf(Q.Field)
                       : Q.Field ? nameOf(Q.Field)
                                 : nameOf(Q.Base);
    return withOffset(Name, Q.Offset + Delta);
  }
  case Quantity::Runtime:
    break;
  }
  if (Q.Origin) {
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Q.Origin->getSourceRange()),
        Ctx.getSourceManager(), Ctx.getLangOpts());
    if (Range.isValid()) {
      std::string Text =
          Lexer::getSourceText(Range, Ctx.getSourceManager(), Ctx.getLangOpts())
              .trim()
              .str();
      if (!Text.empty())
        return withOffset(Text, Delta);
    }
  }
  std::string Name = Q.Field && Q.Base ? nameOf(Q.Base) + "." + nameOf(Q.Field)
                     : Q.Field         ? nameOf(Q.Field)
                                       : nameOf(Q.Base);
  Name += Q.Container ? ".size()" : ".size(" + std::to_string(Q.Dim) + ")";
  return withOffset(Name, Q.Offset + Delta);
}

//===----------------------------------------------------------------------===//
// The analysis
//===----------------------------------------------------------------------===//

struct IndexRangeAnalysis::Impl {
  ASTContext &Ctx;
  IndexGuardAnalysis &Guards;
  /// ReportParameters: a length parameter of a function with no caller in
  /// the TU is reported.
  bool NoCallerIsUnbounded;
  unsigned Depth = 0;

  /// Per class: constructor parameters (and fields of them) as the members
  /// they initialise. The key's field is null for the parameter itself;
  /// a member whose value is the whole parameter (a config struct) maps the
  /// parameter to that member with a null field.
  struct Aliases {
    llvm::DenseMap<std::pair<const ValueDecl *, const FieldDecl *>, Quantity>
        Values;
    llvm::DenseMap<const ValueDecl *, const FieldDecl *> Structs;
  };
  llvm::DenseMap<const CXXRecordDecl *, std::unique_ptr<Aliases>> ClassAliases;

  /// Who calls each function of the TU: (caller, call, first argument's
  /// position in the call).
  struct CallSite {
    const FunctionDecl *Caller;
    const CallExpr *Call;
    unsigned FirstArg;
  };
  std::optional<
      llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<CallSite, 2>>>
      Callers;

  Impl(ASTContext &Ctx, IndexGuardAnalysis &Guards, bool NoCallerIsUnbounded)
      : Ctx(Ctx), Guards(Guards), NoCallerIsUnbounded(NoCallerIsUnbounded) {}

  struct DepthGuard {
    unsigned &D;
    explicit DepthGuard(unsigned &D) : D(D) { ++D; }
    ~DepthGuard() { --D; }
  };

  //--- Quantities --------------------------------------------------------

  Quantity named(const ValueDecl *Base, const FieldDecl *Field,
                 const Expr *At) {
    Quantity Q;
    Q.K = Quantity::Named;
    Q.Base = Base;
    Q.Field = Field;
    Q.Origin = At;
    return Q;
  }

  Quantity runtime(const ValueDecl *Base, const FieldDecl *Field, int64_t Dim,
                   bool Container, const Expr *At) {
    Quantity Q;
    Q.K = Quantity::Runtime;
    Q.Base = Base;
    Q.Field = Field;
    Q.Dim = Dim;
    Q.Container = Container;
    Q.Origin = At;
    return Q;
  }

  /// The single value of local \p VD, if it is given once (its
  /// initialiser) and never written again.
  const Expr *singleDefinition(const FunctionDecl *FD, const VarDecl *VD) {
    if (!VD->isLocalVarDecl())
      return nullptr;
    IndexGuardFinder &F = Guards.finder(FD);
    std::vector<const Expr *> Defs = F.definitionsOf(VD);
    if (Defs.size() != 1)
      return nullptr;
    // The declaration is one write; anything else changes it.
    if (F.writesOf(IndexVar{VD, nullptr}).size() > 1)
      return nullptr;
    return Defs.front();
  }

  static void addOffset(Quantity &Q, int64_t K) {
    Q.Offset += K;
    for (Quantity &C : Q.CappedBy)
      C.Offset += K;
  }

  /// `c ? a : b` that picks the smaller of a and b (c compares them: `a <
  /// b ? a : b`, `T > n ? n : T`): a capped by b, as std::min.
  Quantity minOfConditional(const FunctionDecl *FD,
                            const ConditionalOperator *CO, const Expr *At) {
    Quantity A = quantityOf(FD, CO->getTrueExpr());
    Quantity B = quantityOf(FD, CO->getFalseExpr());
    if (!A.known() || !B.known())
      return {};
    llvm::SmallVector<Fact, 2> Facts;
    factsOf(CO->getCond(), true, Facts);
    if (Facts.size() != 1)
      return {};
    // The condition, when it holds, says a <= b.
    const Fact &F = Facts.front();
    const Expr *Small = F.L, *Large = F.R;
    BinaryOperatorKind Op = F.Op;
    if (Op == BO_GT || Op == BO_GE) {
      std::swap(Small, Large);
      Op = Op == BO_GT ? BO_LT : BO_LE;
    }
    if (Op != BO_LT && Op != BO_LE)
      return {};
    auto Same = [](const Quantity &X, const Quantity &Y) {
      return X.known() && X.sameBase(Y) && X.Offset == Y.Offset;
    };
    Quantity S = quantityOf(FD, Small), L = quantityOf(FD, Large);
    if (!(Same(S, A) && Same(L, B)))
      return {};
    Quantity Q = A;
    Q.CappedBy.push_back(B);
    Q.Origin = At;
    return Q;
  }

  Quantity quantityOf(const FunctionDecl *FD, const Expr *E) {
    if (!E || Depth > limits::OriginDepth)
      return {};
    DepthGuard G(Depth);
    const Expr *Written = E;
    E = unwrap(E);
    int64_t V = 0;
    if (evaluateInt(E, Ctx, V))
      return Quantity::constant(V, Written);
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      if (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub) {
        int64_t C = 0;
        if (evaluateInt(BO->getRHS(), Ctx, C)) {
          Quantity Q = quantityOf(FD, BO->getLHS());
          if (Q.known())
            addOffset(Q, BO->getOpcode() == BO_Add ? C : -C);
          Q.Origin = Written;
          return Q;
        }
        if (BO->getOpcode() == BO_Add && evaluateInt(BO->getLHS(), Ctx, C)) {
          Quantity Q = quantityOf(FD, BO->getRHS());
          if (Q.known())
            addOffset(Q, C);
          Q.Origin = Written;
          return Q;
        }
      }
      return {};
    }
    if (const auto *CO = dyn_cast<ConditionalOperator>(E))
      return minOfConditional(FD, CO, Written);
    if (const auto Named = namedValue(E)) {
      const auto [Base, Field] = *Named;
      if (!Field) {
        const auto *VD = dyn_cast<VarDecl>(Base);
        if (VD && !isa<ParmVarDecl>(VD) && VD->hasLocalStorage())
          if (const Expr *Def = singleDefinition(FD, VD)) {
            Quantity Q = quantityOf(FD, Def);
            if (Q.known()) {
              // Shown as the code names it here: `T`, not `x.size(1)`.
              Q.Origin = Written;
              return Q;
            }
          }
        return named(Base, nullptr, Written);
      }
      // `cfg.n` with cfg a local copy of (or a reference to) a parameter
      // or a member: the field of that.
      if (const auto *VD = dyn_cast_or_null<VarDecl>(Base);
          VD && VD->hasLocalStorage() && !isa<ParmVarDecl>(VD))
        if (const Expr *Def = singleDefinition(FD, VD))
          if (auto Src = namedValue(Def)) {
            if (!Src->second)
              return named(Src->first, Field, Written);
            if (!Src->first)
              return named(Src->second, Field, Written);
          }
      return named(Base, Field, Written);
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return {};
    const uint64_t Facts = callFacts(Call);
    if ((Facts & (op::StdMin | op::StdMax)) && Call->getNumArgs() == 2) {
      Quantity A = quantityOf(FD, Call->getArg(0));
      Quantity B = quantityOf(FD, Call->getArg(1));
      if (Facts & op::StdMax)
        return {}; // a lower bound says nothing of the end
      // min(a, b) is capped by both: keep the first, note the second.
      Quantity Q = A.known() ? A : B;
      if (A.known() && B.known())
        Q.CappedBy.push_back(B);
      Q.Origin = Written;
      return Q;
    }
    if (Facts & op::SizeOfDim)
      return sizeQuantity(FD, Call, Written);
    // x.sizes()[d]
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
        if (const auto *Sizes = dyn_cast<CallExpr>(unwrap(Op->getArg(0))))
          if (callFacts(Sizes) & op::SizesList) {
            int64_t Dim = 0;
            if (evaluateInt(Op->getArg(1), Ctx, Dim))
              return tensorDim(FD, argAt(Sizes, 0), Dim, Written);
          }
    // v.size() of a standard container.
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (MD && MD->getIdentifier() && MD->getName() == "size" &&
          MC->getNumArgs() == 0 &&
          isStdContainer(MC->getImplicitObjectArgument()->getType()))
        if (auto N = namedValue(MC->getImplicitObjectArgument()))
          return runtime(N->first, N->second, 0, /*Container=*/true, Written);
    }
    return {};
  }

  /// `x.size(d)` / `torch::size(x, d)`.
  Quantity sizeQuantity(const FunctionDecl *FD, const CallExpr *Call,
                        const Expr *Written) {
    const Expr *Tensor = argAt(Call, 0);
    const Expr *DimArg = argAt(Call, 1);
    int64_t Dim = 0;
    if (!Tensor || !DimArg || !evaluateInt(DimArg, Ctx, Dim))
      return {};
    return tensorDim(FD, Tensor, Dim, Written);
  }

  /// The size of tensor \p Tensor along \p Dim: the quantity its
  /// construction gives, else a runtime size.
  Quantity tensorDim(const FunctionDecl *FD, const Expr *Tensor, int64_t Dim,
                     const Expr *Written) {
    Quantity Made = constructedDim(FD, Tensor, Dim);
    if (Made.known()) {
      Made.Origin = Written;
      return Made;
    }
    if (auto N = namedValue(Tensor))
      return runtime(N->first, N->second, Dim, false, Written);
    return {};
  }

  /// The size along \p Dim that the construction of the tensor \p E gives:
  /// a factory's sizes, arange's length, linspace's steps, through moves
  /// and elementwise ops; a local's single definition, or a member's
  /// writes in its module's building code.
  Quantity constructedDim(const FunctionDecl *FD, const Expr *E, int64_t Dim) {
    if (!E || Depth > limits::OriginDepth)
      return {};
    DepthGuard G(Depth);
    E = unwrap(E);
    if (auto N = namedValue(E)) {
      const auto [Base, Field] = *N;
      if (!Field) {
        const auto *VD = dyn_cast<VarDecl>(Base);
        if (VD && VD->hasLocalStorage() && !isa<ParmVarDecl>(VD))
          if (const Expr *Def = singleDefinition(FD, VD))
            return constructedDim(FD, Def, Dim);
        return {};
      }
      if (!Base)
        return memberDim(Field, Dim);
      return {};
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return {};
    if (isRegistrationCall(Call) && Call->getNumArgs() >= 2)
      return constructedDim(FD, Call->getArg(1), Dim);
    const uint64_t Facts = callFacts(Call);
    const op::Form Form = formOf(Call->getDirectCallee());
    if (Facts & (op::MovesToCuda | op::MovesToCpu | op::MovesToArgument |
                 op::KeepsShape | op::ElementWise)) {
      if (Form == op::Method)
        return constructedDim(FD, argAt(Call, 0), Dim);
      if (Facts & op::ElementWise)
        return constructedDim(FD, argAt(Call, 0), Dim);
      return {};
    }
    // Arithmetic with one tensor operand keeps its shape: `1 - betas`.
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      if (Op->getNumArgs() == 2 &&
          (Op->getOperator() == OO_Plus || Op->getOperator() == OO_Minus ||
           Op->getOperator() == OO_Star || Op->getOperator() == OO_Slash)) {
        const bool T0 = isTensorType(Op->getArg(0)->getType());
        const bool T1 = isTensorType(Op->getArg(1)->getType());
        if (T0 != T1)
          return constructedDim(FD, Op->getArg(T0 ? 0 : 1), Dim);
      }
      return {};
    }
    if (Form != op::Aten)
      return {};
    if (Facts & op::IntervalArange) {
      if (Dim != 0 && Dim != -1)
        return {};
      unsigned N = writtenArgs(Call);
      const Expr *End =
          numericArgs(Call) >= 2 ? argAt(Call, 1) : argAt(Call, 0);
      const Expr *Start = numericArgs(Call) >= 2 ? argAt(Call, 0) : nullptr;
      (void)N;
      Quantity Q = quantityOf(FD, End);
      if (Start) {
        int64_t S = 0;
        if (!evaluateInt(Start, Ctx, S))
          return {};
        if (Q.known())
          Q.Offset -= S;
      }
      return Q;
    }
    if (Call->getDirectCallee()->getName() == "linspace" ||
        Call->getDirectCallee()->getName() == "logspace") {
      if (Dim != 0 && Dim != -1)
        return {};
      return quantityOf(FD, argAt(Call, 2));
    }
    if (Facts & (op::Factory | op::FillsValue)) {
      // zeros({a, b}), full({a, b}, v), randn({a, b}): sizes first.
      llvm::SmallVector<const Expr *, 4> Sizes = listElements(argAt(Call, 0));
      if (Sizes.empty())
        return {};
      int64_t D = Dim < 0 ? static_cast<int64_t>(Sizes.size()) + Dim : Dim;
      if (D < 0 || D >= static_cast<int64_t>(Sizes.size()))
        return {};
      return quantityOf(FD, Sizes[D]);
    }
    return {};
  }

  /// How many of a call's leading written arguments are numbers (not
  /// sizes, options or generators): arange(a, b) has 2, arange(n) 1.
  static unsigned numericArgs(const CallExpr *Call) {
    unsigned N = 0;
    for (const Expr *A : Call->arguments()) {
      if (isa<CXXDefaultArgExpr>(A))
        break;
      QualType T = A->getType();
      if (!(T->isIntegralOrEnumerationType() || T->isRealFloatingType())) {
        const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
        // c10::Scalar
        if (!(RD && RD->getIdentifier() && RD->getName() == "Scalar"))
          break;
      }
      ++N;
    }
    return N;
  }

  /// The size along \p Dim of a member tensor, from its module's building
  /// code: every write must agree.
  Quantity memberDim(const FieldDecl *Field, int64_t Dim) {
    const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
    if (!RD || !isTensorType(Field->getType()))
      return {};
    ModuleRegistration Reg;
    if (!Reg.analyze(RD))
      return {};
    const auto *It = Reg.members().find(Field);
    if (It == Reg.members().end())
      return {};
    std::optional<Quantity> Result;
    for (const MemberWrite &W : It->second.Writes) {
      if (W.IsNull || !W.Value || !W.Function)
        continue;
      Quantity Q =
          canonical(constructedDim(W.Function, W.Value, Dim), RD, W.Function);
      if (!Q.known())
        return {};
      if (Result && !(Result->sameBase(Q) && Result->Offset == Q.Offset))
        return {};
      if (!Result)
        Result = Q;
    }
    return Result ? *Result : Quantity();
  }

  /// The aliases of \p RD's constructors: `Net(int64_t n) : n_(n)` makes
  /// `n` in the constructor the member `n_`; `cfg_(cfg)` makes `cfg.x` the
  /// member's `cfg_.x`.
  const Aliases &aliasesOf(const CXXRecordDecl *RD) {
    std::unique_ptr<Aliases> &Slot = ClassAliases[RD];
    if (Slot)
      return *Slot;
    Slot = std::make_unique<Aliases>();
    Aliases &A = *Slot;
    for (const CXXConstructorDecl *Ctor : RD->ctors()) {
      const FunctionDecl *Def = definitionOf(Ctor);
      if (!Def)
        continue;
      auto Note = [&](const FieldDecl *Member, const Expr *Value) {
        const Expr *V = unwrap(Value);
        // A whole parameter of record type: a config struct.
        if (const auto *DRE = dyn_cast<DeclRefExpr>(V))
          if (const auto *PVD = dyn_cast<ParmVarDecl>(DRE->getDecl()))
            if (PVD->getType().getNonReferenceType()->isRecordType()) {
              A.Structs[PVD] = Member;
              return;
            }
        Quantity Q = quantityOf(Def, Value);
        if (Q.K != Quantity::Named || !isa_and_nonnull<ParmVarDecl>(Q.Base))
          return;
        Quantity M = named(nullptr, Member, Value);
        M.Offset = -Q.Offset;
        A.Values.try_emplace({Q.Base, Q.Field}, M);
      };
      for (const CXXCtorInitializer *Init :
           cast<CXXConstructorDecl>(Def)->inits())
        if (Init->isMemberInitializer() && Init->isWritten())
          Note(Init->getMember(), Init->getInit());
      if (const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody()))
        for (const Stmt *S : Body->body()) {
          const auto *E = dyn_cast<Expr>(S);
          if (!E)
            continue;
          E = unwrap(E);
          const Expr *LHS = nullptr, *RHS = nullptr;
          if (const auto *BO = dyn_cast<BinaryOperator>(E);
              BO && BO->getOpcode() == BO_Assign) {
            LHS = BO->getLHS();
            RHS = BO->getRHS();
          } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
                     Op && Op->getOperator() == OO_Equal &&
                     Op->getNumArgs() == 2) {
            LHS = Op->getArg(0);
            RHS = Op->getArg(1);
          }
          if (!LHS)
            continue;
          if (auto N = namedValue(LHS); N && !N->first && N->second)
            Note(N->second, RHS);
        }
    }
    return A;
  }

  /// \p Q as the members of \p RD name it, when \p Q is written in terms of
  /// the parameters of \p Scope, one of RD's constructors.
  Quantity canonical(Quantity Q, const CXXRecordDecl *RD,
                     const FunctionDecl *Scope) {
    if (Q.K != Quantity::Named || !RD || !isa_and_nonnull<ParmVarDecl>(Q.Base))
      return Q;
    if (!isa<CXXConstructorDecl>(Scope))
      return Q;
    const Aliases &A = aliasesOf(RD);
    auto It = A.Values.find({Q.Base, Q.Field});
    if (It != A.Values.end()) {
      Quantity M = It->second;
      M.Offset += Q.Offset;
      M.Origin = Q.Origin;
      return M;
    }
    if (Q.Field) {
      auto S = A.Structs.find(Q.Base);
      if (S != A.Structs.end()) {
        Quantity M = named(S->second, Q.Field, Q.Origin);
        M.Offset = Q.Offset;
        return M;
      }
    }
    return Q;
  }

  //--- Tables ------------------------------------------------------------

  /// The rows of the embedding a construction makes: `Embedding(n, d)`,
  /// `Embedding(EmbeddingOptions(n, d).padding_idx(0))`,
  /// `std::make_shared<EmbeddingImpl>(n, d)`, `register_module("e", ...)`.
  Quantity rowsOfConstruction(const FunctionDecl *FD, const Expr *E,
                              unsigned Steps = 0) {
    if (!E || Steps > limits::HelperDepth)
      return {};
    E = unwrap(E);
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      if (isRegistrationCall(Call) && Call->getNumArgs() >= 2)
        return rowsOfConstruction(FD, Call->getArg(1), Steps + 1);
      if ((callFacts(Call) & op::MakesShared) && Call->getNumArgs() >= 1) {
        if (const auto *RD = Call->getType()->getAsCXXRecordDecl())
          if (const CXXRecordDecl *M =
                  getSharedPtrModule(Call->getType().getCanonicalType()))
            if (moduleFacts(M) & (op::EmbeddingSink | op::EmbeddingBagSink)) {
              (void)RD;
              const Expr *A0 = Call->getArg(0);
              if (A0->getType()->isIntegralOrEnumerationType())
                return quantityOf(FD, A0);
              return rowsOfConstruction(FD, A0, Steps + 1);
            }
        return {};
      }
      // EmbeddingOptions(n, d).padding_idx(0): the options it was made of.
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
        if (moduleOptionsFacts(MC->getImplicitObjectArgument()
                                   ->getType()
                                   ->getAsCXXRecordDecl()))
          return rowsOfConstruction(FD, MC->getImplicitObjectArgument(),
                                    Steps + 1);
      return {};
    }
    const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
    if (!Ctor || Ctor->getNumArgs() < 1)
      return {};
    const CXXRecordDecl *RD = Ctor->getType()->getAsCXXRecordDecl();
    const CXXRecordDecl *Impl = getHolderModule(Ctor->getType());
    constexpr unsigned Tables = op::EmbeddingSink | op::EmbeddingBagSink;
    if (!((moduleFacts(Impl ? Impl : RD) & Tables) ||
          (moduleOptionsFacts(RD) & Tables)))
      return {};
    const Expr *First = Ctor->getArg(0);
    if (First->getType()->isIntegralOrEnumerationType())
      return quantityOf(FD, First);
    return rowsOfConstruction(FD, First, Steps + 1);
  }

  TableSize tableOf(const FunctionDecl *FD, const IndexOpSite &Site) {
    TableSize T;
    if (Site.Module) {
      std::optional<IndexVar> V = directVariable(Site.Module);
      if (!V)
        return T;
      if (!V->Field) {
        const auto *VD = dyn_cast_or_null<VarDecl>(V->Base);
        if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD))
          return T;
        if (const Expr *Def = singleDefinition(FD, VD)) {
          T.Rows = T.Size = rowsOfConstruction(FD, Def);
          T.MadeAt = Def;
        }
        return T;
      }
      if (V->Base)
        return T;
      const auto *RD = dyn_cast<CXXRecordDecl>(V->Field->getParent());
      if (!RD)
        return T;
      ModuleRegistration Reg;
      if (!Reg.analyze(RD))
        return T;
      const auto *It = Reg.members().find(V->Field);
      if (It == Reg.members().end())
        return T;
      std::optional<Quantity> Rows;
      for (const MemberWrite &W : It->second.Writes) {
        if (W.IsNull || !W.Value || !W.Function)
          continue;
        Quantity Q =
            canonical(rowsOfConstruction(W.Function, W.Value), RD, W.Function);
        if (!Q.known())
          return T;
        if (Rows && !(Rows->sameBase(Q) && Rows->Offset == Q.Offset))
          return T;
        if (!Rows) {
          Rows = Q;
          T.MadeAt = W.Value;
        }
      }
      if (Rows)
        T.Rows = T.Size = *Rows;
      return T;
    }
    int64_t Dim = 0;
    switch (Site.Bound) {
    case IndexBound::Rows:
      Dim = 0;
      break;
    case IndexBound::Classes:
      Dim = 1;
      break;
    case IndexBound::DimArg:
    case IndexBound::DimArgOrNumel:
      if (!Site.BoundDim || !evaluateInt(Site.BoundDim, Ctx, Dim))
        return T;
      break;
    default:
      return T;
    }
    T.Rows = T.Size = tensorDim(FD, Site.Source, Dim, nullptr);
    // A size known only at run time is the table itself: no fixed rows.
    if (T.Rows.K == Quantity::Runtime)
      T.Rows = {};
    T.MadeAt = Site.Source;
    return T;
  }

  //--- Ranges ------------------------------------------------------------

  /// The dimension an index producer works over: the argument of its
  /// `dim` parameter (its default when not written). Without one, a
  /// producer that takes more than its tensor (multinomial(n)) samples the
  /// last dimension, and one that takes only its tensor (nonzero()) gives
  /// positions along every dimension: nothing. Nothing too when the
  /// dimension is not a constant, or the op reads the flattened tensor
  /// (argmax() with no dim).
  std::optional<int64_t> producerDim(const CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      return std::nullopt;
    const unsigned OwnTensor = isa<CXXMethodDecl>(Callee) ? 0 : 1;
    for (unsigned P = 0; P < Callee->getNumParams(); ++P) {
      const ParmVarDecl *Param = Callee->getParamDecl(P);
      if (!Param->getIdentifier() || Param->getName() != "dim")
        continue;
      const Expr *A = P < Call->getNumArgs() ? Call->getArg(P) : nullptr;
      if (const auto *Default = dyn_cast_or_null<CXXDefaultArgExpr>(A))
        A = Default->getExpr();
      int64_t Dim = 0;
      if (A && evaluateInt(A, Ctx, Dim))
        return Dim;
      return std::nullopt;
    }
    if (Callee->getNumParams() > OwnTensor)
      return -1;
    return std::nullopt;
  }

  /// What an index producer gives (argmax, topk, sort, argsort,
  /// multinomial, nonzero): positions along the dimension it works over, in
  /// [0, size(dim)) of the tensor it reads, which says nothing of another
  /// table unless that size is shown to be at most the table's rows. The
  /// bound is the op's, not a length: an unknown size is no evidence. zeros
  /// gives 0.
  IndexRange producedRange(const FunctionDecl *FD, const CallExpr *Call,
                           uint64_t Facts) {
    if (Facts & (op::Factory | op::LikeFactory))
      return IndexRange::produced();
    const Expr *Source = argAt(Call, 0);
    Quantity Hi;
    if (Source && isTensorType(Source->getType().getNonReferenceType()))
      if (std::optional<int64_t> Dim = producerDim(Call))
        Hi = tensorDim(FD, Source, *Dim, nullptr);
    IndexRange R = interval(Quantity::constant(0, nullptr), Hi, Call);
    R.OpBound = true;
    return R;
  }

  IndexRange interval(const Quantity &Lo, const Quantity &Hi, const Expr *At) {
    IndexRange R;
    R.HasInterval = true;
    R.Lo = Lo;
    R.Hi = Hi;
    R.Interval = At;
    return R;
  }

  IndexRange values(const Quantity &V, const Expr *At, bool Sentinel) {
    IndexRange R;
    R.Values.push_back({V, At});
    R.Sentinel = Sentinel;
    return R;
  }

  /// Whether a local vector was filled with numbers parsed from text or
  /// bytes read from a file: the call that does it, and how.
  std::optional<std::pair<const Expr *, std::string>>
  parsedInto(const FunctionDecl *FD, const ValueDecl *Buffer) {
    std::optional<std::pair<const Expr *, std::string>> Found;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      if (Found)
        return;
      const auto *Call = dyn_cast<CallExpr>(S);
      if (!Call)
        return;
      const uint64_t Facts = callFacts(Call);
      bool Mentions = false;
      // push_back(std::stoi(tok)) into the buffer, or read(buffer.data()).
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
        if (auto N = namedValue(MC->getImplicitObjectArgument());
            N && N->first == Buffer && !N->second &&
            hasOpFact(MC->getMethodDecl()->getName(), op::AnyMember,
                      op::ContainerInsert))
          for (const Expr *A : MC->arguments()) {
            if (const Expr *P = parseCall(A))
              Found = std::make_pair(P, calleeText(P));
            // `in >> id; ids.push_back(id);`
            else if (auto V = namedValue(A); V && !V->second)
              if (const Expr *X = extractionInto(FD, V->first))
                Found = std::make_pair(X, std::string("a stream (>>)"));
          }
      }
      if (Facts & op::ReadsBytes)
        for (const Expr *A : Call->arguments())
          forEachOwnStmt(A, [&](const Stmt *Sub) {
            if (const auto *DRE = dyn_cast<DeclRefExpr>(Sub))
              if (DRE->getDecl() == Buffer)
                Mentions = true;
          });
      if (Mentions && !Found)
        Found = std::make_pair(cast<Expr>(Call), calleeText(Call));
    });
    return Found;
  }

  /// `in >> v` with `in` a std::istream (a file, a string stream, std::cin)
  /// and \p V the variable read into, in \p FD; else null.
  const Expr *extractionInto(const FunctionDecl *FD, const ValueDecl *V) {
    const Expr *Found = nullptr;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
      if (Found || !Op || Op->getOperator() != OO_GreaterGreater ||
          Op->getNumArgs() != 2)
        return;
      auto Into = namedValue(Op->getArg(1));
      if (!Into || Into->first != V || Into->second)
        return;
      // The left side is a stream: its type derives from std::basic_istream.
      const auto *RD =
          Op->getArg(0)->getType().getNonReferenceType()->getAsCXXRecordDecl();
      if (RD && RD->hasDefinition() && isInputStream(RD))
        Found = Op;
    });
    return Found;
  }

  static bool isInputStream(const CXXRecordDecl *RD) {
    if (hasQualifiedName(RD, "basic_istream", {"std"}))
      return true;
    for (const CXXBaseSpecifier &B : RD->bases())
      if (const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl())
        if (Base->hasDefinition() && isInputStream(Base))
          return true;
    return false;
  }

  /// The range of a for-loop's induction variable: `for (int64_t i = c;
  /// i < n; ++i)` gives [c, n); `i <= n`, [c, n + 1). Else nothing.
  struct LoopBound {
    Quantity Lo, Hi;
    const Expr *Condition;
  };
  std::optional<LoopBound> loopRange(const FunctionDecl *FD,
                                     const VarDecl *VD) {
    std::optional<LoopBound> Found;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *For = dyn_cast<ForStmt>(S);
      if (Found || !For || !For->getInit() || !For->getCond())
        return;
      const auto *DS = dyn_cast<DeclStmt>(For->getInit());
      if (!DS || !DS->isSingleDecl() || DS->getSingleDecl() != VD ||
          !VD->getInit())
        return;
      const auto *Cond =
          dyn_cast<BinaryOperator>(For->getCond()->IgnoreImplicit());
      if (!Cond || (Cond->getOpcode() != BO_LT && Cond->getOpcode() != BO_LE))
        return;
      auto L = namedValue(Cond->getLHS());
      if (!L || L->first != VD || L->second)
        return;
      // Counting up by one or more.
      const Expr *Inc =
          For->getInc() ? For->getInc()->IgnoreImplicit() : nullptr;
      const auto *UO = dyn_cast_or_null<UnaryOperator>(Inc);
      const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc);
      int64_t Step = 0;
      if (!((UO && UO->isIncrementOp()) ||
            (CA && CA->getOpcode() == BO_AddAssign &&
             evaluateInt(CA->getRHS(), Ctx, Step) && Step > 0)))
        return;
      Quantity Lo = quantityOf(FD, VD->getInit());
      Quantity Hi = quantityOf(FD, Cond->getRHS());
      if (!Lo.known() || !Hi.known())
        return;
      if (Cond->getOpcode() == BO_LE)
        Hi.Offset += 1;
      Found = LoopBound{Lo, Hi, Cond};
    });
    return Found;
  }

  /// The range of one element of `torch::tensor({...})`: a constant, or a
  /// loop variable (plus a constant).
  IndexRange elementRange(const FunctionDecl *FD, const Expr *E) {
    int64_t K = 0;
    if (evaluateInt(E, Ctx, K))
      return values(Quantity::constant(K, E), E, false);
    const Expr *Base = unwrap(E);
    int64_t Shift = 0;
    if (const auto *BO = dyn_cast<BinaryOperator>(Base);
        BO && (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub) &&
        evaluateInt(BO->getRHS(), Ctx, K)) {
      Shift = BO->getOpcode() == BO_Add ? K : -K;
      Base = unwrap(BO->getLHS());
    }
    if (auto N = namedValue(Base); N && !N->second)
      if (const auto *VD = dyn_cast_or_null<VarDecl>(N->first))
        if (auto Loop = loopRange(FD, VD)) {
          IndexRange R = interval(Loop->Lo, Loop->Hi, E);
          R.LoopCondition = Loop->Condition;
          return Shift ? shift(R, Shift) : R;
        }
    // A scalar parameter (`torch::tensor({id})`): the callers' values, named
    // so that a caller's argument can be put in (still unknown here).
    if (auto N = namedValue(Base); N && !N->second)
      if (const auto *PVD = dyn_cast_or_null<ParmVarDecl>(N->first);
          PVD && PVD->getDeclContext() == FD &&
          PVD->getType().getNonReferenceType()->isIntegerType()) {
        Quantity Q = quantityOf(FD, Base);
        if (Q.K == Quantity::Named && Q.Base == PVD && !Q.Field) {
          Q.Offset += Shift;
          IndexRange R = values(Q, E, false);
          R.Opaque = true;
          return R;
        }
      }
    return IndexRange::opaque();
  }

  /// A call to std::stoi and friends in \p E (`std::stoi(tok)`,
  /// `static_cast<int64_t>(std::stol(s))`), else null.
  const Expr *parseCall(const Expr *E) {
    const Expr *Found = nullptr;
    forEachOwnStmt(E, [&](const Stmt *S) {
      if (const auto *Call = dyn_cast<CallExpr>(S))
        if (!Found && (callFacts(Call) & op::ParsesInteger))
          Found = Call;
    });
    return Found;
  }

  static std::string calleeText(const Expr *E) {
    const auto *Call = dyn_cast<CallExpr>(E);
    const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
    if (!FD)
      return "a read";
    if (FD->isInStdNamespace())
      return "std::" + FD->getNameAsString();
    if (isa<CXXMethodDecl>(FD))
      return FD->getNameAsString();
    return FD->getQualifiedNameAsString();
  }

  /// `torch::load(ids, path)`: the load that writes \p V in \p FD.
  const Expr *loadInto(const FunctionDecl *FD, const ValueDecl *V) {
    const Expr *Found = nullptr;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *Call = dyn_cast<CallExpr>(S);
      if (Found || !Call || !(callFacts(Call) & op::LoadsTensor) ||
          Call->getNumArgs() < 1)
        return;
      if (auto N = namedValue(Call->getArg(0));
          N && N->first == V && !N->second)
        Found = Call;
    });
    return Found;
  }

  IndexRange rangeOf(const FunctionDecl *FD, const Expr *E, const Stmt *Use) {
    if (!E || Depth > limits::OriginDepth)
      return IndexRange::opaque();
    DepthGuard G(Depth);
    E = unwrap(E);
    IndexGuardFinder &F = Guards.finder(FD);
    if (std::optional<IndexVar> V = directVariable(E)) {
      if (Use && F.findGuard(*V, Use))
        return IndexRange::produced();
      // `batch.data` of a DataLoader's batch: what the dataset's get() puts
      // there.
      if (V->Field && V->Base)
        if (std::optional<IndexRange> R = batchFieldRange(FD, *V))
          return *R;
      if (V->Field || !V->Base)
        return IndexRange::opaque();
      const auto *VD = dyn_cast<VarDecl>(V->Base);
      if (!VD || !VD->hasLocalStorage() || VD->isCXXForRangeDecl())
        return IndexRange::opaque();
      IndexRange R;
      bool Any = false;
      // A parameter's own values are the caller's: opaque here.
      if (isa<ParmVarDecl>(VD))
        R.Opaque = true;
      else
        for (const Expr *Def : F.definitionsOf(VD)) {
          R.join(rangeOf(FD, Def, nullptr));
          Any = true;
        }
      // Values written into it: ids.fill_(-1), ids.masked_fill_(m, -100),
      // ids.index_put_({mask}, -1).
      for (const Stmt *W : F.writesOf(*V)) {
        const auto *Call = dyn_cast<CallExpr>(W);
        if (!Call)
          continue;
        if (const FunctionDecl *Callee = Call->getDirectCallee();
            Callee && Callee->getIdentifier() &&
            Callee->getName() == "index_put_" && formOf(Callee) == op::Method)
          if (const Expr *Value = argAt(Call, 2);
              Value && !isTensorType(Value->getType().getNonReferenceType())) {
            R.join(values(quantityOf(FD, Value), Value, true));
            Any = true;
          }
        if (!(callFacts(Call) & op::FillsValue))
          continue;
        const bool Masked =
            Call->getDirectCallee()->getName().starts_with("masked_fill");
        if (const Expr *Value = argAt(Call, Masked ? 2 : 1)) {
          R.join(values(quantityOf(FD, Value), Value, true));
          Any = true;
        }
      }
      if (const Expr *Load = loadInto(FD, VD)) {
        IndexRange L;
        L.External = Load;
        L.How = "torch::load";
        R.join(L);
        Any = true;
      }
      return Any || R.Opaque ? R : IndexRange::opaque();
    }
    if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
      IndexRange R = rangeOf(FD, CO->getTrueExpr(), nullptr);
      R.join(rangeOf(FD, CO->getFalseExpr(), nullptr));
      return R;
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return IndexRange::opaque();
    const FunctionDecl *Callee = Call->getDirectCallee();
    const uint64_t Facts = callFacts(Call);
    const op::Form Form = formOf(Callee);
    if ((Facts & (op::PassesThrough | op::TupleElement)) &&
        Call->getNumArgs() == 1)
      return rangeOf(FD, Call->getArg(0), nullptr);
    // An element of the pieces of a split: `ids.split(n).at(1)`, `[0]`.
    if (const Expr *Whole = wholeOfSplitPiece(Call))
      return rangeOf(FD, Whole, nullptr);
    if (Form == op::Method && (Facts & op::ValuePreserving))
      return rangeOf(FD, argAt(Call, 0), nullptr);
    // F::pad(x, F::PadFuncOptions({0, n}).value(-1)): x's values and the
    // padding value (0 unless the options say).
    if (Form == op::Functional && (Facts & op::FillsValue) &&
        Callee->getName() == "pad") {
      IndexRange R = rangeOf(FD, argAt(Call, 0), nullptr);
      if (const Expr *Value = optionValue(argAt(Call, 1), "value"))
        R.join(values(quantityOf(FD, Value), Value, true));
      else
        R.join(values(Quantity::constant(0, Call), Call, true));
      return R;
    }
    // What an index op reads is a subset of its source's values:
    // `order.index({Slice(), Slice(0, k)})`, `sorted.gather(1, pick)`,
    // `perm[i]`.
    if (std::optional<IndexOpSite> Read = matchIndexOp(Call))
      if (Read->Source &&
          (Read->K == IndexOpSite::IndexSelect ||
           Read->K == IndexOpSite::Gather || Read->K == IndexOpSite::Take ||
           Read->K == IndexOpSite::AdvancedIndex))
        return rangeOf(FD, Read->Source, nullptr);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2 &&
          isTensorType(Op->getArg(0)->getType().getNonReferenceType()))
        return rangeOf(FD, Op->getArg(0), nullptr);
    constexpr uint64_t Intervals =
        op::IntervalArange | op::IntervalRandint | op::IntervalRandperm;
    if ((Facts & op::IndexProducer) && !(Facts & Intervals))
      return producedRange(FD, Call, Facts);
    if (Facts & (op::BoundsClamp | op::BoundsModulo | op::Bucketizes))
      return boundedRange(FD, Call, Facts);
    // ids + k, ids - k, k + ids (member or free operators).
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      return shifted(FD, Op);
    if (Form == op::Aten) {
      if (Facts & op::IntervalArange) {
        unsigned N = numericArgs(Call);
        if (N == 0)
          return IndexRange::opaque();
        Quantity Lo = N >= 2 ? quantityOf(FD, argAt(Call, 0))
                             : Quantity::constant(0, nullptr);
        Quantity Hi = quantityOf(FD, argAt(Call, N >= 2 ? 1 : 0));
        return interval(Lo, Hi, Call);
      }
      if (Facts & op::IntervalRandint) {
        unsigned N = numericArgs(Call);
        if (N == 0)
          return IndexRange::opaque();
        Quantity Lo = N >= 2 ? quantityOf(FD, argAt(Call, 0))
                             : Quantity::constant(0, nullptr);
        Quantity Hi = quantityOf(FD, argAt(Call, N >= 2 ? 1 : 0));
        return interval(Lo, Hi, Call);
      }
      if (Facts & op::IntervalRandperm)
        return interval(Quantity::constant(0, nullptr),
                        quantityOf(FD, argAt(Call, 0)), Call);
      if (Facts & op::LiteralTensor) {
        if (auto Ids = literalIds(Call, Ctx)) {
          IndexRange R;
          for (const auto &[Id, At] : *Ids)
            R.Values.push_back({Quantity::constant(Id, At), At});
          return R;
        }
        // torch::tensor({i}) of loop variables.
        if (llvm::SmallVector<const Expr *, 4> Elems =
                listElements(argAt(Call, 0));
            !Elems.empty()) {
          IndexRange R;
          for (const Expr *Elem : Elems)
            R.join(elementRange(FD, Elem));
          if (R.HasInterval || !R.Values.empty())
            return R;
        }
        // torch::tensor(v) of a vector filled by parsing.
        if (const Expr *A0 = argAt(Call, 0))
          if (auto N = namedValue(A0); N && !N->second)
            if (auto P = parsedInto(FD, N->first)) {
              IndexRange R;
              R.External = P->first;
              R.How = P->second;
              return R;
            }
        return IndexRange::opaque();
      }
      if (Facts & op::WrapsMemory) {
        // from_blob(v.data(), ...) / from_blob(buf, ...) over parsed data.
        const Expr *Ptr = argAt(Call, 0);
        const ValueDecl *Buffer = nullptr;
        forEachOwnStmt(Ptr, [&](const Stmt *S) {
          if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
            if (!Buffer && isa<VarDecl>(DRE->getDecl()))
              Buffer = DRE->getDecl();
        });
        if (Buffer)
          if (auto P = parsedInto(FD, Buffer)) {
            IndexRange R;
            R.External = P->first;
            R.How = P->second;
            return R;
          }
        return IndexRange::opaque();
      }
      if (Facts & op::Concatenates) {
        IndexRange R;
        llvm::SmallVector<const Expr *, 4> Parts = listElements(argAt(Call, 0));
        if (Parts.empty())
          return IndexRange::opaque();
        for (const Expr *Part : Parts)
          R.join(rangeOf(FD, Part, nullptr));
        return R;
      }
      if (Facts & op::FillsValue) {
        // full(sizes, v), full_like(x, v), masked_fill(x, m, v).
        if (Callee->getName().starts_with("masked_fill")) {
          IndexRange R = rangeOf(FD, argAt(Call, 0), nullptr);
          if (const Expr *Value = argAt(Call, 2))
            R.join(values(quantityOf(FD, Value), Value, true));
          return R;
        }
        if (const Expr *Value = argAt(Call, 1))
          return values(quantityOf(FD, Value), Value, true);
        return IndexRange::opaque();
      }
      if (Callee->getName() == "where")
        return whereRange(FD, Call);
      return IndexRange::opaque();
    }
    if (Form == op::Method && (Facts & op::FillsValue)) {
      const bool Masked = Callee->getName().starts_with("masked_fill");
      IndexRange R =
          Masked ? rangeOf(FD, argAt(Call, 0), nullptr) : IndexRange();
      if (const Expr *Value = argAt(Call, Masked ? 2 : 1))
        R.join(values(quantityOf(FD, Value), Value, true));
      return R;
    }
    if (Form == op::Method && Callee->getName() == "where")
      return whereRange(FD, Call);
    if (Form == op::Method &&
        (Callee->getName() == "add" || Callee->getName() == "sub")) {
      int64_t K = 0;
      const Expr *Other = argAt(Call, 1);
      if (Other && !isTensorType(Other->getType()) &&
          evaluateInt(Other, Ctx, K))
        return shift(rangeOf(FD, argAt(Call, 0), nullptr),
                     Callee->getName() == "add" ? K : -K);
      return IndexRange::opaque();
    }
    // A helper of this translation unit: what its returns give.
    if (Form == op::NoForm || Form == op::AnyMember || Form == op::Global)
      return helperRange(FD, Call);
    return IndexRange::opaque();
  }

  /// What a bounding op gives: clamp(lo, hi) [lo, hi + 1) (one-sided, no
  /// bound at all); remainder(x, n) [0, n); fmod(x, n) [0, n) when x is
  /// not negative (it keeps x's sign); searchsorted / bucketize [0, N + 1)
  /// with N the boundaries' size.
  IndexRange boundedRange(const FunctionDecl *FD, const CallExpr *Call,
                          uint64_t Facts) {
    auto Bound = [&](const Quantity &Lo, const Quantity &Hi) {
      IndexRange R = interval(Lo, Hi, Call);
      R.OpBound = true;
      return R;
    };
    if (Facts & op::BoundsClamp) {
      const Expr *Min = argAt(Call, 1), *Max = argAt(Call, 2);
      if (!Min || !Max || isNone(Min) || isNone(Max))
        return IndexRange::opaque();
      Quantity Hi = quantityOf(FD, Max);
      if (Hi.known())
        addOffset(Hi, 1);
      return Bound(quantityOf(FD, Min), Hi);
    }
    if (Facts & op::BoundsModulo) {
      Quantity N = quantityOf(FD, argAt(Call, 1));
      if (!N.known() || (N.K == Quantity::Constant && N.Offset <= 0))
        return IndexRange::opaque();
      const bool Fmod = Call->getDirectCallee()->getName().starts_with("fmod");
      if (Fmod && !nonNegative(rangeOf(FD, argAt(Call, 0), nullptr)))
        return IndexRange::opaque();
      return Bound(Quantity::constant(0, nullptr), N);
    }
    // searchsorted(boundaries, v) / bucketize(v, boundaries).
    const bool Search = Call->getDirectCallee()->getName() == "searchsorted";
    const Expr *Boundaries = argAt(Call, Search ? 0 : 1);
    Quantity N =
        Boundaries ? tensorDim(FD, Boundaries, -1, nullptr) : Quantity();
    if (N.known())
      addOffset(N, 1);
    return Bound(Quantity::constant(0, nullptr), N);
  }

  /// Every value some path gives is >= 0.
  static bool nonNegative(const IndexRange &R) {
    if (R.Opaque || R.External)
      return false;
    if (!R.Produced && !R.HasInterval && R.Values.empty())
      return false;
    if (R.HasInterval && !(R.Lo.K == Quantity::Constant && R.Lo.Offset >= 0))
      return false;
    for (const auto &V : R.Values)
      if (!(V.first.K == Quantity::Constant && V.first.Offset >= 0))
        return false;
    return true;
  }

  /// The argument of the option setter \p Name in an options chain
  /// (`F::PadFuncOptions({0, 2}).value(-1)` -> `-1`), else null.
  static const Expr *optionValue(const Expr *Options, llvm::StringRef Name) {
    const Expr *Found = nullptr;
    if (Options)
      forEachOwnStmt(Options, [&](const Stmt *S) {
        if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S))
          if (const CXXMethodDecl *MD = MC->getMethodDecl())
            if (!Found && MD->getIdentifier() && MD->getName() == Name &&
                MC->getNumArgs() == 1)
              Found = MC->getArg(0);
      });
    return Found;
  }

  IndexRange whereRange(const FunctionDecl *FD, const CallExpr *Call) {
    // where(cond, a, b): a or b, tensors or numbers.
    IndexRange R;
    for (unsigned I = 1; I <= 2; ++I) {
      const Expr *A = argAt(Call, I);
      if (!A)
        return IndexRange::opaque();
      if (isTensorType(A->getType().getNonReferenceType()))
        R.join(rangeOf(FD, A, nullptr));
      else
        R.join(values(quantityOf(FD, A), A, true));
    }
    return R;
  }

  /// `v.at(i)`, `v[i]`, `v.front()` of the result of split/chunk/unbind:
  /// the tensor they were cut from.
  IndexRange shift(IndexRange R, int64_t K) {
    R.Shift += K;
    if (R.HasInterval) {
      if (R.Lo.known())
        R.Lo.Offset += K;
      if (R.Hi.known())
        R.Hi.Offset += K;
    }
    for (auto &V : R.Values)
      if (V.first.known())
        V.first.Offset += K;
    // An index in range by construction, moved: no longer known.
    if (R.Produced && K != 0) {
      R.Produced = false;
      R.Opaque = true;
    }
    return R;
  }

  IndexRange shifted(const FunctionDecl *FD, const CXXOperatorCallExpr *Op) {
    if (Op->getNumArgs() != 2 ||
        (Op->getOperator() != OO_Plus && Op->getOperator() != OO_Minus))
      return IndexRange::opaque();
    const Expr *L = Op->getArg(0), *R = Op->getArg(1);
    int64_t K = 0;
    if (isTensorType(L->getType().getNonReferenceType()) &&
        !isTensorType(R->getType().getNonReferenceType()) &&
        evaluateInt(R, Ctx, K))
      return shift(rangeOf(FD, L, nullptr),
                   Op->getOperator() == OO_Plus ? K : -K);
    if (Op->getOperator() == OO_Plus &&
        isTensorType(R->getType().getNonReferenceType()) &&
        !isTensorType(L->getType().getNonReferenceType()) &&
        evaluateInt(L, Ctx, K))
      return shift(rangeOf(FD, R, nullptr), K);
    return IndexRange::opaque();
  }

  /// The range a helper of this TU returns, with its parameters replaced by
  /// the arguments of \p Call.
  IndexRange helperRange(const FunctionDecl *FD, const CallExpr *Call) {
    const FunctionDecl *Def = definitionOf(Call->getDirectCallee());
    if (!Def || Def == FD || Depth > limits::HelperDepth * 2 ||
        !isTensorType(Def->getReturnType()))
      return IndexRange::opaque();
    IndexRange R;
    bool Any = false;
    forEachOwnStmt(Def->getBody(), [&](const Stmt *S) {
      if (const auto *Ret = dyn_cast<ReturnStmt>(S))
        if (const Expr *V = Ret->getRetValue()) {
          R.join(substitute(rangeOf(Def, V, nullptr), Def, FD, Call));
          Any = true;
        }
    });
    return Any ? R : IndexRange::opaque();
  }

  Quantity substitute(Quantity Q, const FunctionDecl *Callee,
                      const FunctionDecl *Caller, const CallExpr *Call) {
    if (Q.K != Quantity::Named && Q.K != Quantity::Runtime)
      return Q;
    const auto *PVD = dyn_cast_or_null<ParmVarDecl>(Q.Base);
    if (!PVD || PVD->getDeclContext() != Callee || Q.Field)
      return Q;
    unsigned First = isa<CXXOperatorCallExpr>(Call) &&
                             isa<CXXMethodDecl>(Call->getDirectCallee())
                         ? 1
                         : 0;
    unsigned I = PVD->getFunctionScopeIndex() + First;
    if (I >= Call->getNumArgs())
      return {};
    if (Q.K == Quantity::Runtime) {
      Quantity R = Q;
      auto N = namedValue(Call->getArg(I));
      if (!N)
        return {};
      R.Base = N->first;
      R.Field = N->second;
      return R;
    }
    Quantity A = quantityOf(Caller, Call->getArg(I));
    if (A.known())
      A.Offset += Q.Offset;
    return A;
  }

  IndexRange substitute(IndexRange R, const FunctionDecl *Callee,
                        const FunctionDecl *Caller, const CallExpr *Call) {
    if (R.HasInterval) {
      R.Lo = substitute(R.Lo, Callee, Caller, Call);
      R.Hi = substitute(R.Hi, Callee, Caller, Call);
    }
    for (auto &V : R.Values) {
      const Quantity Before = V.first;
      V.first = substitute(V.first, Callee, Caller, Call);
      // A parameter's value is written at the caller's argument.
      if (Before.K == Quantity::Named && V.first.K == Quantity::Constant &&
          V.first.Origin)
        V.second = V.first.Origin;
    }
    return R;
  }

  //--- Callers ----------------------------------------------------------

  void buildCallers() {
    if (Callers)
      return;
    Callers.emplace();
    forEachUserFunction(Ctx, [&](const FunctionDecl *Caller) {
      forEachOwnStmt(Caller->getBody(), [&](const Stmt *S) {
        const auto *Call = dyn_cast<CallExpr>(S);
        if (!Call)
          return;
        // `model(x)` through a holder: the module's forward.
        const Expr *ModuleExpr = nullptr;
        if (const CXXRecordDecl *M = moduleForwardCall(Call, &ModuleExpr)) {
          if (isa<CXXOperatorCallExpr>(Call)) {
            for (const CXXMethodDecl *MD : M->methods())
              if (MD->getIdentifier() && MD->getName() == "forward")
                if (const FunctionDecl *Def = definitionOf(MD))
                  (*Callers)[Def].push_back({Caller, Call, 1});
            return;
          }
        }
        if (const FunctionDecl *Def = definitionOf(Call->getDirectCallee())) {
          unsigned First =
              isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Def) ? 1 : 0;
          (*Callers)[Def].push_back({Caller, Call, First});
        }
      });
    });
  }

  llvm::ArrayRef<CallSite> callersOf(const FunctionDecl *FD) {
    buildCallers();
    if (!Callers)
      return {};
    auto It = Callers->find(FD);
    if (It == Callers->end())
      return {};
    return It->second;
  }

  //--- Relations between a length and a table ---------------------------

  /// A comparison `L Op R` known to hold at some point.
  struct Fact {
    const Expr *L;
    BinaryOperatorKind Op;
    const Expr *R;
  };

  static BinaryOperatorKind negated(BinaryOperatorKind Op) {
    switch (Op) {
    case BO_LT:
      return BO_GE;
    case BO_LE:
      return BO_GT;
    case BO_GT:
      return BO_LE;
    case BO_GE:
      return BO_LT;
    case BO_EQ:
      return BO_NE;
    default:
      return BO_EQ;
    }
  }

  /// The comparisons that hold when \p Cond evaluates to \p Holds: through
  /// `!`, `&&` when it holds, `||` when it does not, and __builtin_expect
  /// (C10_UNLIKELY).
  static void factsOf(const Expr *Cond, bool Holds,
                      llvm::SmallVectorImpl<Fact> &Out, unsigned Depth = 0) {
    if (!Cond || Depth > limits::SearchDepth)
      return;
    Cond = unwrap(Cond);
    if (const auto *UO = dyn_cast<UnaryOperator>(Cond)) {
      if (UO->getOpcode() == UO_LNot)
        factsOf(UO->getSubExpr(), !Holds, Out, Depth + 1);
      return;
    }
    if (const auto *Call = dyn_cast<CallExpr>(Cond)) {
      if (Call->getBuiltinCallee() == Builtin::BI__builtin_expect &&
          Call->getNumArgs() == 2)
        factsOf(Call->getArg(0), Holds, Out, Depth + 1);
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
          Op && Op->isComparisonOp() && Op->getNumArgs() == 2) {
        BinaryOperatorKind K =
            BinaryOperator::getOverloadedOpcode(Op->getOperator());
        if (K != BO_Cmp)
          Out.push_back({Op->getArg(0), Holds ? K : negated(K), Op->getArg(1)});
      }
      return;
    }
    const auto *BO = dyn_cast<BinaryOperator>(Cond);
    if (!BO)
      return;
    if ((BO->getOpcode() == BO_LAnd && Holds) ||
        (BO->getOpcode() == BO_LOr && !Holds)) {
      factsOf(BO->getLHS(), Holds, Out, Depth + 1);
      factsOf(BO->getRHS(), Holds, Out, Depth + 1);
      return;
    }
    if (BO->isComparisonOp() && BO->getOpcode() != BO_Cmp)
      Out.push_back({BO->getLHS(),
                     Holds ? BO->getOpcode() : negated(BO->getOpcode()),
                     BO->getRHS()});
  }

  /// \p Len is at most \p Rows when \p Q (a quantity written in the code)
  /// is at most \p Bound: Q has Len's base, Bound has Rows' base (or both
  /// Bound and Rows are constants), and the offsets agree.
  static bool boundedBy(const Quantity &Q, const Quantity &Bound, int64_t Slack,
                        const Quantity &Len, const Quantity &Rows) {
    if (!Q.known() || !Bound.known() || !Q.sameBase(Len) ||
        !Bound.sameBase(Rows))
      return false;
    // Q.base + q <= Bound.base + b + Slack, so Len.base + l <= Rows.base +
    // (b + Slack - q + l): within the rows when that is at most r.
    return Bound.Offset + Slack - Q.Offset + Len.Offset <= Rows.Offset;
  }

  /// Fact \p F implies \p Len <= \p Rows.
  bool implies(const FunctionDecl *FD, const Fact &F, const Quantity &Len,
               const Quantity &Rows) {
    const Expr *Small = F.L, *Large = F.R;
    BinaryOperatorKind Op = F.Op;
    if (Op == BO_GT || Op == BO_GE) {
      std::swap(Small, Large);
      Op = Op == BO_GT ? BO_LT : BO_LE;
    }
    if (Op != BO_LT && Op != BO_LE && Op != BO_EQ)
      return false;
    Quantity S = quantityOf(FD, Small), L = quantityOf(FD, Large);
    const int64_t Slack = Op == BO_LT ? -1 : 0;
    if (boundedBy(S, L, Slack, Len, Rows))
      return true;
    return Op == BO_EQ && boundedBy(L, S, 0, Len, Rows);
  }

  /// \p S holds \p Target.
  static bool holds(const Stmt *S, const Stmt *Target) {
    if (!S || !Target)
      return false;
    bool Found = false;
    forEachOwnStmt(S, [&](const Stmt *Sub) { Found |= Sub == Target; });
    return Found;
  }

  /// The conditions of \p FD that bound \p Len by \p Rows where \p Use
  /// runs: asserted (TORCH_CHECK, assert: a branch whose other side cannot
  /// continue), an `if` that exits when the length is past the rows, or an
  /// `if` whose branch holding the use is taken only within the rows.
  bool conditionBounds(const FunctionDecl *FD, const Quantity &Len,
                       const Quantity &Rows, const Stmt *Use) {
    bool Found = false;
    auto Check = [&](const Expr *Cond, bool Holds) {
      llvm::SmallVector<Fact, 4> Facts;
      factsOf(Cond, Holds, Facts);
      for (const Fact &F : Facts)
        if (implies(FD, F, Len, Rows))
          Found = true;
    };
    auto Branches = [&](const Expr *Cond, const Stmt *Then, const Stmt *Else) {
      if (exits(Then) || holds(Else, Use))
        Check(Cond, false);
      if ((Else && exits(Else)) || holds(Then, Use))
        Check(Cond, true);
    };
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      if (Found)
        return;
      if (const auto *If = dyn_cast<IfStmt>(S))
        Branches(If->getCond(), If->getThen(), If->getElse());
      else if (const auto *CO = dyn_cast<ConditionalOperator>(S))
        Branches(CO->getCond(), CO->getTrueExpr(), CO->getFalseExpr());
    });
    return Found;
  }

  /// What a crop keeps along \p Dim of its input, at most: `slice(d, a, b)`
  /// keeps b - a (a a constant >= 0), `slice(d, -n)` n, `narrow(d, a, n)`
  /// n, `index({..., Slice(a, b), ...})` as slice.
  Quantity keptByCrop(const FunctionDecl *FD, const CallExpr *Call,
                      int64_t Dim) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->getIdentifier() || formOf(Callee) != op::Method)
      return {};
    auto Span = [&](const Expr *Start, const Expr *End) -> Quantity {
      int64_t A = 0;
      const bool HasStart = Start && !isNone(Start);
      const bool HasEnd = End && !isNone(End);
      if (!HasEnd && HasStart) {
        // slice(d, -n): the last n (all of them when there are fewer).
        if (evaluateInt(Start, Ctx, A))
          return A < 0 ? Quantity::constant(-A, Start) : Quantity{};
        const Expr *Value = unwrap(Start);
        // An optional<int64_t> start: the value it was made from.
        if (const auto *Opt = dyn_cast<CXXConstructExpr>(Value);
            Opt && Opt->getNumArgs() == 1)
          Value = unwrap(Opt->getArg(0));
        const auto *Neg = dyn_cast<UnaryOperator>(Value);
        if (Neg && Neg->getOpcode() == UO_Minus)
          return quantityOf(FD, Neg->getSubExpr());
        return {};
      }
      if (!HasEnd || (HasStart && !evaluateInt(Start, Ctx, A)))
        return {};
      if (A < 0)
        return {};
      Quantity Q = quantityOf(FD, End);
      if (Q.known()) {
        Q.Offset -= A;
        for (Quantity &C : Q.CappedBy)
          C.Offset -= A;
      }
      return Q;
    };
    auto SameDim = [&](const Expr *D) {
      int64_t V = 0;
      return D ? evaluateInt(D, Ctx, V) && V == Dim : Dim == 0;
    };
    StringRef Name = Callee->getName();
    if (Name == "slice" && SameDim(argAt(Call, 1)))
      return Span(argAt(Call, 2), argAt(Call, 3));
    if (Name == "narrow" && SameDim(argAt(Call, 1)))
      return quantityOf(FD, argAt(Call, 3));
    if (Name == "index") {
      llvm::SmallVector<const Expr *, 4> Parts = listElements(argAt(Call, 1));
      if (Dim < 0 || Dim >= static_cast<int64_t>(Parts.size()))
        return {};
      // unwrap looks through the functional cast of `Slice(...)` too.
      const Expr *Part = unwrap(Parts[Dim]);
      const auto *Ctor = dyn_cast<CXXConstructExpr>(Part);
      const CXXRecordDecl *RD =
          Ctor ? Ctor->getType()->getAsCXXRecordDecl() : nullptr;
      if (!RD || !RD->getIdentifier() || RD->getName() != "Slice")
        return {};
      auto Arg = [&](unsigned I) -> const Expr * {
        return I < Ctor->getNumArgs() &&
                       !isa<CXXDefaultArgExpr>(Ctor->getArg(I))
                   ? Ctor->getArg(I)
                   : nullptr;
      };
      return Span(Arg(0), Arg(1));
    }
    return {};
  }

  /// `None` / `c10::nullopt` / `{}` as an optional bound: no bound.
  static bool isNone(const Expr *E) {
    E = E->IgnoreImplicit();
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E)) {
      if (Ctor->getNumArgs() == 0)
        return true;
      const auto *RD =
          Ctor->getArg(0)->getType().getNonReferenceType()->getAsRecordDecl();
      if (RD && RD->getIdentifier() &&
          (RD->getName() == "nullopt_t" || RD->getName() == "NoneType"))
        return true;
    }
    if (const auto *RD = E->getType().getNonReferenceType()->getAsRecordDecl())
      return RD->getIdentifier() &&
             (RD->getName() == "nullopt_t" || RD->getName() == "NoneType");
    return false;
  }

  /// \p Kept is at most \p Rows, itself or through a std::min cap.
  static bool atMostRows(const Quantity &Kept, const Quantity &Rows) {
    if (Kept.known() && Kept.sameBase(Rows) && Kept.Offset <= Rows.Offset)
      return true;
    for (const Quantity &C : Kept.CappedBy)
      if (C.sameBase(Rows) && C.Offset <= Rows.Offset)
        return true;
    return false;
  }

  /// \p Def, a definition of the tensor whose size \p Len is, keeps that
  /// size within \p Rows: a crop to at most the rows, or `c ? crop : x`
  /// where each arm is such a crop or the tensor itself taken only when c
  /// bounds its size by the rows.
  bool definitionWithinRows(const FunctionDecl *FD, const Expr *Def,
                            const Quantity &Len, const Quantity &Rows) {
    auto Crop = [&](const Expr *E) {
      const auto *Call = dyn_cast<CallExpr>(unwrap(E));
      return Call && isCropCall(Call) &&
             atMostRows(keptByCrop(FD, Call, Len.Dim), Rows);
    };
    if (Crop(Def))
      return true;
    const auto *CO = dyn_cast<ConditionalOperator>(unwrap(Def));
    if (!CO)
      return false;
    auto Arm = [&](const Expr *A, bool CondHolds) {
      if (Crop(A))
        return true;
      // A tensor taken as it is: its size, bounded by the condition.
      auto N = namedValue(A);
      if (!N)
        return false;
      Quantity Taken = Len;
      Taken.Base = N->first;
      Taken.Field = N->second;
      llvm::SmallVector<Fact, 4> Facts;
      factsOf(CO->getCond(), CondHolds, Facts);
      for (const Fact &F : Facts)
        if (implies(FD, F, Taken, Rows))
          return true;
      return false;
    };
    return Arm(CO->getTrueExpr(), true) && Arm(CO->getFalseExpr(), false);
  }

  /// \p FD bounds the length \p Len by the table's \p Rows where \p Use
  /// runs: a comparison of the two in the direction that keeps Len within
  /// the rows (asserted, or an `if` that exits otherwise or holds the use),
  /// or a crop of the tensor whose size Len is to at most the rows, on
  /// every definition of it with one before the use.
  bool relatesInFunction(const FunctionDecl *FD, const Quantity &Len,
                         const Quantity &Rows, const Stmt *Use) {
    if (!Len.known() || !Rows.known())
      return false;
    if (conditionBounds(FD, Len, Rows, Use))
      return true;
    if (Len.K != Quantity::Runtime || Len.Field)
      return false;
    const auto *VD = dyn_cast_or_null<VarDecl>(Len.Base);
    if (!VD)
      return false;
    IndexGuardFinder &F = Guards.finder(FD);
    std::vector<const Expr *> Defs = F.definitionsOf(VD);
    if (Defs.empty())
      return false;
    bool Before = false, AllWithin = true;
    for (const Expr *Def : Defs) {
      if (!definitionWithinRows(FD, Def, Len, Rows)) {
        AllWithin = false;
        break;
      }
      Before |= !Use || F.dominates(Def, Use);
    }
    // A parameter's incoming value is not among its definitions.
    if (AllWithin && (Before || !isa<ParmVarDecl>(VD)))
      return true;
    return Use && croppedBeforeUse(FD, Len, Rows, Use, Defs);
  }

  /// The tensor whose size \p Len is was cropped to at most \p Rows before
  /// \p Use on every path: `x = crop(x);` that dominates the use and that
  /// every other definition dominates, or `if (len > rows) x = crop(x);`:
  /// through the branch the tensor is cropped, around it its size was
  /// within the rows. The `if` (no else, no jump in the branch) must
  /// dominate the use, its condition failing must bound Len by the rows,
  /// the branch must end in an assignment of such a crop and define the
  /// tensor no other way, and every definition outside the branch must
  /// dominate the `if`. A definition D that dominates a point P that
  /// dominates the use reaches the use only through P again.
  bool croppedBeforeUse(const FunctionDecl *FD, const Quantity &Len,
                        const Quantity &Rows, const Stmt *Use,
                        llvm::ArrayRef<const Expr *> Defs) {
    IndexGuardFinder &F = Guards.finder(FD);
    for (const Expr *Crop : Defs)
      if (F.dominates(Crop, Use) && definitionWithinRows(FD, Crop, Len, Rows) &&
          llvm::all_of(Defs, [&](const Expr *D) {
            return D == Crop || F.dominates(D, Crop);
          }))
        return true;
    auto AssignsFrom = [](const Stmt *C, const Expr *Def) {
      const auto *E = dyn_cast<Expr>(C);
      if (!E)
        return false;
      E = E->IgnoreImplicit();
      if (const auto *BO = dyn_cast<BinaryOperator>(E))
        return BO->getOpcode() == BO_Assign && holds(BO->getRHS(), Def);
      if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E))
        return OC->getOperator() == OO_Equal && OC->getNumArgs() == 2 &&
               holds(OC->getArg(1), Def);
      return false;
    };
    bool Found = false;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *If = dyn_cast<IfStmt>(S);
      if (Found || !If || If->getElse() || If->getInit() ||
          If->getConditionVariable() || holds(If, Use))
        return;
      const Stmt *Then = If->getThen();
      bool Jumps = false;
      forEachOwnStmt(Then, [&](const Stmt *Sub) {
        Jumps |= isa<BreakStmt, ContinueStmt, GotoStmt, IndirectGotoStmt>(Sub);
      });
      if (Jumps)
        return;
      // The branch's last statement assigns the crop.
      const Stmt *Last = Then;
      if (const auto *CS = dyn_cast<CompoundStmt>(Then))
        Last = CS->body_empty() ? nullptr : CS->body_back();
      bool EndsInCrop = false;
      for (const Expr *Def : Defs) {
        if (holds(Then, Def)) {
          if (!definitionWithinRows(FD, Def, Len, Rows))
            return;
          EndsInCrop |= Last && AssignsFrom(Last, Def);
        } else if (!F.dominates(Def, If->getCond())) {
          return;
        }
      }
      if (!EndsInCrop || !F.dominates(If->getCond(), Use))
        return;
      llvm::SmallVector<Fact, 4> Facts;
      factsOf(If->getCond(), false, Facts);
      for (const Fact &Fa : Facts)
        if (implies(FD, Fa, Len, Rows))
          Found = true;
    });
    return Found;
  }

  /// Every write of parameter \p PVD in \p FD keeps its size: `x =
  /// x.to(device)`, not `idx = torch::cat({idx, next}, 1)`.
  bool keepsIncoming(const FunctionDecl *FD, const ParmVarDecl *PVD) {
    for (const Expr *Def : Guards.finder(FD).definitionsOf(PVD)) {
      const auto *Call = dyn_cast<CallExpr>(unwrap(Def));
      if (!Call || formOf(Call->getDirectCallee()) != op::Method ||
          !(callFacts(Call) & (op::MovesToCuda | op::MovesToCpu |
                               op::MovesToArgument | op::KeepsShape)))
        return false;
      auto N = namedValue(argAt(Call, 0));
      if (!N || N->first != PVD || N->second)
        return false;
    }
    return true;
  }

  /// Every caller of \p FD in the TU bounds the tensor passed for
  /// parameter \p Param along \p Dim by \p Rows; \p Unbounded gets one that
  /// does not. With no caller in the TU, true unless NoCallerIsUnbounded
  /// (ReportParameters): a function nobody here calls is no evidence.
  bool callersBound(const FunctionDecl *FD, const ParmVarDecl *Param,
                    const Quantity &Hi, const Quantity &Rows,
                    const CallExpr *&Unbounded, unsigned Level) {
    llvm::ArrayRef<CallSite> Sites = callersOf(FD);
    if (Sites.empty())
      return !NoCallerIsUnbounded;
    for (const CallSite &CS : Sites) {
      unsigned I = Param->getFunctionScopeIndex() + CS.FirstArg;
      if (I >= CS.Call->getNumArgs()) {
        Unbounded = CS.Call;
        return false;
      }
      const Expr *Arg = CS.Call->getArg(I);
      if (const auto *Crop = dyn_cast<CallExpr>(unwrap(Arg));
          Crop && isCropCall(Crop) &&
          atMostRows(keptByCrop(CS.Caller, Crop, Hi.Dim), Rows))
        continue;
      auto N = namedValue(Arg);
      if (!N) {
        Unbounded = CS.Call;
        return false;
      }
      Quantity Passed = Hi;
      Passed.Base = N->first;
      Passed.Field = N->second;
      if (relatesInFunction(CS.Caller, Passed, Rows, CS.Call))
        continue;
      // The caller passes its own parameter as it came: ask its callers,
      // once more. One it writes (`idx = cat({idx, next})`) is its own.
      if (const auto *PP = dyn_cast_or_null<ParmVarDecl>(N->first);
          PP && !N->second && Level < 2 && keepsIncoming(CS.Caller, PP)) {
        const CallExpr *Deeper = nullptr;
        if (callersBound(CS.Caller, PP, Passed, Rows, Deeper, Level + 1))
          continue;
      }
      Unbounded = CS.Call;
      return false;
    }
    return true;
  }

  //--- Evidence ----------------------------------------------------------

  /// A loss's ignore_index: -100 unless its options give another.
  int64_t ignoreIndexOf(const CallExpr *Call) {
    int64_t Value = -100;
    forEachOwnStmt(Call, [&](const Stmt *S) {
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S))
        if (const CXXMethodDecl *MD = MC->getMethodDecl())
          if (MD->getIdentifier() && MD->getName() == "ignore_index" &&
              MC->getNumArgs() == 1) {
            int64_t V = 0;
            if (evaluateInt(MC->getArg(0), Ctx, V))
              Value = V;
          }
    });
    return Value;
  }

  /// The value \p V is outside [0, Rows).
  bool outside(const Quantity &V, const Quantity &Rows) {
    if (V.K == Quantity::Constant && V.Offset < 0)
      return true;
    if (V.K == Quantity::Constant && Rows.K == Quantity::Constant)
      return V.Offset >= Rows.Offset;
    return V.sameBase(Rows) && V.Offset >= Rows.Offset;
  }

  /// The clamp / remainder / fmod call a guard statement writes into the
  /// index (`ids = ids.clamp(0, n)`, `ids.clamp_(0, n)`), else null.
  static const CallExpr *boundingWrite(const Stmt *Guard) {
    const Expr *Value = nullptr;
    if (const auto *BO = dyn_cast<BinaryOperator>(Guard);
        BO && BO->getOpcode() == BO_Assign)
      Value = BO->getRHS();
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Guard);
             Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
      Value = Op->getArg(1);
    else if (const auto *E = dyn_cast<Expr>(Guard))
      Value = E;
    const auto *Call = dyn_cast_or_null<CallExpr>(unwrap(Value));
    if (Call && (callFacts(Call) & (op::BoundsClamp | op::BoundsModulo)))
      return Call;
    return nullptr;
  }

  /// A dominating guard of the index that lets `rows` through:
  /// `ids.max().item<int64_t>() <= rows`, `if (ids.max() > rows) throw`.
  const Stmt *offByOne(const Stmt *Guard, const TableSize &T,
                       const FunctionDecl *FD) {
    if (!T.Rows.known() || !Guard)
      return nullptr;
    const Stmt *Found = nullptr;
    forEachOwnStmt(Guard, [&](const Stmt *S) {
      const Expr *L = nullptr, *R = nullptr;
      BinaryOperatorKind K;
      if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
        if (!BO->isComparisonOp())
          return;
        L = BO->getLHS();
        R = BO->getRHS();
        K = BO->getOpcode();
      } else {
        return;
      }
      auto IsMax = [&](const Expr *E) {
        bool Max = false;
        forEachOwnStmt(E, [&](const Stmt *Sub) {
          if (const auto *C = dyn_cast<CallExpr>(Sub))
            if (const FunctionDecl *Callee = C->getDirectCallee())
              if (Callee->getIdentifier() &&
                  (Callee->getName() == "max" || Callee->getName() == "amax"))
                Max = true;
        });
        return Max;
      };
      auto IsRows = [&](const Expr *E) {
        Quantity Q = quantityOf(FD, E);
        return Q.known() && Q.sameBase(T.Rows) && Q.Offset == T.Rows.Offset;
      };
      // max <= rows (should be <), rows >= max, max > rows (should be >=).
      if ((K == BO_LE && IsMax(L) && IsRows(R)) ||
          (K == BO_GE && IsRows(L) && IsMax(R)) ||
          (K == BO_GT && IsMax(L) && IsRows(R)) ||
          (K == BO_LT && IsRows(L) && IsMax(R)))
        Found = S;
    });
    return Found;
  }

  IndexEvidence fromRange(const IndexRange &R, const TableSize &T,
                          const IndexOpSite &Site, const CallExpr *Call,
                          const FunctionDecl *FD, const Stmt *Use) {
    IndexEvidence E;
    E.Range = R;
    E.Table = T;
    const bool Loss = Site.K == IndexOpSite::LossTarget;
    const int64_t Ignore = Loss ? ignoreIndexOf(Call) : 0;
    for (const auto &[V, At] : R.Values) {
      if (!V.known())
        continue;
      if (Loss && V.K == Quantity::Constant && V.Offset == Ignore)
        continue;
      if (outside(V, T.Rows)) {
        E.K = IndexEvidence::ConstantOutOfRange;
        E.Value = V;
        E.ValueAt = At;
        return E;
      }
    }
    if (R.HasInterval) {
      if (R.Lo.K == Quantity::Constant && R.Lo.Offset < 0) {
        E.K = IndexEvidence::NegativeStart;
        return E;
      }
      const Quantity &Hi = R.Hi;
      const Quantity &Rows = T.Rows;
      if (Hi.known() && Rows.known()) {
        if ((Hi.K == Quantity::Constant && Rows.K == Quantity::Constant &&
             Hi.Offset > Rows.Offset) ||
            (Hi.K != Quantity::Constant && Hi.sameBase(Rows) &&
             Hi.Offset > Rows.Offset)) {
          E.K = IndexEvidence::PastTheEnd;
          return E;
        }
        // Only a cap by the rows bounds the length (std::min(T, rows)).
        if (Hi.K == Quantity::Runtime && !R.OpBound && !atMostRows(Hi, Rows) &&
            (Rows.K == Quantity::Constant || Rows.K == Quantity::Named) &&
            !relatesInFunction(FD, Hi, Rows, Use)) {
          const CallExpr *Unbounded = nullptr;
          const auto *Param = dyn_cast_or_null<ParmVarDecl>(Hi.Base);
          if (!Param || Hi.Field || Param->getDeclContext() != FD ||
              !callersBound(FD, Param, Hi, Rows, Unbounded, 0)) {
            E.K = IndexEvidence::UnboundedLength;
            E.UnboundedCaller = Unbounded;
            return E;
          }
        }
      }
    }
    if (R.External) {
      E.K = IndexEvidence::External;
      return E;
    }
    E.InRange = provedInRange(R, T.Size);
    E.Unproven = R.OpBound && !E.InRange && T.Size.known();
    return E;
  }

  /// Every part of \p R is within [0, Rows).
  bool provedInRange(const IndexRange &R, const Quantity &Rows) {
    if (R.Opaque || R.External)
      return false;
    if (!R.Produced && !R.HasInterval && R.Values.empty())
      return false;
    auto Within = [&](const Quantity &Q, int64_t Slack) {
      // Q + Slack <= Rows
      if (Q.K == Quantity::Constant && Rows.K == Quantity::Constant)
        return Q.Offset + Slack <= Rows.Offset;
      return Q.sameBase(Rows) && Q.Offset + Slack <= Rows.Offset;
    };
    if (R.HasInterval &&
        !(R.Lo.K == Quantity::Constant && R.Lo.Offset >= 0 && Within(R.Hi, 0)))
      return false;
    for (const auto &V : R.Values)
      if (!(V.first.K == Quantity::Constant && V.first.Offset >= 0 &&
            Within(V.first, 1)))
        return false;
    return true;
  }

  IndexEvidence evidence(const FunctionDecl *FD, const CallExpr *Call,
                         const IndexOpSite &Site, unsigned Level = 0) {
    IndexEvidence None;
    if (!Site.Index)
      return None;
    IndexGuardFinder &F = Guards.finder(FD);
    if (!F.valid())
      return None;
    TableSize T = tableOf(FD, Site);
    std::optional<IndexVar> V = indexVariable(Site.Index);
    if (V) {
      if (const Stmt *Guard = F.findGuard(*V, Call)) {
        if (const Stmt *Off = offByOne(Guard, T, FD)) {
          IndexEvidence E;
          E.K = IndexEvidence::OffByOneGuard;
          E.Guard = Off;
          E.Table = T;
          return E;
        }
        // `ids = ids.clamp(0, rows)`, `ids.clamp_(0, rows)`: the bound it
        // writes, against the table.
        if (const CallExpr *Bounding = boundingWrite(Guard))
          return fromRange(rangeOf(FD, Bounding, nullptr), T, Site, Call, FD,
                           Call);
        return None;
      }
    }
    IndexRange R = rangeOf(FD, Site.Index, Call);
    IndexEvidence Here = fromRange(R, T, Site, Call, FD, Call);
    if (Here)
      return Here;
    if (Here.InRange)
      return Here;
    // A bounds check of this index that does not protect this use.
    if (V) {
      std::vector<const Stmt *> Tests = F.rangeTestsOf(*V);
      if (!Tests.empty()) {
        IndexEvidence E;
        E.K = IndexEvidence::IneffectiveGuard;
        E.Table = T;
        // The check the user meant most likely: one before the use on every
        // path (the index changed since), else one before it on some.
        const SourceManager &SM = Ctx.getSourceManager();
        auto Rank = [&](const Stmt *Test) {
          if (F.dominates(Test, Call))
            return IndexEvidence::WrittenAfter;
          if (F.dominates(Call, Test) ||
              SM.isBeforeInTranslationUnit(
                  SM.getExpansionLoc(Call->getEndLoc()),
                  SM.getExpansionLoc(Test->getBeginLoc())))
            return IndexEvidence::AfterTheUse;
          return IndexEvidence::SomePaths;
        };
        E.Guard = Tests.front();
        E.Problem = Rank(Tests.front());
        for (const Stmt *Test : Tests) {
          auto P = Rank(Test);
          if (P == IndexEvidence::WrittenAfter ||
              (P == IndexEvidence::SomePaths &&
               E.Problem == IndexEvidence::AfterTheUse)) {
            E.Guard = Test;
            E.Problem = P;
          }
        }
        return E;
      }
    }
    // A check of another tensor against this table's rows, and none of
    // this one: the check meant for this index tests the wrong one.
    if (V && T.Rows.known())
      if (IndexEvidence E = otherTensorChecked(F, FD, *V, T))
        return E;
    // A parameter, or ids made of scalar parameters (`torch::tensor({i})`):
    // what the callers in this TU pass, into the table as each caller sees
    // it.
    const ParmVarDecl *IndexParam =
        V && !V->Field ? dyn_cast_or_null<ParmVarDecl>(V->Base) : nullptr;
    if (IndexParam && IndexParam->getDeclContext() != FD)
      IndexParam = nullptr;
    if ((IndexParam || mentionsParameterOf(R, FD)) && Level < 2)
      for (const CallSite &CS : callersOf(FD)) {
        IndexRange Passed;
        if (IndexParam) {
          unsigned I = IndexParam->getFunctionScopeIndex() + CS.FirstArg;
          if (I >= CS.Call->getNumArgs())
            continue;
          Passed = rangeOf(CS.Caller, CS.Call->getArg(I), CS.Call);
        } else {
          Passed = substitute(R, FD, CS.Caller, CS.Call);
        }
        TableSize CT = tableInCaller(FD, Site, T, CS);
        if (IndexEvidence E =
                fromRange(Passed, CT, Site, Call, CS.Caller, CS.Call)) {
          if (E.K == IndexEvidence::UnboundedLength)
            continue;
          E.Caller = CS.Call;
          return E;
        }
      }
    // No evidence: what is known of the range (in range, or only bounded by
    // an op, for ReportParameters).
    return Here;
  }

  //--- Datasets -----------------------------------------------------------

  /// The range-for statement of \p FD whose loop variable is \p VD.
  static const CXXForRangeStmt *loopOf(const FunctionDecl *FD,
                                       const VarDecl *VD) {
    const CXXForRangeStmt *Found = nullptr;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      if (const auto *For = dyn_cast<CXXForRangeStmt>(S);
          For && For->getLoopVariable() == VD)
        Found = For;
    });
    return Found;
  }

  /// The user's dataset class a dataset type is, or wraps with transforms
  /// that keep the examples' values (`MapDataset<D, Stack<>>`); null for
  /// another transform, whose values the table does not know.
  static const CXXRecordDecl *userDataset(QualType T, unsigned Depth = 0) {
    const CXXRecordDecl *RD = namedRecord(T);
    if (!RD || Depth > limits::OriginDepth)
      return nullptr;
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
        Spec &&
        hasQualifiedName(Spec, "MapDataset", {"torch", "data", "datasets"})) {
      const TemplateArgumentList &Args = Spec->getTemplateArgs();
      if (Args.size() != 2 || Args[0].getKind() != TemplateArgument::Type ||
          Args[1].getKind() != TemplateArgument::Type ||
          !hasQualifiedName(namedRecord(Args[1].getAsType()), "Stack",
                            {"torch", "data", "transforms"}))
        return nullptr;
      return userDataset(Args[0].getAsType(), Depth + 1);
    }
    return isUserDecl(RD) ? RD : nullptr;
  }

  /// The dataset a loop over a DataLoader (`for (auto &batch : *loader)`,
  /// and `for (auto &ex : batch)` over its vector batches) reads: the
  /// user's class of the loader's dataset argument.
  const CXXRecordDecl *datasetOfLoop(const FunctionDecl *FD, const VarDecl *VD,
                                     unsigned Depth = 0) {
    const CXXForRangeStmt *For =
        VD->isCXXForRangeDecl() ? loopOf(FD, VD) : nullptr;
    if (!For || Depth > limits::OriginDepth)
      return nullptr;
    const Expr *Range = unwrap(For->getRangeInit());
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Range);
        Op && Op->getOperator() == OO_Star && Op->getNumArgs() == 1)
      Range = unwrap(Op->getArg(0));
    const auto *DRE = dyn_cast<DeclRefExpr>(Range);
    const auto *Loader = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (!Loader)
      return nullptr;
    if (Loader->isCXXForRangeDecl())
      return datasetOfLoop(FD, Loader, Depth + 1);
    const auto *Make = dyn_cast_or_null<CallExpr>(
        Loader->getInit() ? unwrap(Loader->getInit()) : nullptr);
    if (!Make || !Loader->hasLocalStorage())
      return nullptr;
    for (const Expr *Arg : Make->arguments())
      if (const CXXRecordDecl *D =
              userDataset(unwrap(Arg)->getType().getNonReferenceType()))
        return D;
    return nullptr;
  }

  /// `batch.data` / `batch.target` of a loop over a DataLoader: the range of
  /// that member of the Examples the dataset's get() returns, when each
  /// return constructs one. What comes from outside the program there is
  /// the data a dataset exists to read: no evidence (an id of a data batch
  /// is no evidence by itself).
  std::optional<IndexRange> batchFieldRange(const FunctionDecl *FD,
                                            const IndexVar &V) {
    const auto *VD = dyn_cast<VarDecl>(V.Base);
    if (!VD || !isDataExample(VD->getType()) ||
        !isDataExample(V.Field->getParent()))
      return std::nullopt;
    const CXXRecordDecl *Dataset = datasetOfLoop(FD, VD);
    if (!Dataset || !Dataset->hasDefinition())
      return std::nullopt;
    const unsigned Index = V.Field->getFieldIndex();
    for (const CXXMethodDecl *MD : Dataset->getDefinition()->methods()) {
      const FunctionDecl *Get = nullptr;
      if (!getDataHook(MD) || !isDataExample(MD->getReturnType()) ||
          !MD->hasBody(Get))
        continue;
      IndexRange R;
      bool All = true, Any = false;
      forEachOwnStmt(Get->getBody(), [&](const Stmt *S) {
        const auto *Ret = dyn_cast<ReturnStmt>(S);
        if (!Ret)
          return;
        const Expr *Value = unwrap(Ret->getRetValue());
        llvm::SmallVector<const Expr *, 2> Parts;
        if (const auto *Ctor = dyn_cast_or_null<CXXConstructExpr>(Value))
          Parts.append(Ctor->arg_begin(), Ctor->arg_end());
        else if (const auto *List = dyn_cast_or_null<InitListExpr>(Value))
          Parts.append(List->inits().begin(), List->inits().end());
        if (Index >= Parts.size()) {
          All = false;
          return;
        }
        R.join(rangeOf(Get, Parts[Index], nullptr));
        Any = true;
      });
      if (!All || !Any)
        return std::nullopt;
      if (R.External) {
        R.External = nullptr;
        R.How.clear();
        R.Opaque = true;
      }
      return R;
    }
    return std::nullopt;
  }

  /// A parameter of \p FD or a member of `this` (or a field of either):
  /// values from outside the function, whose checks are about them alone.
  static bool fromOutside(const IndexVar &V, const FunctionDecl *FD) {
    if (!V.Base)
      return V.Field != nullptr;
    const auto *PVD = dyn_cast<ParmVarDecl>(V.Base);
    return PVD && PVD->getDeclContext() == FD;
  }

  /// \p Test compares something with the rows of \p T: one side of a
  /// comparison (`u.max().item<int64_t>() < n_users`, `(u < n_users).all()`)
  /// or the bound of a range-test call (`u.lt(n_users)`).
  bool comparesWithRows(const Stmt *Test, const TableSize &T,
                        const FunctionDecl *FD) {
    auto IsRows = [&](const Expr *E) {
      Quantity Q = quantityOf(FD, E);
      return Q.known() && Q.sameBase(T.Rows) && Q.Offset == T.Rows.Offset;
    };
    bool Found = false;
    forEachOwnStmt(Test, [&](const Stmt *S) {
      if (Found)
        return;
      if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
        Found = BO->isComparisonOp() &&
                (IsRows(BO->getLHS()) || IsRows(BO->getRHS()));
      } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
        Found = Op->isComparisonOp() && Op->getNumArgs() == 2 &&
                (IsRows(Op->getArg(0)) || IsRows(Op->getArg(1)));
      } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
        Found = (callFacts(MC) & op::RangeTest) &&
                llvm::any_of(MC->arguments(), IsRows);
      }
    });
    return Found;
  }

  /// The index \p V, from outside the function, is never tested, while
  /// another tensor from outside it is tested against the table's rows:
  /// the evidence, with that check.
  IndexEvidence otherTensorChecked(IndexGuardFinder &F, const FunctionDecl *FD,
                                   const IndexVar &V, const TableSize &T) {
    IndexEvidence E;
    if (!fromOutside(V, FD) || !F.rangeTestsOf(V).empty())
      return E;
    for (const IndexVar &W : F.testedVariables()) {
      if (W == V || !fromOutside(W, FD))
        continue;
      for (const Stmt *Test : F.rangeTestsOf(W))
        if (comparesWithRows(Test, T, FD)) {
          E.K = IndexEvidence::IneffectiveGuard;
          E.Problem = IndexEvidence::OtherTensor;
          E.Guard = Test;
          E.Table = T;
          E.TestedInstead =
              W.Field ? static_cast<const NamedDecl *>(W.Field) : W.Base;
          return E;
        }
    }
    return E;
  }

  /// Some value or bound of \p R is a parameter of \p FD (plus a constant).
  static bool mentionsParameterOf(const IndexRange &R, const FunctionDecl *FD) {
    auto Mentions = [&](const Quantity &Q) {
      const auto *PVD = dyn_cast_or_null<ParmVarDecl>(Q.Base);
      return Q.K == Quantity::Named && PVD && !Q.Field &&
             PVD->getDeclContext() == FD;
    };
    if (R.HasInterval && (Mentions(R.Lo) || Mentions(R.Hi)))
      return true;
    return llvm::any_of(R.Values,
                        [&](const auto &V) { return Mentions(V.first); });
  }

  /// The table of \p Site as the caller of \p CS sees it: a module or a
  /// tensor that is a parameter of \p FD is the argument passed for it;
  /// otherwise \p T with its rows in the caller's terms.
  TableSize tableInCaller(const FunctionDecl *FD, const IndexOpSite &Site,
                          const TableSize &T, const CallSite &CS) {
    auto Passed = [&](const Expr *E) -> const Expr * {
      std::optional<IndexVar> Var = E ? directVariable(E) : std::nullopt;
      const auto *PVD = Var && !Var->Field
                            ? dyn_cast_or_null<ParmVarDecl>(Var->Base)
                            : nullptr;
      if (!PVD || PVD->getDeclContext() != FD)
        return nullptr;
      unsigned I = PVD->getFunctionScopeIndex() + CS.FirstArg;
      return I < CS.Call->getNumArgs() ? CS.Call->getArg(I) : nullptr;
    };
    IndexOpSite There = Site;
    if (const Expr *A = Passed(Site.Module)) {
      There.Module = A;
      return tableOf(CS.Caller, There);
    }
    if (const Expr *A = Passed(Site.Source)) {
      There.Source = A;
      return tableOf(CS.Caller, There);
    }
    TableSize CT = T;
    CT.Rows = CT.Size = substitute(T.Rows, FD, CS.Caller, CS.Call);
    // A member's rows mean nothing in another class's code.
    if (CT.Rows.K == Quantity::Named && !CT.Rows.Base &&
        !sameClass(FD, CS.Caller))
      CT.Rows = {};
    return CT;
  }

  static bool sameClass(const FunctionDecl *A, const FunctionDecl *B) {
    const auto *MA = dyn_cast<CXXMethodDecl>(A);
    const auto *MB = dyn_cast<CXXMethodDecl>(B);
    return MA && MB && MA->getParent() == MB->getParent();
  }
};

IndexRangeAnalysis::IndexRangeAnalysis(ASTContext &Ctx,
                                       IndexGuardAnalysis &Guards,
                                       bool NoCallerIsUnbounded)
    : P(std::make_unique<Impl>(Ctx, Guards, NoCallerIsUnbounded)) {}

IndexRangeAnalysis::~IndexRangeAnalysis() = default;

IndexEvidence IndexRangeAnalysis::evidence(const FunctionDecl *FD,
                                           const CallExpr *Call,
                                           const IndexOpSite &Site) {
  return P->evidence(FD, Call, Site);
}

IndexRange IndexRangeAnalysis::rangeOf(const FunctionDecl *FD, const Expr *E,
                                       const Stmt *Use) {
  return P->rangeOf(FD, E, Use);
}

Quantity IndexRangeAnalysis::quantityOf(const FunctionDecl *FD, const Expr *E) {
  return P->quantityOf(FD, E);
}

TableSize IndexRangeAnalysis::tableOf(const FunctionDecl *FD,
                                      const IndexOpSite &Site) {
  return P->tableOf(FD, Site);
}

} // namespace torchtidy
