//===--- KernelLaunches.cpp - Custom CUDA kernel launches -----------------===//

#include "KernelLaunchesImpl.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/PointeeTypes.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/Builtins.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSet.h"

#include <optional>

using namespace clang;

namespace torchtidy {

// The analysis' helpers (KernelLaunchesImpl.h).
namespace launches {

//===--- Small helpers ----------------------------------------------------===//

/// \p E without parentheses, implicit nodes, copies and moves of a value.
const Expr *unwrap(const Expr *E) { return peel::peel(E, peel::Copied); }

/// caffe2::TypeMeta, what Tensor::dtype() returns.
bool isTypeMeta(QualType T) {
  const CXXRecordDecl *RD = namedRecord(T);
  return isClass(RD, KnownClass::TypeMeta);
}

/// at::DeprecatedTypeProperties, what the legacy Tensor::type() returns.
bool isDeprecatedTypeProperties(QualType T) {
  const CXXRecordDecl *RD = namedRecord(T);
  return isClass(RD, KnownClass::DeprecatedTypeProperties);
}

/// `cudaStream_t`: a pointer to `struct CUstream_st`.
bool isCudaStreamType(QualType T) {
  T = T.getCanonicalType();
  if (!T->isPointerType())
    return false;
  const auto *RD = T->getPointeeType()->getAsRecordDecl();
  return isClass(RD, KnownClass::CUstream_st);
}

/// at::GenericPackedTensorAccessor, also as PackedTensorAccessor32/64 (alias
/// templates of it, so their types are its specializations).
bool isAccessorType(QualType T) {
  return isClass(namedRecord(T), KnownClass::GenericPackedTensorAccessor);
}

/// The element type of an accessor type, else a null type.
QualType accessorElement(QualType T) {
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(namedRecord(T));
  if (!Spec || Spec->getTemplateArgs().size() < 1 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return {};
  return Spec->getTemplateArgs()[0].getAsType();
}

/// The method call \p E is on a tensor, with its object.
const CXXMemberCallExpr *tensorMethodCall(const Expr *E) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(E);
  if (!MC || !isTensorMethod(MC->getMethodDecl()))
    return nullptr;
  return MC;
}

/// The lambda class whose call operator is \p FD, else null.
const CXXRecordDecl *lambdaClassOf(const FunctionDecl *FD) {
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD);
  if (!MD || !MD->getParent()->isLambda())
    return nullptr;
  return MD->getParent();
}

/// The function a lambda's call operator is written in, else null.
const FunctionDecl *enclosingFunctionOf(const FunctionDecl *FD) {
  const CXXRecordDecl *RD = lambdaClassOf(FD);
  if (!RD)
    return nullptr;
  return dyn_cast_or_null<FunctionDecl>(RD->getDeclContext());
}

/// The outermost function around a lambda's call operator (itself for
/// other functions); null when a lambda is not inside a function.
const FunctionDecl *outerFunctionOf(const FunctionDecl *FD) {
  for (unsigned I = 0; FD && I < limits::StatementNesting; ++I) {
    if (!lambdaClassOf(FD))
      return FD;
    FD = enclosingFunctionOf(FD);
  }
  return nullptr;
}

/// \p Loc is in an expansion of a macro named in \p Names (looking through
/// the macros it expands inside).
bool inMacroNamed(SourceLocation Loc, const SourceManager &SM,
                  const LangOptions &LO, const llvm::StringSet<> &Names,
                  SourceLocation *ExpansionOut) {
  for (unsigned I = 0; Loc.isMacroID() && I < limits::MacroDepth; ++I) {
    const llvm::StringRef Name = Lexer::getImmediateMacroName(Loc, SM, LO);
    if (Names.contains(Name)) {
      if (ExpansionOut)
        *ExpansionOut = SM.getExpansionLoc(Loc);
      return true;
    }
    Loc = SM.getImmediateMacroCallerLoc(Loc);
  }
  return false;
}

/// The ScalarType enumerator \p E evaluates to ("Long"), else "".
std::string scalarTypeName(const Expr *E, const ASTContext &Ctx) {
  if (!E || E->isValueDependent() || !isScalarTypeEnum(E->getType()))
    return "";
  // kLong is `constexpr auto kLong = ScalarType::Long`: its initialiser.
  for (unsigned I = 0; I < limits::DeviceValueSteps; ++I) {
    const Expr *P = unwrap(E);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(P)) {
      if (const auto *EC = dyn_cast<EnumConstantDecl>(DRE->getDecl()))
        return EC->getName().str();
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        if (VD->getType().isConstQualified() && VD->getInit()) {
          E = VD->getInit();
          continue;
        }
    }
    break;
  }
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx))
    return "";
  const auto *ET = E->getType().getNonReferenceType()->getAs<EnumType>();
  for (const EnumConstantDecl *EC : ET->getDecl()->enumerators())
    if (EC->getInitVal() == R.Val.getInt())
      return EC->getName().str();
  return "";
}

/// Whether element type \p T stores dtype \p Scalar: true, false, or
/// nothing when the model does not know the dtype's C++ type.
std::optional<bool> elementMatches(QualType T, llvm::StringRef Scalar,
                                   const ASTContext &Ctx) {
  const std::optional<Dtype> Want = dtypeNamed(Scalar);
  if (!Want)
    return std::nullopt;
  // The dtype whose elements T is (PointeeTypes' one model of LibTorch's
  // dtypes as C++ types), else none.
  const std::optional<Dtype> Own = dtypeOfCppType(T, Ctx);
  return Own && Own->Name == Want->Name;
}

/// The element type a dispatch macro picks (AT_DISPATCH_*'s `scalar_t`,
/// declared by the macro in a system header): right for the tensor it
/// dispatches on by construction.
bool isDispatchType(QualType T, const SourceManager &SM) {
  const auto *TT = T->getAs<TypedefType>();
  if (!TT)
    return false;
  const SourceLocation L = TT->getDecl()->getLocation();
  return L.isMacroID() && SM.isInSystemHeader(SM.getSpellingLoc(L));
}

} // namespace launches

using namespace launches;

std::string kernelName(const CUDAKernelCallExpr *Launch) {
  if (!Launch)
    return "";
  if (const FunctionDecl *FD = Launch->getDirectCallee())
    if (FD->getDeclName())
      return FD->getNameAsString();
  return "";
}

//===--- The analysis (KernelLaunchesImpl.h) -----------------------------===//

bool KernelLaunchAnalysis::Impl::isLaunchCheck(const Stmt *S,
                                               const FunctionDecl *FD) {
  bool Found = false;
  const Stmt *Whole = S;
  if (const auto *E = dyn_cast<Expr>(S))
    Whole = unwrap(E);
  forEachOwnStmt(S, [&](const Stmt *Sub) {
    if (Found)
      return;
    if (Sub->getBeginLoc().isMacroID() &&
        inMacroNamed(Sub->getBeginLoc(), SM, Ctx.getLangOpts(), CheckMacros)) {
      Found = true;
      return;
    }
    const auto *Call = dyn_cast<CallExpr>(Sub);
    if (!Call || !(callFacts(Call) & op::ReadsLaunchError) ||
        formOf(Call->getDirectCallee()) != op::Global)
      return;
    if (Call == Whole)
      return; // cudaGetLastError(); clears the error, unread
    const Stmt *P = parent(FD, Call);
    if (const auto *Cast = dyn_cast_or_null<ExplicitCastExpr>(P))
      if (Cast->getType()->isVoidType())
        return;
    Found = true;
  });
  return Found;
}

bool KernelLaunchAnalysis::Impl::isLaunchOnly(const Stmt *S, unsigned Depth) {
  if (!S || Depth > limits::SearchDepth)
    return false;
  if (const auto *E = dyn_cast<Expr>(S))
    return isa<CUDAKernelCallExpr>(unwrap(E));
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    if (CS->body_empty())
      return false;
    for (const Stmt *Child : CS->body())
      if (!isa<NullStmt>(Child) && !isLaunchOnly(Child, Depth + 1))
        return false;
    return true;
  }
  if (const auto *If = dyn_cast<IfStmt>(S))
    return isLaunchOnly(If->getThen(), Depth + 1) &&
           (!If->getElse() || isLaunchOnly(If->getElse(), Depth + 1));
  return false;
}

const LambdaExpr *
KernelLaunchAnalysis::Impl::enclosingLambda(const FunctionDecl *FD,
                                            const Stmt *S) {
  for (unsigned I = 0; S && I < limits::StatementNesting; ++I) {
    const Stmt *P = parent(FD, S);
    if (const auto *L = dyn_cast_or_null<LambdaExpr>(P))
      if (L->getBody() == S)
        return L;
    S = P;
  }
  return nullptr;
}

bool KernelLaunchAnalysis::Impl::calledWhereWritten(const FunctionDecl *FD,
                                                    const LambdaExpr *L) {
  using namespace peel;
  const Expr *Arg =
      climb(L, Compiler | CopiesAndMoves | ConvertingConstructions,
            [&](const Stmt *S) { return parent(FD, S); });
  return isa_and_nonnull<CallExpr>(parent(FD, Arg));
}

const Stmt *KernelLaunchAnalysis::Impl::jumpTarget(const FunctionDecl *FD,
                                                   const Stmt *Jump,
                                                   bool Break) {
  const Stmt *Cur = Jump;
  for (unsigned I = 0; I < limits::StatementNesting; ++I) {
    const Stmt *P = parent(FD, Cur);
    if (!P || isa<LambdaExpr>(P))
      return nullptr;
    if (isa<ForStmt>(P) || isa<WhileStmt>(P) || isa<DoStmt>(P) ||
        isa<CXXForRangeStmt>(P) || (Break && isa<SwitchStmt>(P)))
      return P;
    Cur = P;
  }
  return nullptr;
}

void KernelLaunchAnalysis::Impl::follow(KernelLaunchSite &Site) {
  const FunctionDecl *FD = Site.Function;
  const Stmt *Root =
      outerFunctionOf(FD) ? outerFunctionOf(FD)->getBody() : nullptr;
  const Stmt *Cur = Site.Launch;
  auto LeaveLambdaOrReturn = [&](const Stmt *Ret) -> bool {
    // A return in a lambda that is called where it is written continues
    // after that call.
    if (const LambdaExpr *L = enclosingLambda(FD, Ret)) {
      if (!calledWhereWritten(FD, L)) {
        Site.Follow = KernelLaunchSite::After::Unknown;
        return false;
      }
      Cur = L;
      return true;
    }
    Site.Follow = KernelLaunchSite::After::Unchecked;
    Site.Next = nullptr;
    return false;
  };
  for (unsigned I = 0; I < limits::StatementNesting * 4; ++I) {
    const Stmt *P = parent(FD, Cur);
    if (!P) {
      Site.Follow = Cur == Root ? KernelLaunchSite::After::Unchecked
                                : KernelLaunchSite::After::Unknown;
      Site.Next = nullptr;
      return;
    }
    if (const auto *CS = dyn_cast<CompoundStmt>(P)) {
      if (!Site.Statement)
        Site.Statement = Cur;
      bool After = false;
      const Stmt *Jump = nullptr;
      for (const Stmt *Child : CS->body()) {
        if (Child == Cur) {
          After = true;
          continue;
        }
        if (!After)
          continue;
        const Stmt *N = Child;
        while (isa<SwitchCase>(N) || isa<LabelStmt>(N) ||
               isa<AttributedStmt>(N)) {
          if (const auto *SC = dyn_cast<SwitchCase>(N))
            N = SC->getSubStmt();
          else if (const auto *LS = dyn_cast<LabelStmt>(N))
            N = LS->getSubStmt();
          else
            N = cast<AttributedStmt>(N)->getSubStmt();
        }
        if (isLaunchCheck(N, FD)) {
          Site.Follow = KernelLaunchSite::After::Checked;
          Site.Next = N;
          return;
        }
        if (isa<NullStmt>(N) || isLaunchOnly(N))
          continue;
        if (isa<BreakStmt>(N) || isa<ContinueStmt>(N)) {
          Jump = N;
          break;
        }
        if (isa<ReturnStmt>(N)) {
          if (!LeaveLambdaOrReturn(N)) {
            if (Site.Follow == KernelLaunchSite::After::Unchecked)
              Site.Next = N;
            return;
          }
          Jump = Cur; // continue from the lambda
          break;
        }
        Site.Follow = KernelLaunchSite::After::Unchecked;
        Site.Next = N;
        return;
      }
      if (Jump && (isa<BreakStmt>(Jump) || isa<ContinueStmt>(Jump))) {
        const Stmt *Target = jumpTarget(FD, Jump, isa<BreakStmt>(Jump));
        if (!Target) {
          Site.Follow = KernelLaunchSite::After::Unknown;
          return;
        }
        Cur = Target;
        continue;
      }
      if (!Jump)
        Cur = P; // the end of the block
      continue;
    }
    if (const auto *L = dyn_cast<LambdaExpr>(P)) {
      // The end of a lambda's body: it returns to its caller.
      if (!calledWhereWritten(FD, L)) {
        Site.Follow = KernelLaunchSite::After::Unknown;
        return;
      }
      Cur = L;
      continue;
    }
    if (isa<ReturnStmt>(P)) {
      if (!LeaveLambdaOrReturn(P))
        return;
      continue;
    }
    Cur = P;
  }
  Site.Follow = KernelLaunchSite::After::Unknown;
}

KernelLaunchAnalysis::KernelLaunchAnalysis(ASTContext &Ctx,
                                           KernelLaunchConfig Config)
    : P(std::make_unique<Impl>(Ctx, std::move(Config))) {}

KernelLaunchAnalysis::~KernelLaunchAnalysis() = default;

std::vector<KernelLaunchSite>
KernelLaunchAnalysis::launches(const FunctionDecl *FD) {
  std::vector<KernelLaunchSite> Out;
  if (!FD || !FD->getBody())
    return Out;
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    const auto *L = dyn_cast<CUDAKernelCallExpr>(S);
    if (!L || L->isValueDependent() || L->isTypeDependent())
      return;
    KernelLaunchSite Site;
    Site.Launch = L;
    Site.Function = FD;
    P->follow(Site);
    Impl::classifyStream(Site, P->Ctx);
    Site.Failure = P->failure(Site);
    Out.push_back(Site);
  });
  return Out;
}

std::vector<KernelArgIssue>
KernelLaunchAnalysis::argumentIssues(const FunctionDecl *FD) {
  std::vector<KernelArgIssue> Out;
  if (!FD || !FD->getBody())
    return Out;
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call || Call->isValueDependent() || Call->isTypeDependent())
      return;
    if (const auto *L = dyn_cast<CUDAKernelCallExpr>(Call)) {
      for (const Expr *A : L->arguments())
        P->checkArgument(A, L, FD, nullptr, nullptr, 0, Out);
      return;
    }
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || isTorchFunction(Callee) || !isUserDecl(Callee))
      return;
    const unsigned Shift =
        isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
    for (unsigned A = Shift; A < Call->getNumArgs(); ++A) {
      const Impl::LauncherAnswer Answer = P->launcher(Callee, A - Shift, 0);
      if (Answer.Is)
        P->checkArgument(Call->getArg(A), Call, FD, Callee, &Answer, A - Shift,
                         Out);
    }
  });
  return Out;
}

bool KernelLaunchAnalysis::isLauncherParam(const FunctionDecl *Callee,
                                           unsigned Param,
                                           const Expr **LaunchOut) {
  const Impl::LauncherAnswer A = P->launcher(Callee, Param, 0);
  if (LaunchOut)
    *LaunchOut = A.Launch;
  return A.Is;
}

const Expr *KernelLaunchAnalysis::firstOtherStream() {
  const Expr *Found = nullptr;
  forEachUserFunction(P->Ctx, [&](const FunctionDecl *FD) {
    if (Found || !FD->hasBody())
      return;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      if (Found)
        return;
      op::FactSet Facts;
      if (const auto *Call = dyn_cast<CallExpr>(S))
        Facts = callFacts(Call);
      else if (const auto *Construct = dyn_cast<CXXConstructExpr>(S))
        Facts = constructFacts(Construct);
      if (Facts & op::OtherStream)
        Found = cast<Expr>(S);
    });
  });
  return Found;
}

bool KernelLaunchAnalysis::usesLibTorch() {
  if (P->UsesTorch.has_value())
    return P->UsesTorch.value_or(false);
  const bool Uses =
      isa_and_nonnull<CXXRecordDecl>(lookupClass(P->Ctx, KnownClass::Tensor));
  P->UsesTorch = Uses;
  return Uses;
}

} // namespace torchtidy
