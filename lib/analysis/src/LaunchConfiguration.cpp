//===--- LaunchConfiguration.cpp - Can a launch fail? ---------------------===//
//
// The evidence that a launch can fail: a grid or block that can be 0 or
// too large, and what the code before the launch proves.
// Part of KernelLaunchAnalysis (KernelLaunchesImpl.h).
//
//===----------------------------------------------------------------------===//

#include "KernelLaunchesImpl.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace torchtidy {

using namespace launches;

std::optional<KernelLaunchAnalysis::Impl::NonZero::Size>
KernelLaunchAnalysis::Impl::sizeRead(const Expr *E) const {
  E = unwrap(E);
  auto WithDim = [&](NonZero::Size S, const Expr *Dim) {
    Expr::EvalResult R;
    if (!Dim->isValueDependent() && Dim->EvaluateAsInt(R, Ctx))
      S.Dim = R.Val.getInt().getExtValue();
    else
      S.AnyDim = true;
    return S;
  };
  if (const auto *Sub = dyn_cast<CXXOperatorCallExpr>(E);
      Sub && Sub->getOperator() == OO_Subscript && Sub->getNumArgs() == 2)
    if (const auto *Sizes = tensorMethodCall(unwrap(Sub->getArg(0))))
      if (callFacts(Sizes) & op::SizesList) {
        auto V = directVariable(Sizes->getImplicitObjectArgument());
        if (!V)
          return std::nullopt;
        return WithDim({*V, opName(op::Named::size).str(), {}}, Sub->getArg(1));
      }
  const auto *MC = tensorMethodCall(E);
  if (!MC || !MC->getType()->isIntegerType() ||
      !MC->getMethodDecl()->getIdentifier())
    return std::nullopt;
  auto V = directVariable(MC->getImplicitObjectArgument());
  if (!V)
    return std::nullopt;
  NonZero::Size S{*V, MC->getMethodDecl()->getName().str(), {}};
  // `t.size(1)`: the first argument, when written (a default one is the
  // form without it).
  if (!peel::noWrittenArgs(MC))
    return WithDim(S, MC->getArg(0));
  return S;
}

void KernelLaunchAnalysis::Impl::addNonZero(const Expr *Count, NonZero &Out,
                                            unsigned Depth) {
  if (!Count || Depth > limits::OriginDepth)
    return;
  Count = peel::peel(Count, peel::Copied | peel::ExplicitCasts);
  if (auto S = sizeRead(Count)) {
    Out.Sizes.push_back(*S);
    return;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Count)) {
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl())) {
      Out.Locals.insert(VD);
      addNonZero(singleDefinition(VD), Out, Depth + 1);
    }
    return;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(Count)) {
    if (BO->getOpcode() == BO_Mul)
      addNonZero(BO->getRHS(), Out, Depth + 1);
    if (BO->getOpcode() == BO_Mul || BO->getOpcode() == BO_Div)
      addNonZero(BO->getLHS(), Out, Depth + 1);
  }
}

void KernelLaunchAnalysis::Impl::addUnchanged(NonZero &Out,
                                              const NonZero &Proven,
                                              IndexGuardFinder &Finder,
                                              const Stmt *From,
                                              const Stmt *To) {
  Out.Locals.insert(Proven.Locals.begin(), Proven.Locals.end());
  for (const NonZero::Size &S : Proven.Sizes) {
    bool Replaced = false;
    if (!S.Tensor.Field && Finder.valid())
      for (const Expr *Def : Finder.reachingDefinitionsOf(S.Tensor.Base, To))
        Replaced |= Finder.dominates(From, Def);
    if (!Replaced)
      Out.Sizes.push_back(S);
  }
}

bool KernelLaunchAnalysis::Impl::isNonZero(const Expr *E,
                                           const NonZero &Known) const {
  E = unwrap(E);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    return VD && Known.Locals.count(VD);
  }
  auto S = sizeRead(E);
  if (!S || (S->Method != opName(op::Named::numel) &&
             S->Method != opName(op::Named::size)))
    return false;
  for (const NonZero::Size &K : Known.Sizes)
    if (K.Tensor == S->Tensor &&
        (K.Method == opName(op::Named::numel) ||
         (K.Method == S->Method && K.Dim == S->Dim && !K.AnyDim && !S->AnyDim)))
      return true;
  return false;
}

std::optional<int64_t> KernelLaunchAnalysis::Impl::valueWhenEmpty(
    const Expr *E, const Expr *&Leaf, const VarDecl *&Via, unsigned Depth) {
  const Expr *LeafBefore = Leaf;
  const VarDecl *ViaBefore = Via;
  auto V = valueWhenEmptyOf(E, Leaf, Via, Depth);
  if (V && *V == 0 && Assumed && isNonZero(E, *Assumed)) {
    Leaf = LeafBefore;
    Via = ViaBefore;
    return 1;
  }
  return V;
}

std::optional<int64_t> KernelLaunchAnalysis::Impl::valueWhenEmptyOf(
    const Expr *E, const Expr *&Leaf, const VarDecl *&Via, unsigned Depth) {
  if (!E || Depth > limits::OriginDepth || E->isValueDependent())
    return std::nullopt;
  E = unwrap(E);
  // valueWhenEmpty, not a peel: what the cast converts may be known
  // non-zero (Assumed) where the cast is not.
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
    return valueWhenEmpty(Cast->getSubExpr(), Leaf, Via, Depth + 1);
  Expr::EvalResult R;
  if (E->getType()->isIntegralOrEnumerationType() && E->EvaluateAsInt(R, Ctx))
    return R.Val.getInt().getExtValue();
  // A floating constant counts when it is a whole number (`256.0`): every
  // value here is one, so a floating grid computation is exact.
  if (llvm::APFloat F(0.0);
      E->getType()->isRealFloatingType() && E->EvaluateAsFloat(F, Ctx)) {
    llvm::APSInt I(64, /*isUnsigned=*/false);
    bool Exact = false;
    if (F.convertToInteger(I, llvm::RoundingMode::TowardZero, &Exact) !=
            llvm::APFloat::opOK ||
        !Exact)
      return std::nullopt;
    return I.getExtValue();
  }
  if (const auto *MC = tensorMethodCall(E)) {
    if (MC->getType()->isIntegerType()) {
      if (!Leaf)
        Leaf = MC;
      return 0;
    }
    return std::nullopt;
  }
  if (const auto *Sub = dyn_cast<CXXOperatorCallExpr>(E);
      Sub && Sub->getOperator() == OO_Subscript && Sub->getNumArgs() == 2)
    if (const auto *Sizes = tensorMethodCall(unwrap(Sub->getArg(0))))
      if (callFacts(Sizes) & op::SizesList) {
        if (!Leaf)
          Leaf = Sub;
        return 0;
      }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    const Expr *Def = VD ? singleDefinition(VD) : nullptr;
    if (!Def)
      return std::nullopt;
    const VarDecl *Before = Via;
    if (!Via)
      Via = VD;
    auto V = valueWhenEmpty(Def, Leaf, Via, Depth + 1);
    if (!Leaf)
      Via = Before;
    return V;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    // threads.x of a local `dim3 threads(16, 16)`.
    const auto *Field = dyn_cast<FieldDecl>(ME->getMemberDecl());
    const auto *Base = dyn_cast<DeclRefExpr>(unwrap(ME->getBase()));
    const auto *VD = Base ? dyn_cast<VarDecl>(Base->getDecl()) : nullptr;
    if (!Field || !VD || !isDim3(VD->getType()))
      return std::nullopt;
    const auto *Ctor =
        dyn_cast_or_null<CXXConstructExpr>(unwrap(singleDefinition(VD)));
    if (!Ctor || Field->getFieldIndex() >= 3)
      return std::nullopt;
    const unsigned Index = Field->getFieldIndex();
    if (Index >= Ctor->getNumArgs() ||
        isa<CXXDefaultArgExpr>(Ctor->getArg(Index)))
      return 1;
    return valueWhenEmpty(Ctor->getArg(Index), Leaf, Via, Depth + 1);
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    auto L = valueWhenEmpty(BO->getLHS(), Leaf, Via, Depth + 1);
    auto Rv = valueWhenEmpty(BO->getRHS(), Leaf, Via, Depth + 1);
    // An empty count times anything (`k * n`), or divided by anything
    // (`n / k`), is 0.
    if ((BO->getOpcode() == BO_Mul && ((L && *L == 0) || (Rv && *Rv == 0))) ||
        (BO->getOpcode() == BO_Div && L && *L == 0))
      return 0;
    if (!L || !Rv)
      return std::nullopt;
    // In floating point, only a division that is exact stays a whole number
    // (`(double)(n + 255) / 256` is not 0 when n is).
    if (BO->getOpcode() == BO_Div && BO->getType()->isRealFloatingType() &&
        (*Rv == 0 || *L % *Rv != 0))
      return std::nullopt;
    switch (BO->getOpcode()) {
    case BO_Add:
      return *L + *Rv;
    case BO_Sub:
      return *L - *Rv;
    case BO_Mul:
      return *L * *Rv;
    case BO_Div:
      return *Rv == 0 ? std::nullopt : std::optional<int64_t>(*L / *Rv);
    case BO_Rem:
      return *Rv == 0 ? std::nullopt : std::optional<int64_t>(*L % *Rv);
    case BO_Shr:
      return *Rv < 0 || *Rv > 62 ? std::nullopt
                                 : std::optional<int64_t>(*L >> *Rv);
    default:
      return std::nullopt;
    }
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
    // Conditions on sizes are out of this evaluator's reach.
    auto T = valueWhenEmpty(CO->getTrueExpr(), Leaf, Via, Depth + 1);
    auto F = valueWhenEmpty(CO->getFalseExpr(), Leaf, Via, Depth + 1);
    if (T && F && *T == *F)
      return T;
    return std::nullopt;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const op::FactSet Facts = callFacts(Call);
    if ((Facts & (op::StdMin | op::StdMax)) && Call->getNumArgs() == 2) {
      auto A = valueWhenEmpty(Call->getArg(0), Leaf, Via, Depth + 1);
      auto B = valueWhenEmpty(Call->getArg(1), Leaf, Via, Depth + 1);
      if (!A || !B)
        return std::nullopt;
      return (Facts & op::StdMin) ? std::min(*A, *B) : std::max(*A, *B);
    }
    // ceil / floor of a whole number is that number.
    if ((Facts & op::RoundsToInteger) && Call->getNumArgs() == 1)
      return valueWhenEmpty(Call->getArg(0), Leaf, Via, Depth + 1);
  }
  return std::nullopt;
}

bool KernelLaunchAnalysis::Impl::isDim3(QualType T) {
  const CXXRecordDecl *RD = namedRecord(T);
  return isClass(RD, KnownClass::dim3);
}

llvm::SmallVector<const Expr *, 3>
KernelLaunchAnalysis::Impl::dimensions(const Expr *E) {
  llvm::SmallVector<const Expr *, 3> Dims;
  for (unsigned I = 0; E && I < limits::OriginDepth; ++I) {
    E = peel::peel(E, peel::Copied | peel::FunctionalCasts);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (VD && isDim3(VD->getType())) {
        E = singleDefinition(VD);
        continue;
      }
    }
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
        Ctor && isDim3(Ctor->getType())) {
      if (Ctor->getNumArgs() == 1 && isDim3(Ctor->getArg(0)->getType())) {
        E = Ctor->getArg(0);
        continue;
      }
      for (const Expr *A : Ctor->arguments())
        Dims.push_back(isa<CXXDefaultArgExpr>(A) ? nullptr : A);
      return Dims;
    }
    if (E->getType()->isIntegerType())
      Dims.push_back(E);
    return Dims;
  }
  return Dims;
}

llvm::SmallVector<llvm::SmallVector<const Expr *, 3>, 2>
KernelLaunchAnalysis::Impl::gridCandidates(const Expr *Grid,
                                           const Stmt *Launch) {
  llvm::SmallVector<llvm::SmallVector<const Expr *, 3>, 2> Out;
  const auto *DRE = dyn_cast<DeclRefExpr>(unwrap(Grid));
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  const auto *Owner =
      VD ? dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod())
         : nullptr;
  if (!VD || !Owner || !isDim3(VD->getType()) || isa<ParmVarDecl>(VD) ||
      !VD->isLocalVarDecl() || VD->isStaticLocal() || singleDefinition(VD)) {
    Out.push_back(dimensions(Grid));
    return Out;
  }
  IndexGuardFinder &Finder = GuardAnalysis.finder(Owner);
  const IndexVar Whole{VD, nullptr};
  std::vector<const Expr *> Defs = Finder.definitionsOf(VD);
  const std::vector<const Stmt *> Writes = Finder.writesOf(Whole);
  // Each write is the declaration or defines a value: nothing else (a
  // call that takes it by reference) changes it, and no field is set.
  if (!Finder.valid() || Writes.size() != Defs.size() ||
      (VD->getInit() && !llvm::is_contained(Defs, VD->getInit())))
    return Out;
  if (const CXXRecordDecl *RD = namedRecord(VD->getType()))
    for (const FieldDecl *F : RD->fields())
      if (Finder.writesOf(IndexVar{VD, F}).size() != Writes.size())
        return Out;
  // Nothing but those writes changes it: no call that takes it by
  // reference, no reference bound to it, no lambda that captures it.
  FunctionContext *Fn = FunctionContexts::of(Ctx).get(Owner);
  if (!Fn || Fn->isMutatedIn(VD, Owner->getBody(), Writes))
    return Out;
  for (const Expr *Def : Finder.reachingDefinitionsOf(VD, Launch))
    Out.push_back(dimensions(Def));
  return Out;
}

LaunchFailure
KernelLaunchAnalysis::Impl::failure(const KernelLaunchSite &Site) {
  LaunchFailure F;
  const CallExpr *Config = Site.Launch->getConfig();
  if (!Config || Config->getNumArgs() < 2)
    return F;
  // A constant block of more than 1024 threads.
  uint64_t Threads = 1;
  bool AllConstant = true;
  for (const Expr *D : dimensions(Config->getArg(1))) {
    if (!D)
      continue;
    const Expr::EvalResult R;
    const Expr *Leaf = nullptr;
    const VarDecl *Via = nullptr;
    auto V = valueWhenEmpty(D, Leaf, Via);
    if (!V || Leaf || *V <= 0) {
      AllConstant = false;
      break;
    }
    Threads *= static_cast<uint64_t>(*V);
  }
  if (AllConstant && Threads > 1024) {
    F.K = LaunchFailure::OversizedBlock;
    F.Threads = Threads;
    return F;
  }
  for (const auto &Dims : gridCandidates(Config->getArg(0), Site.Launch))
    if (emptyGrid(Site, Dims, F))
      return F;
  return F;
}

bool KernelLaunchAnalysis::Impl::emptyGrid(const KernelLaunchSite &Site,
                                           llvm::ArrayRef<const Expr *> Dims,
                                           LaunchFailure &F) {
  // What the code before the launch proves is not 0: a count checked
  // against 0 on every path to it (or on the branch that holds it), or
  // divided by (the host dies of an integer division by 0 first).
  std::optional<NonZero> Known;
  unsigned Dim = 0;
  for (const Expr *D : Dims) {
    const unsigned This = Dim++;
    if (!D)
      continue;
    const Expr *Leaf = nullptr;
    const VarDecl *Via = nullptr;
    auto V = valueWhenEmpty(D, Leaf, Via);
    if (!V || *V != 0)
      continue;
    if (!Leaf) {
      F.K = LaunchFailure::ZeroGrid;
      F.Dim = This;
      return true;
    }
    // The dimension is 0 on an empty input unless what is proven not 0
    // keeps it from being 0: evaluated again with those counts unknown,
    // it must still be 0 (`n / k` with `k` checked is; `n` checked is not).
    if (!Known) {
      Known.emplace();
      provenAt(nullptr, Site.Launch, Site.Function, &*Known);
    }
    if (!Known->empty()) {
      const Expr *KnownLeaf = nullptr;
      const VarDecl *KnownVia = nullptr;
      Assumed = &*Known;
      V = valueWhenEmpty(D, KnownLeaf, KnownVia);
      Assumed = nullptr;
      if (!V || *V != 0 || !KnownLeaf)
        continue;
      Leaf = KnownLeaf;
      Via = KnownVia;
    }
    F.K = LaunchFailure::EmptyGrid;
    F.Dim = This;
    F.Size = Leaf;
    F.Via = Via;
    return true;
  }
  return false;
}

void KernelLaunchAnalysis::Impl::classifyStream(KernelLaunchSite &Site,
                                                const ASTContext &Ctx) {
  const CallExpr *Config = Site.Launch->getConfig();
  Site.WrittenConfigArgs = 0;
  if (!Config)
    return;
  for (const Expr *A : Config->arguments())
    if (!isa<CXXDefaultArgExpr>(A))
      ++Site.WrittenConfigArgs;
  if (Config->getNumArgs() < 4 || isa<CXXDefaultArgExpr>(Config->getArg(3))) {
    Site.Stream = KernelLaunchSite::StreamUse::Missing;
    return;
  }
  const Expr *S = Config->getArg(3);
  if (S->isNullPointerConstant(const_cast<ASTContext &>(Ctx),
                               Expr::NPC_ValueDependentIsNotNull)) {
    Site.Stream = KernelLaunchSite::StreamUse::NullConstant;
    return;
  }
  // cudaStreamLegacy, cudaStreamPerThread: ((cudaStream_t)0x1), 0x2.
  const Expr *Inner = peel::peel(S, peel::ParenCasts);
  Expr::EvalResult R;
  if (Inner != peel::peel(S, peel::Parens) &&
      Inner->getType()->isIntegerType() && !Inner->isValueDependent() &&
      Inner->EvaluateAsInt(R, Ctx) &&
      (R.Val.getInt() == 1 || R.Val.getInt() == 2))
    Site.Stream = KernelLaunchSite::StreamUse::NullConstant;
}

} // namespace torchtidy
