//===--- KernelLaunches.cpp - Custom CUDA kernel launches -----------------===//

#include "torchtidy/analysis/KernelLaunches.h"
#include "torchtidy/analysis/CudaWork.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/IndexGuards.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/Builtins.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <tuple>

using namespace clang;

namespace torchtidy {

namespace {

//===--- Small helpers ----------------------------------------------------===//

/// \p E without parentheses, implicit nodes, copies and moves of a value.
const Expr *unwrap(const Expr *E) { return peel::peel(E, peel::Copied); }

/// `c10::ScalarType` (or another enum of c10), by name.
bool isC10Enum(QualType T, llvm::StringRef Name) {
  const auto *ET = T.getNonReferenceType()->getAs<EnumType>();
  return ET && hasQualifiedName(ET->getDecl(), Name, {"c10"});
}

/// caffe2::TypeMeta, what Tensor::dtype() returns.
bool isTypeMeta(QualType T) {
  const CXXRecordDecl *RD = namedRecord(T);
  return RD && hasQualifiedName(RD, "TypeMeta", {"caffe2"});
}

/// at::DeprecatedTypeProperties, what the legacy Tensor::type() returns.
bool isDeprecatedTypeProperties(QualType T) {
  const CXXRecordDecl *RD = namedRecord(T);
  return RD && hasQualifiedName(RD, "DeprecatedTypeProperties", {"at"});
}

/// `cudaStream_t`: a pointer to `struct CUstream_st`.
bool isCudaStreamType(QualType T) {
  T = T.getCanonicalType();
  if (!T->isPointerType())
    return false;
  const auto *RD = T->getPointeeType()->getAsRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == "CUstream_st";
}

/// PackedTensorAccessor32/64, GenericPackedTensorAccessor (at::).
bool isAccessorType(QualType T) {
  const CXXRecordDecl *RD = namedRecord(T);
  return RD && (hasQualifiedName(RD, "GenericPackedTensorAccessor", {"at"}) ||
                hasQualifiedName(RD, "PackedTensorAccessor32", {"at"}) ||
                hasQualifiedName(RD, "PackedTensorAccessor64", {"at"}));
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

/// Every argument of \p Call after the written ones is a default.
bool onlyDefaultArgs(const CallExpr *Call) {
  for (const Expr *A : Call->arguments())
    if (!isa<CXXDefaultArgExpr>(A))
      return false;
  return true;
}

const FunctionDecl *outerFunctionOf(const FunctionDecl *FD);

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
                  SourceLocation *ExpansionOut = nullptr) {
  for (unsigned I = 0; Loc.isMacroID() && I < limits::MacroDepth; ++I) {
    llvm::StringRef Name = Lexer::getImmediateMacroName(Loc, SM, LO);
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
  if (!E || E->isValueDependent() || !isC10Enum(E->getType(), "ScalarType"))
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
  T = T.getCanonicalType().getUnqualifiedType();
  auto Integer = [&](unsigned Bits, bool Signed) -> std::optional<bool> {
    if (T->isBooleanType() || !T->isIntegerType())
      return false;
    return Ctx.getTypeSize(T) == Bits && T->isSignedIntegerType() == Signed;
  };
  auto Record = [&](llvm::StringRef A, llvm::StringRef B) -> bool {
    const auto *RD = T->getAsRecordDecl();
    return RD && RD->getIdentifier() &&
           (RD->getName() == A || RD->getName() == B);
  };
  if (Scalar == "Float")
    return T->isSpecificBuiltinType(BuiltinType::Float);
  if (Scalar == "Double")
    return T->isSpecificBuiltinType(BuiltinType::Double);
  if (Scalar == "Long")
    return Integer(64, true);
  if (Scalar == "Int")
    return Integer(32, true);
  if (Scalar == "Short")
    return Integer(16, true);
  if (Scalar == "Char")
    return Integer(8, true);
  if (Scalar == "Byte")
    return Integer(8, false);
  if (Scalar == "Bool")
    return T->isBooleanType();
  if (Scalar == "Half")
    return Record("Half", "__half");
  if (Scalar == "BFloat16")
    return Record("BFloat16", "__nv_bfloat16");
  return std::nullopt;
}

/// The element type a dispatch macro picks (AT_DISPATCH_*'s `scalar_t`,
/// declared by the macro in a system header): right for the tensor it
/// dispatches on by construction.
bool isDispatchType(QualType T, const SourceManager &SM) {
  const auto *TT = T->getAs<TypedefType>();
  if (!TT)
    return false;
  SourceLocation L = TT->getDecl()->getLocation();
  return L.isMacroID() && SM.isInSystemHeader(SM.getSpellingLoc(L));
}

} // namespace

std::string kernelName(const CUDAKernelCallExpr *Launch) {
  if (!Launch)
    return "";
  if (const FunctionDecl *FD = Launch->getDirectCallee())
    if (FD->getDeclName())
      return FD->getNameAsString();
  return "";
}

//===--- The analysis -----------------------------------------------------===//

/// A check before a use: the properties a condition tests on a variable.
struct Guard {
  enum Prop : unsigned { Cuda = 1, Contig = 2, Dtype = 4, NonEmpty = 8 };
  unsigned Props = 0;
  IndexVar Var;
  /// A CFG element of the function that is evaluated when the check runs:
  /// the test, or the whole condition (the test of `!(a && b)` is not
  /// evaluated on every path, the condition is).
  const Stmt *At = nullptr;
  const Stmt *Cond = nullptr;
  /// NonEmpty: the count divided by (`n` of `k / n`), or the condition
  /// (Cond) and the truth value it has past the guard.
  const Expr *Count = nullptr;
  bool CondTruth = false;
  /// A guard of an if or a ?: holds past it, not in the branch that exits.
  const Stmt *ExitBranch = nullptr;
  /// A branch that exits by break or continue: the loop or switch it leaves,
  /// past which the condition is not known.
  const Stmt *Scope = nullptr;
};

/// What the model knows about one property of a tensor.
struct PropState {
  enum Kind { Unknown, Proven, Against } K = Unknown;
  const Stmt *At = nullptr;
  std::string Why;
  const ValueDecl *Var = nullptr;
};

struct TensorFacts {
  PropState Device, Contig;
  /// An explicit dtype ("Long") and where it was given.
  std::string Dtype;
  const Stmt *DtypeAt = nullptr;
  const ValueDecl *DtypeVar = nullptr;
  bool DtypeChecked = false;
};

/// A raw view of storage found in a kernel argument.
struct RawView {
  const CXXMemberCallExpr *Call = nullptr;
  const Expr *Tensor = nullptr;
  QualType Element;
  bool Typed = false;    ///< data_ptr<T>, data<T>, an accessor
  bool Accessor = false; ///< carries its strides
};

struct KernelLaunchAnalysis::Impl {
  struct NonZero;
  /// Counts valueWhenEmpty takes as not 0 (what the code before the launch
  /// proves), while it re-evaluates a grid; else null.
  const NonZero *Assumed = nullptr;
  ASTContext &Ctx;
  const SourceManager &SM;
  KernelLaunchConfig Config;
  llvm::StringSet<> CheckMacros;
  IndexGuardAnalysis &GuardAnalysis;

  struct Outer {
    /// The context of the outermost function, whose parent map spans the
    /// bodies of the lambdas written inside.
    FunctionContext *Fn = nullptr;
    llvm::DenseMap<const CXXRecordDecl *, const LambdaExpr *> Lambdas;
  };
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<Outer>> Outers;
  llvm::DenseMap<const FunctionDecl *, std::vector<Guard>> GuardsOf;
  llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>, unsigned>
      HelperGuards;
  struct LauncherAnswer {
    bool Is = false;
    const Expr *Launch = nullptr;
  };
  llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>, LauncherAnswer>
      Launchers;
  std::optional<bool> UsesTorch;

  Impl(ASTContext &Ctx, KernelLaunchConfig C)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Config(std::move(C)),
        GuardAnalysis(FunctionContexts::of(Ctx).analysis<IndexGuardAnalysis>(
            IndexGuardConfig{})) {
    CheckMacros.insert("C10_CUDA_KERNEL_LAUNCH_CHECK");
    CheckMacros.insert("TORCHTIDY_CHECK_LAUNCH");
    for (const std::string &M : Config.LaunchCheckMacros)
      if (!M.empty())
        CheckMacros.insert(M);
  }

  //===--- Outermost functions and their parent maps ----------------------===//

  Outer *outer(const FunctionDecl *FD) {
    const FunctionDecl *OF = outerFunctionOf(FD);
    if (!OF || !OF->getBody())
      return nullptr;
    auto &Slot = Outers[OF];
    if (!Slot) {
      Slot = std::make_unique<Outer>();
      Slot->Fn = FunctionContexts::of(Ctx).get(OF);
      llvm::SmallVector<const Stmt *, 32> Stack{OF->getBody()};
      while (!Stack.empty()) {
        const Stmt *S = Stack.pop_back_val();
        if (!S)
          continue;
        if (const auto *L = dyn_cast<LambdaExpr>(S))
          Slot->Lambdas.try_emplace(L->getLambdaClass(), L);
        for (const Stmt *Child : S->children())
          Stack.push_back(Child);
      }
    }
    return Slot.get();
  }

  /// The lambda expression whose call operator is \p FD, else null.
  const LambdaExpr *lambdaExprOf(const FunctionDecl *FD) {
    const CXXRecordDecl *RD = lambdaClassOf(FD);
    Outer *O = RD ? outer(FD) : nullptr;
    return O ? O->Lambdas.lookup(RD) : nullptr;
  }

  const Stmt *parent(const FunctionDecl *FD, const Stmt *S) {
    Outer *O = outer(FD);
    return O && O->Fn ? O->Fn->parentOf(S) : nullptr;
  }

  /// \p S, a statement of \p FD, is \p Tree or inside it; \p IfUnknown
  /// past the nesting limit.
  bool within(const FunctionDecl *FD, const Stmt *S, const Stmt *Tree,
              bool IfUnknown) {
    for (unsigned I = 0; S && I < limits::StatementNesting; ++I) {
      if (S == Tree)
        return true;
      S = parent(FD, S);
    }
    return S ? IfUnknown : false;
  }

  //===--- Tests and guards -----------------------------------------------===//

  /// `t.device()` (or `t.device().type()`): the tensor variable.
  std::optional<IndexVar> deviceOwner(const Expr *E) {
    E = unwrap(E);
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
      if (!isTensorMethod(MC->getMethodDecl()) &&
          isDeviceClass(MC->getImplicitObjectArgument()->getType()) &&
          isDeviceTypeEnum(MC->getType()))
        E = unwrap(MC->getImplicitObjectArgument());
    const CXXMemberCallExpr *MC = tensorMethodCall(E);
    if (!MC || !(callFacts(MC) & op::DeviceOfTensor))
      return std::nullopt;
    return directVariable(MC->getImplicitObjectArgument());
  }

  static bool isZero(const Expr *E, const ASTContext &Ctx) {
    Expr::EvalResult R;
    return E && !E->isValueDependent() && E->getType()->isIntegerType() &&
           E->EvaluateAsInt(R, Ctx) && R.Val.getInt() == 0;
  }
  static bool isOne(const Expr *E, const ASTContext &Ctx) {
    Expr::EvalResult R;
    return E && !E->isValueDependent() && E->getType()->isIntegerType() &&
           E->EvaluateAsInt(R, Ctx) && R.Val.getInt() == 1;
  }

  /// A count a run-time value may make 0: an integer read from a tensor, or
  /// an integer variable.
  static bool isCountLike(const Expr *E, unsigned Depth = 0) {
    if (!E || Depth > limits::SearchDepth)
      return false;
    E = unwrap(E);
    if (!E->getType()->isIntegerType() || E->getType()->isBooleanType())
      return false;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return isa<VarDecl>(DRE->getDecl());
    if (tensorMethodCall(E))
      return true;
    for (const Stmt *Child : E->children())
      if (const auto *CE = dyn_cast_or_null<Expr>(Child))
        if (isCountLike(CE, Depth + 1))
          return true;
    return false;
  }

  /// The operands and the operator of \p C: a built-in binary operator, or
  /// an overloaded comparison; null operands for anything else.
  static std::tuple<const Expr *, const Expr *, BinaryOperatorKind>
  binaryOperands(const Stmt *C) {
    if (const auto *BO = dyn_cast<BinaryOperator>(C))
      return {BO->getLHS(), BO->getRHS(), BO->getOpcode()};
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(C);
        OC && OC->getNumArgs() == 2 && OC->isComparisonOp())
      return {OC->getArg(0), OC->getArg(1),
              BinaryOperator::getOverloadedOpcode(OC->getOperator())};
    return {nullptr, nullptr, BO_Comma};
  }

  /// Calls \p Atom(A, T) for each test A of condition \p C that has the truth
  /// value T whenever \p C has \p Truth: through parens, cleanups, casts
  /// between truth values, `!` (the other way), both sides of `a && b` true
  /// or of `a || b` false; C10_LIKELY's `__builtin_expect(static_cast<bool>(c),
  /// 1)` is `c`. A test is anything else (a call, a comparison, a count
  /// converted to bool).
  static void atomsWhen(const Expr *C, bool Truth,
                        llvm::function_ref<void(const Expr *, bool)> Atom,
                        unsigned Depth = 0) {
    if (!C || Depth > limits::SearchDepth)
      return;
    C = C->IgnoreParens();
    if (const auto *EWC = dyn_cast<ExprWithCleanups>(C))
      return atomsWhen(EWC->getSubExpr(), Truth, Atom, Depth + 1);
    // C10_LIKELY(c): `__builtin_expect(static_cast<bool>(c), 1)`, a long
    // converted to bool.
    if (const auto *Expect =
            dyn_cast<CallExpr>(C->IgnoreParenImpCasts()->IgnoreParens());
        Expect && Expect->getNumArgs() == 2 &&
        Expect->getBuiltinCallee() == Builtin::BI__builtin_expect)
      return atomsWhen(Expect->getArg(0)->IgnoreParenImpCasts(), Truth, Atom,
                       Depth + 1);
    if (const auto *Cast = dyn_cast<CastExpr>(C);
        Cast && C->getType()->isBooleanType() &&
        (Cast->getCastKind() == CK_NoOp ||
         Cast->getCastKind() == CK_LValueToRValue))
      return atomsWhen(Cast->getSubExpr(), Truth, Atom, Depth + 1);
    if (const auto *UO = dyn_cast<UnaryOperator>(C);
        UO && UO->getOpcode() == UO_LNot)
      return atomsWhen(UO->getSubExpr(), !Truth, Atom, Depth + 1);
    if (auto [L, R, Op] = binaryOperands(C);
        L && R && ((Op == BO_LAnd && Truth) || (Op == BO_LOr && !Truth))) {
      atomsWhen(L, Truth, Atom, Depth + 1);
      atomsWhen(R, Truth, Atom, Depth + 1);
      return;
    }
    Atom(C, Truth);
  }

  /// Test \p A as a comparison that holds: its operands and its operator,
  /// negated when \p T is false; null operands for anything else (`a <=> b`
  /// is no truth value).
  static std::tuple<const Expr *, const Expr *, BinaryOperatorKind>
  comparisonWhen(const Expr *A, bool T) {
    auto [L, R, Op] = binaryOperands(A);
    if (!L || !R || !BinaryOperator::isComparisonOp(Op) || Op == BO_Cmp)
      return {nullptr, nullptr, BO_Comma};
    return {L, R, T ? Op : BinaryOperator::negateComparisonOp(Op)};
  }

  /// Adds to \p Out the (variable, property) tests that condition \p C
  /// having the truth value \p Truth proves: `x.is_cuda()` or
  /// `x.is_contiguous()` true, `x.device() == kCUDA` or `!= kCPU` true (or
  /// the other comparison false), `x.scalar_type() == k` true; a test on the
  /// other side proves nothing (`if (x.is_cuda()) return;`).
  void testsWhen(const Expr *C, bool Truth, llvm::SmallVectorImpl<Guard> &Out) {
    atomsWhen(C, Truth, [&](const Expr *A, bool T) {
      // The test itself is the guard's position: a call or a comparison is
      // an element of the CFG, where a condition with `!` or `&&` may be
      // none.
      auto Add = [&](std::optional<IndexVar> V, unsigned Props) {
        if (!V)
          return;
        Guard G;
        G.Props = Props;
        G.At = A;
        G.Var = *V;
        Out.push_back(G);
      };
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(A); MC && T) {
        const uint64_t Facts = callFacts(MC);
        // Past the conversion to TensorBase, where is_cuda() is declared.
        const Expr *Obj = MC->getImplicitObjectArgument()->IgnoreImpCasts();
        if (Facts & op::TestsCuda) {
          if (isTensorType(Obj->getType()))
            Add(directVariable(Obj), Guard::Cuda);
          else if (isDeviceClass(Obj->getType()))
            Add(deviceOwner(Obj), Guard::Cuda);
        }
        if ((Facts & op::Contiguity) && MC->getType()->isBooleanType() &&
            onlyDefaultArgs(MC) && isTensorMethod(MC->getMethodDecl()))
          Add(directVariable(Obj), Guard::Contig);
      }
      // Comparisons: devices, dtypes.
      auto [L, R, Op] = comparisonWhen(A, T);
      if (!L)
        return;
      for (auto [X, Y] : {std::pair{L, R}, std::pair{R, L}}) {
        if (auto V = deviceOwner(X)) {
          DeviceClass D = classifyDevice(Y);
          if ((Op == BO_EQ && D == DeviceClass::CUDA) ||
              (Op == BO_NE && D == DeviceClass::CPU))
            Add(V, Guard::Cuda);
        }
        if (const CXXMemberCallExpr *MC = tensorMethodCall(unwrap(X)))
          if (isC10Enum(MC->getType(), "ScalarType") ||
              isTypeMeta(MC->getType()))
            if (Op == BO_EQ)
              Add(directVariable(MC->getImplicitObjectArgument()),
                  Guard::Dtype);
      }
    });
  }

  /// Adds to \p Out the counts that condition \p C having the truth value
  /// \p Truth proves are not 0: `n != 0`, `n > 0`, `n >= 1`, `0 < n` or `n`
  /// true, `n == 0`, `n <= 0` or `n < 1` false (through atomsWhen).
  void nonZeroWhen(const Expr *C, bool Truth, NonZero &Out) {
    atomsWhen(C, Truth, [&](const Expr *A, bool T) {
      if (const auto *Cast = dyn_cast<CastExpr>(A)) {
        if (Cast->getCastKind() == CK_IntegralToBoolean && T &&
            isCountLike(Cast->getSubExpr()))
          addNonZero(Cast->getSubExpr(), Out);
        return;
      }
      auto [L, R, Op] = comparisonWhen(A, T);
      if (!L)
        return;
      // count OP k, with the count on the left.
      for (auto [Count, K, O] :
           {std::tuple{L, R, Op},
            std::tuple{R, L, BinaryOperator::reverseComparisonOp(Op)}}) {
        if (!isCountLike(Count))
          continue;
        if ((isZero(K, Ctx) && (O == BO_NE || O == BO_GT || O == BO_LT)) ||
            (isOne(K, Ctx) && O == BO_GE))
          addNonZero(Count, Out);
      }
    });
  }

  /// The tensors written as arguments of the macro expanding at \p S.
  const Expr *firstTensorArgument(const Stmt *S, unsigned Depth = 0) {
    if (!S || Depth > limits::SearchDepth)
      return nullptr;
    if (const auto *E = dyn_cast<Expr>(S))
      if (E->getBeginLoc().isMacroID() &&
          SM.isMacroArgExpansion(E->getBeginLoc()) &&
          isTensorType(E->getType()))
        return E;
    for (const Stmt *Child : S->children())
      if (const Expr *Found = firstTensorArgument(Child, Depth + 1))
        return Found;
    return nullptr;
  }

  /// The properties \p Callee checks on its parameter \p Param before it
  /// can return normally (its top-level guards), \p Depth helpers deep.
  unsigned helperGuards(const FunctionDecl *Callee, unsigned Param,
                        unsigned Depth) {
    if (!Callee || Depth > limits::HelperDepth)
      return 0;
    const FunctionDecl *Def = Callee->getDefinition();
    if (!Def || !Def->getBody() || !isUserDecl(Def) ||
        Param >= Def->getNumParams())
      return 0;
    auto Key = std::make_pair(Def, Param);
    if (auto It = HelperGuards.find(Key); It != HelperGuards.end())
      return It->second;
    HelperGuards[Key] = 0; // recursion
    const ParmVarDecl *PVD = Def->getParamDecl(Param);
    unsigned Props = 0;
    // The helper's top-level statements in order, up to the first that may
    // jump out: a check after `if (t.numel() == 0) return;` does not run on
    // every call. A test counts when its other branch never returns to the
    // caller (a throw, TORCH_CHECK's failure): after `if (!t.is_cuda())
    // return;` the caller goes on whatever t is.
    llvm::SmallVector<const Stmt *, 16> Work{Def->getBody()};
    for (unsigned Steps = 0; !Work.empty() && Steps < limits::SearchDepth * 8;
         ++Steps) {
      const Stmt *S = Work.pop_back_val();
      if (!S)
        continue;
      if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
        for (const Stmt *Child : llvm::reverse(CS->body()))
          Work.push_back(Child);
        continue;
      }
      if (const auto *Do = dyn_cast<DoStmt>(S)) {
        Work.push_back(Do->getBody());
        continue;
      }
      if (const auto *If = dyn_cast<IfStmt>(S)) {
        const bool ThenDies = neverReturns(If->getThen()),
                   ElseDies = neverReturns(If->getElse());
        if (ThenDies != ElseDies) {
          llvm::SmallVector<Guard, 4> Tests;
          testsWhen(If->getCond(), ElseDies, Tests);
          for (const Guard &G : Tests)
            if (G.Var.Base == PVD && !G.Var.Field)
              Props |= G.Props;
        }
      }
      if (mayJumpOut(S))
        break;
      if (const auto *E = dyn_cast<Expr>(S)) {
        E = unwrap(E);
        SourceLocation Exp;
        if (inMacroNamed(E->getBeginLoc(), SM, Ctx.getLangOpts(),
                         kernelArgMacros(), &Exp))
          if (const Expr *Arg = firstTensorArgument(E))
            if (auto V = directVariable(Arg); V && V->Base == PVD)
              Props |= Guard::Cuda | Guard::Contig | Guard::Dtype;
        if (const auto *Call = dyn_cast<CallExpr>(E))
          Props |= callGuardsOn(Call, PVD, Depth);
      }
    }
    HelperGuards[Key] = Props;
    return Props;
  }

  /// What \p Call (a helper of the translation unit) checks on \p V.
  unsigned callGuardsOn(const CallExpr *Call, const ValueDecl *V,
                        unsigned Depth) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || isTorchFunction(Callee) || isa<CUDAKernelCallExpr>(Call))
      return 0;
    unsigned Shift =
        isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
    unsigned Props = 0;
    for (unsigned A = Shift; A < Call->getNumArgs(); ++A) {
      auto Var = directVariable(Call->getArg(A));
      if (Var && Var->Base == V && !Var->Field)
        Props |= helperGuards(Callee, A - Shift, Depth + 1);
    }
    return Props;
  }

  /// The operand of condition \p C evaluated first: an element of the CFG,
  /// where `a || b` is none.
  static const Expr *firstEvaluated(const Expr *C) {
    C = C->IgnoreParens();
    while (const auto *BO = dyn_cast<BinaryOperator>(C)) {
      if (!BO->isLogicalOp())
        break;
      C = BO->getLHS()->IgnoreParens();
    }
    return C;
  }

  /// The divisor of \p E when it is an integer division or remainder by a
  /// count (`a / n`, `a % x.size(0)`, `a /= n`), which traps when it is 0;
  /// else null. A floating division by 0 does not trap.
  static const Expr *integerDivisor(const Expr *E) {
    const auto *BO = dyn_cast_or_null<BinaryOperator>(E);
    if (!BO)
      return nullptr;
    const BinaryOperatorKind Op = BO->getOpcode();
    if (Op != BO_Div && Op != BO_Rem && Op != BO_DivAssign &&
        Op != BO_RemAssign)
      return nullptr;
    QualType Computed = BO->getType();
    if (const auto *CA = dyn_cast<CompoundAssignOperator>(BO))
      Computed = CA->getComputationResultType();
    if (!Computed->isIntegerType() || !isCountLike(BO->getRHS()))
      return nullptr;
    return BO->getRHS();
  }

  static const llvm::StringSet<> &kernelArgMacros() {
    static const llvm::StringSet<> Names{"TORCHTIDY_CHECK_KERNEL_ARG"};
    return Names;
  }

  /// The guards of \p FD's own body: conditions with a branch that exits,
  /// TORCHTIDY_CHECK_KERNEL_ARG, and helpers that check their arguments.
  const std::vector<Guard> &guardsOf(const FunctionDecl *FD) {
    auto It = GuardsOf.find(FD);
    if (It != GuardsOf.end())
      return It->second;
    std::vector<Guard> &Out = GuardsOf[FD];
    llvm::DenseSet<unsigned> Expansions;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      // Past an if or a ?: with one branch that exits, the condition has
      // the value of the branch that goes on.
      const Expr *Cond = nullptr;
      const Stmt *Then = nullptr, *Else = nullptr;
      if (const auto *If = dyn_cast<IfStmt>(S)) {
        Cond = If->getCond();
        Then = If->getThen();
        Else = If->getElse();
      } else if (const auto *CO = dyn_cast<ConditionalOperator>(S)) {
        Cond = CO->getCond();
        Then = CO->getTrueExpr();
        Else = CO->getFalseExpr();
      }
      const bool ThenExits = exits(Then), ElseExits = exits(Else);
      if (Cond && (ThenExits || ElseExits)) {
        // Both exit: nothing past it runs.
        if (ThenExits == ElseExits)
          return;
        const Stmt *ExitBranch = ThenExits ? Then : Else;
        // A break or a continue leaves only its loop: past the loop the
        // condition may have been true.
        const Stmt *Scope = nullptr;
        if (!leavesFunction(ExitBranch)) {
          Scope = jumpTarget(FD, S, /*Break=*/true);
          if (!Scope)
            return;
        }
        auto Push = [&](Guard G) {
          G.Cond = Cond;
          G.CondTruth = ElseExits;
          G.ExitBranch = ExitBranch;
          G.Scope = Scope;
          Out.push_back(G);
        };
        llvm::SmallVector<Guard, 4> Tests;
        testsWhen(Cond, ElseExits, Tests);
        for (const Guard &G : Tests)
          Push(G);
        Guard G;
        G.Props = Guard::NonEmpty;
        G.At = firstEvaluated(Cond);
        Push(G);
        return;
      }
      // The guard is the call inside (a temporary's cleanups are not a
      // statement of the CFG); forEachOwnStmt visits it next.
      const auto *E = dyn_cast<Expr>(S);
      // An integer division by a count (`K = out.numel() / N`): past it the
      // count is not 0, since the host dies of the division first.
      if (const Expr *Divisor = integerDivisor(E)) {
        Guard G;
        G.Props = Guard::NonEmpty;
        G.At = E;
        G.Count = Divisor;
        Out.push_back(G);
      }
      if (!E || isa<ExprWithCleanups>(E))
        return;
      SourceLocation Exp;
      if (E->getBeginLoc().isMacroID() &&
          inMacroNamed(E->getBeginLoc(), SM, Ctx.getLangOpts(),
                       kernelArgMacros(), &Exp) &&
          Expansions.insert(Exp.getRawEncoding()).second) {
        if (const Expr *Arg = firstTensorArgument(E))
          if (auto V = directVariable(Arg)) {
            Guard G;
            G.Props = Guard::Cuda | Guard::Contig | Guard::Dtype;
            G.Var = *V;
            G.At = E;
            Out.push_back(G);
          }
        return;
      }
      if (const auto *Call = dyn_cast<CallExpr>(E)) {
        const FunctionDecl *Callee = Call->getDirectCallee();
        if (!Callee || isTorchFunction(Callee) || isa<CUDAKernelCallExpr>(Call))
          return;
        unsigned Shift =
            isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1
                                                                         : 0;
        for (unsigned A = Shift; A < Call->getNumArgs(); ++A) {
          auto V = directVariable(Call->getArg(A));
          if (!V || V->Field)
            continue;
          if (unsigned Props = helperGuards(Callee, A - Shift, 0)) {
            Guard G;
            G.Props = Props;
            G.Var = *V;
            G.At = Call;
            Out.push_back(G);
          }
        }
      }
    });
    return Out;
  }

  /// The properties checked on \p V (any variable for NonEmpty) before
  /// \p Use of \p UseFn: a guard that dominates it (in its function or, for
  /// a lambda, where the enclosing function calls it), or a branch on it
  /// that holds the use. \p Counts gets the counts those guards prove are
  /// not 0.
  unsigned provenAt(const IndexVar *V, const Stmt *Use,
                    const FunctionDecl *UseFn, NonZero *Counts = nullptr) {
    unsigned Props = 0;
    auto Matches = [&](const Guard &G) {
      return V ? G.Var == *V : (G.Props & Guard::NonEmpty) != 0;
    };
    const Stmt *At = Use;
    const FunctionDecl *Fn = UseFn;
    auto Holds = [&](const Guard &G) {
      if ((G.ExitBranch && within(Fn, At, G.ExitBranch, true)) ||
          (G.Scope && !within(Fn, At, G.Scope, false)))
        return;
      Props |= G.Props;
      if (V || !Counts)
        return;
      NonZero Proven;
      if (G.Count)
        addNonZero(G.Count, Proven);
      else if (G.Cond)
        nonZeroWhen(dyn_cast<Expr>(G.Cond), G.CondTruth, Proven);
      addUnchanged(*Counts, Proven, GuardAnalysis.finder(Fn), G.At, At);
    };
    for (unsigned I = 0; Fn && At && I < limits::StatementNesting; ++I) {
      IndexGuardFinder &Finder = GuardAnalysis.finder(Fn);
      for (const Guard &G : guardsOf(Fn))
        if (Matches(G) && Finder.valid() &&
            (Finder.dominates(G.At, At) ||
             (G.Cond && Finder.dominates(G.Cond, At))))
          Holds(G);
      const LambdaExpr *L = lambdaExprOf(Fn);
      if (!L)
        break;
      At = L;
      Fn = enclosingFunctionOf(Fn);
    }
    // Branches around the use: `if (x.is_cuda()) { launch }`.
    const Stmt *Cur = Use;
    for (unsigned I = 0; I < limits::StatementNesting; ++I) {
      const Stmt *P = parent(UseFn, Cur);
      if (!P)
        break;
      // The branch that holds the use (not an if's init-statement).
      const Expr *Cond = nullptr;
      bool InThen = false;
      if (const auto *If = dyn_cast<IfStmt>(P);
          If && (If->getThen() == Cur || If->getElse() == Cur)) {
        Cond = If->getCond();
        InThen = If->getThen() == Cur;
      } else if (const auto *CO = dyn_cast<ConditionalOperator>(P);
                 CO && CO->getCond() != Cur) {
        Cond = CO->getCond();
        InThen = CO->getTrueExpr() == Cur;
      }
      if (Cond) {
        llvm::SmallVector<Guard, 4> Tests;
        testsWhen(Cond, InThen, Tests);
        for (const Guard &G : Tests)
          if (Matches(G))
            Props |= G.Props;
        if (!V && Counts) {
          NonZero Proven;
          nonZeroWhen(Cond, InThen, Proven);
          addUnchanged(*Counts, Proven, GuardAnalysis.finder(UseFn),
                       firstEvaluated(Cond), Use);
        }
      }
      Cur = P;
    }
    return V ? Props & ~unsigned(Guard::NonEmpty) : Props & Guard::NonEmpty;
  }

  //===--- Definitions of locals ------------------------------------------===//

  /// The one value a local gets (its initialiser), when nothing else writes
  /// it but in-place ops that keep its device, dtype and strides.
  const Expr *singleDefinition(const VarDecl *VD) {
    if (!VD || isa<ParmVarDecl>(VD) || !VD->isLocalVarDecl() ||
        VD->getType()->isReferenceType() || VD->isStaticLocal())
      return nullptr;
    const auto *Owner =
        dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
    if (!Owner)
      return nullptr;
    IndexGuardFinder &Finder = GuardAnalysis.finder(Owner);
    if (!Finder.valid())
      return nullptr;
    std::vector<const Expr *> Defs = Finder.definitionsOf(VD);
    if (Defs.size() != 1 || Defs.front() != VD->getInit())
      return nullptr;
    for (const Stmt *W : Finder.writesOf(IndexVar{VD, nullptr})) {
      if (const auto *DS = dyn_cast<DeclStmt>(W)) {
        bool Declares = false;
        for (const Decl *D : DS->decls())
          Declares |= D == VD;
        if (Declares)
          continue;
      }
      if (const auto *MC = tensorMethodCall(dyn_cast<Expr>(W)))
        if (!(callFacts(MC) & (op::DeviceOpaque | op::RebindsStorage)))
          continue;
      return nullptr;
    }
    return VD->getInit();
  }

  //===--- What a tensor expression is ------------------------------------===//

  /// The dtype an options or dtype expression names ("Long"), else "".
  std::string dtypeOf(const Expr *E, unsigned Depth = 0) {
    if (!E || Depth > limits::DeviceValueSteps)
      return "";
    E = unwrap(E);
    std::string Direct = scalarTypeName(E, Ctx);
    if (!Direct.empty())
      return Direct;
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E)) {
      for (const Expr *A : Ctor->arguments())
        if (std::string D = dtypeOf(A, Depth + 1); !D.empty())
          return D;
      return "";
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return "";
    // The legacy type objects: at::CUDA(kFloat) names its dtype, and
    // converts to options that keep it.
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
      const Expr *Obj = MC->getImplicitObjectArgument();
      if (isa_and_nonnull<CXXConversionDecl>(MC->getMethodDecl()) && Obj &&
          isDeprecatedTypeProperties(Obj->getType()))
        return dtypeOf(Obj, Depth + 1);
    } else if (isDeprecatedTypeProperties(Call->getType())) {
      for (const Expr *A : Call->arguments())
        if (std::string D = scalarTypeName(unwrap(A), Ctx); !D.empty())
          return D;
      return "";
    }
    const uint64_t Facts = callFacts(Call);
    // options.dtype(k), torch::dtype(k): the outermost setter wins. The
    // setter of the real headers takes an optional<ScalarType>.
    if (Facts & (op::OptionsNonDevice | op::OptionsDevice)) {
      for (const Expr *A : Call->arguments())
        if (std::string D = dtypeOf(A, Depth + 1); !D.empty())
          return D;
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
        return dtypeOf(MC->getImplicitObjectArgument(), Depth + 1);
    }
    return "";
  }

  /// The tensor an options expression takes its device and dtype from
  /// (`x.options()`, `x.options().dtype(...)`), else null.
  const Expr *optionsOwner(const Expr *E, unsigned Depth = 0) {
    if (!E || Depth > limits::DeviceValueSteps)
      return nullptr;
    E = unwrap(E);
    const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
    if (!MC)
      return nullptr;
    const uint64_t Facts = callFacts(MC);
    if ((Facts & op::OptionsOfTensor) && isTensorMethod(MC->getMethodDecl()))
      return MC->getImplicitObjectArgument();
    if (Facts & op::OptionsNonDevice)
      return optionsOwner(MC->getImplicitObjectArgument(), Depth + 1);
    return nullptr;
  }

  /// The TensorOptions parameter of a factory call: false when it has
  /// none (the overloads that take dtype, layout and device apart); \p Opts
  /// gets the argument, null for the default.
  static bool optionsArgument(const CallExpr *Call, const Expr *&Opts) {
    Opts = nullptr;
    for (unsigned I = Call->getNumArgs(); I-- > 0;) {
      const Expr *A = Call->getArg(I);
      if (isTensorOptionsClass(A->getType())) {
        Opts = isa<CXXDefaultArgExpr>(A) ? nullptr : A;
        return true;
      }
    }
    return false;
  }

  void applyOptions(TensorFacts &F, const CallExpr *Call, const Expr *Opts,
                    const Stmt *Use, const FunctionDecl *UseFn,
                    unsigned Depth) {
    DeviceClass D = Opts ? classifyDevice(Opts) : DeviceClass::NotADevice;
    if (const Expr *Owner = optionsOwner(Opts)) {
      TensorFacts From = resolve(Owner, Use, UseFn, Depth + 1);
      F.Device = From.Device;
      F.Dtype = From.Dtype;
      F.DtypeAt = From.DtypeAt;
      F.DtypeVar = From.DtypeVar;
    } else if (D == DeviceClass::CUDA) {
      F.Device = {PropState::Proven, Call, "", nullptr};
    } else if (D == DeviceClass::CPU || D == DeviceClass::NotADevice) {
      F.Device = {PropState::Against, Call,
                  D == DeviceClass::CPU ? "on the CPU" : "given no device",
                  nullptr};
    } else {
      F.Device = {};
    }
    if (std::string Dt = dtypeOf(Opts); !Dt.empty()) {
      F.Dtype = Dt;
      F.DtypeAt = Opts;
      F.DtypeVar = nullptr;
    }
  }

  /// What \p E is where \p Use (of \p UseFn) reads it.
  TensorFacts resolve(const Expr *E, const Stmt *Use, const FunctionDecl *UseFn,
                      unsigned Depth = 0) {
    TensorFacts F;
    if (!E || Depth > limits::OriginDepth)
      return F;
    E = unwrap(E);
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
      return resolve(Cast->getSubExpr(), Use, UseFn, Depth + 1);
    if (std::optional<IndexVar> V = directVariable(E)) {
      if (!V->Field)
        if (const auto *VD = dyn_cast<VarDecl>(V->Base))
          if (const Expr *Def = singleDefinition(VD)) {
            F = resolve(Def, Use, UseFn, Depth + 1);
            for (PropState *P : {&F.Device, &F.Contig})
              if (P->K != PropState::Unknown && !P->Var)
                P->Var = VD;
            if (!F.Dtype.empty() && !F.DtypeVar)
              F.DtypeVar = VD;
          }
      unsigned Checked = provenAt(&*V, Use, UseFn);
      if (Checked & Guard::Cuda)
        F.Device = {PropState::Proven, nullptr, "", nullptr};
      if (Checked & Guard::Contig)
        F.Contig = {PropState::Proven, nullptr, "", nullptr};
      if (Checked & Guard::Dtype)
        F.DtypeChecked = true;
      return F;
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call || !isTensorType(Call->getType()))
      return F;
    const uint64_t Facts = callFacts(Call);
    if (const CXXMemberCallExpr *MC = tensorMethodCall(Call)) {
      const Expr *Obj = MC->getImplicitObjectArgument();
      F = resolve(Obj, Use, UseFn, Depth + 1);
      if (Facts & op::DeviceOpaque)
        F.Device = {};
      if (Facts & op::MovesToCuda) {
        F.Device = {PropState::Proven, MC, "", nullptr};
      } else if (Facts & op::MovesToCpu) {
        F.Device = {PropState::Against, MC, "moved to the CPU", nullptr};
      } else if (Facts & op::MovesToArgument) {
        for (const Expr *A : MC->arguments()) {
          if (isa<CXXDefaultArgExpr>(A))
            continue;
          if (isTensorType(A->getType())) {
            TensorFacts Other = resolve(A, Use, UseFn, Depth + 1);
            F.Device = Other.Device;
            F.Dtype = Other.Dtype;
            F.DtypeAt = Other.DtypeAt;
            continue;
          }
          DeviceClass D = classifyDevice(A);
          if (D == DeviceClass::CUDA)
            F.Device = {PropState::Proven, MC, "", nullptr};
          else if (D == DeviceClass::CPU)
            F.Device = {PropState::Against, MC, "moved to the CPU", nullptr};
          else if (D == DeviceClass::Configurable)
            F.Device = {};
          if (std::string Dt = dtypeOf(A); !Dt.empty()) {
            F.Dtype = Dt;
            F.DtypeAt = A;
            F.DtypeVar = nullptr;
            F.DtypeChecked = false;
          }
        }
      }
      if (Facts & op::StridedView)
        F.Contig = {PropState::Against, MC, "", nullptr};
      else if ((Facts & op::Contiguity) && onlyDefaultArgs(MC))
        F.Contig = {PropState::Proven, MC, "", nullptr};
      else if (!(Facts & op::ValuePreserving) || (Facts & op::Slices))
        F.Contig = {};
      // Other methods keep the device; their dtype may change.
      if (!(Facts & (op::ValuePreserving | op::StridedView | op::Contiguity)))
        F.Dtype.clear();
      return F;
    }
    if (Facts & op::Factory) {
      F.Contig = {PropState::Proven, Call, "", nullptr};
      const Expr *Opts = nullptr;
      if (optionsArgument(Call, Opts))
        applyOptions(F, Call, Opts, Use, UseFn, Depth);
      return F;
    }
    if ((Facts & op::LikeFactory) && Call->getNumArgs() >= 1) {
      F = resolve(Call->getArg(0), Use, UseFn, Depth + 1);
      const Expr *Opts = nullptr;
      if (optionsArgument(Call, Opts) && Opts) {
        DeviceClass D = classifyDevice(Opts);
        if (D == DeviceClass::CUDA)
          F.Device = {PropState::Proven, Call, "", nullptr};
        else if (D == DeviceClass::CPU)
          F.Device = {PropState::Against, Call, "on the CPU", nullptr};
        if (std::string Dt = dtypeOf(Opts); !Dt.empty()) {
          F.Dtype = Dt;
          F.DtypeAt = Opts;
          F.DtypeVar = nullptr;
        }
      }
      return F;
    }
    return F;
  }

  //===--- Raw views ------------------------------------------------------===//

  /// The raw view of storage that kernel argument \p A is (through casts,
  /// pointer arithmetic and pointer or accessor locals).
  std::optional<RawView> rawView(const Expr *A, unsigned Depth = 0) {
    QualType CastElement;
    for (unsigned I = 0; A && I < limits::OriginDepth + Depth; ++I) {
      A = unwrap(A);
      if (const auto *Cast = dyn_cast<ExplicitCastExpr>(A)) {
        if (CastElement.isNull() && Cast->getType()->isPointerType())
          CastElement = Cast->getType()->getPointeeType();
        A = Cast->getSubExpr();
        continue;
      }
      if (const auto *BO = dyn_cast<BinaryOperator>(A);
          BO && BO->isAdditiveOp() && BO->getType()->isPointerType()) {
        A = BO->getLHS()->getType()->isPointerType() ? BO->getLHS()
                                                     : BO->getRHS();
        continue;
      }
      if (const auto *DRE = dyn_cast<DeclRefExpr>(A)) {
        const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
        if (!VD ||
            !(VD->getType()->isPointerType() || isAccessorType(VD->getType())))
          return std::nullopt;
        A = singleDefinition(VD);
        continue;
      }
      break;
    }
    const CXXMemberCallExpr *MC = tensorMethodCall(A);
    if (!MC || !(callFacts(MC) & op::RawDataPointer))
      return std::nullopt;
    RawView V;
    V.Call = MC;
    V.Tensor = MC->getImplicitObjectArgument();
    QualType T = MC->getType();
    // The element type as written (`data_ptr<int64_t>`, `scalar_t`), which
    // the instantiated return type has lost.
    QualType Written;
    if (const auto *ME = dyn_cast<MemberExpr>(MC->getCallee()->IgnoreParens());
        ME && ME->getNumTemplateArgs() > 0 &&
        ME->getTemplateArgs()[0].getArgument().getKind() ==
            TemplateArgument::Type)
      Written = ME->getTemplateArgs()[0].getArgument().getAsType();
    if (T->isPointerType()) {
      QualType Pointee = T->getPointeeType();
      V.Typed = !Pointee->isVoidType();
      V.Element = !V.Typed            ? CastElement
                  : !Written.isNull() ? Written
                                      : Pointee;
    } else if (isAccessorType(T)) {
      V.Typed = V.Accessor = true;
      V.Element = !Written.isNull() ? Written : accessorElement(T);
    } else {
      return std::nullopt; // Tensor::data(): a tensor, not a pointer
    }
    return V;
  }

  /// The parameter of \p FD that kernel argument \p A passes on, if any.
  const ParmVarDecl *passedParam(const Expr *A, const FunctionDecl *FD) {
    for (unsigned I = 0; A && I < limits::OriginDepth; ++I) {
      A = unwrap(A);
      if (const auto *Cast = dyn_cast<ExplicitCastExpr>(A)) {
        A = Cast->getSubExpr();
        continue;
      }
      if (const auto *BO = dyn_cast<BinaryOperator>(A);
          BO && BO->isAdditiveOp() && BO->getType()->isPointerType()) {
        A = BO->getLHS()->getType()->isPointerType() ? BO->getLHS()
                                                     : BO->getRHS();
        continue;
      }
      const auto *DRE = dyn_cast<DeclRefExpr>(A);
      if (!DRE)
        return nullptr;
      if (const auto *PVD = dyn_cast<ParmVarDecl>(DRE->getDecl()))
        return PVD->getDeclContext() == FD ? PVD : nullptr;
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (!VD)
        return nullptr;
      A = singleDefinition(VD);
    }
    return nullptr;
  }

  LauncherAnswer launcher(const FunctionDecl *Callee, unsigned Param,
                          unsigned Depth) {
    if (!Callee || Depth > Config.MaxLauncherDepth || isTorchFunction(Callee))
      return {};
    const FunctionDecl *Def = Callee->getDefinition();
    const FunctionDecl *Decl = Def ? Def : Callee;
    if (Param >= Decl->getNumParams() || !isUserDecl(Decl))
      return {};
    QualType PT = Decl->getParamDecl(Param)->getType();
    if (!PT->isPointerType() && !isAccessorType(PT))
      return {};
    if (!Def || !Def->getBody()) {
      // Only declared here (defined in a .cu file): a launcher when it
      // takes a stream.
      for (const ParmVarDecl *P : Decl->parameters())
        if (isCudaStreamType(P->getType()))
          return {true, nullptr};
      return {};
    }
    auto Key = std::make_pair(Def, Param);
    if (auto It = Launchers.find(Key); It != Launchers.end())
      return It->second;
    Launchers[Key] = {}; // recursion
    const ParmVarDecl *PVD = Def->getParamDecl(Param);
    LauncherAnswer Answer;
    // The body and the lambdas written in it.
    llvm::SmallVector<const Stmt *, 32> Stack{Def->getBody()};
    while (!Stack.empty() && !Answer.Is) {
      const Stmt *S = Stack.pop_back_val();
      if (!S)
        continue;
      if (const auto *L = dyn_cast<CUDAKernelCallExpr>(S)) {
        for (const Expr *A : L->arguments())
          if (passedParam(A, Def) == PVD)
            Answer = {true, L};
      } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
        const FunctionDecl *Next = Call->getDirectCallee();
        unsigned Shift = isa<CXXOperatorCallExpr>(Call) &&
                                 isa_and_nonnull<CXXMethodDecl>(Next)
                             ? 1
                             : 0;
        for (unsigned A = Shift; Next && A < Call->getNumArgs(); ++A)
          if (passedParam(Call->getArg(A), Def) == PVD) {
            LauncherAnswer Inner = launcher(Next, A - Shift, Depth + 1);
            if (Inner.Is)
              Answer = {true, Inner.Launch ? Inner.Launch : Call};
          }
      }
      for (const Stmt *Child : S->children())
        Stack.push_back(Child);
    }
    Launchers[Key] = Answer;
    return Answer;
  }

  //===--- What follows a launch ------------------------------------------===//

  /// \p S contains a launch check: a check macro, or a read of the launch
  /// error whose value is used.
  bool isLaunchCheck(const Stmt *S, const FunctionDecl *FD) {
    bool Found = false;
    const Stmt *Whole = S;
    if (const auto *E = dyn_cast<Expr>(S))
      Whole = unwrap(E);
    forEachOwnStmt(S, [&](const Stmt *Sub) {
      if (Found)
        return;
      if (Sub->getBeginLoc().isMacroID() &&
          inMacroNamed(Sub->getBeginLoc(), SM, Ctx.getLangOpts(),
                       CheckMacros)) {
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

  /// \p S only launches kernels (a launch, a block or branches of them).
  static bool isLaunchOnly(const Stmt *S, unsigned Depth = 0) {
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

  /// The lambda expression whose body holds \p S in \p FD's parent map.
  const LambdaExpr *enclosingLambda(const FunctionDecl *FD, const Stmt *S) {
    for (unsigned I = 0; S && I < limits::StatementNesting; ++I) {
      const Stmt *P = parent(FD, S);
      if (const auto *L = dyn_cast_or_null<LambdaExpr>(P))
        if (L->getBody() == S)
          return L;
      S = P;
    }
    return nullptr;
  }

  /// The lambda \p L is called where it is written: `[&] { ... }()` or
  /// passed to a call, not stored for later.
  bool calledWhereWritten(const FunctionDecl *FD, const LambdaExpr *L) {
    using namespace peel;
    const Expr *Arg =
        climb(L, Compiler | CopiesAndMoves | ConvertingConstructions,
              [&](const Stmt *S) { return parent(FD, S); });
    return isa_and_nonnull<CallExpr>(parent(FD, Arg));
  }

  /// The loop or switch a break (or the loop a continue) at \p Jump leaves.
  /// For a break or a continue somewhere in \p Jump, \p Break: the innermost
  /// of the two.
  const Stmt *jumpTarget(const FunctionDecl *FD, const Stmt *Jump, bool Break) {
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

  void follow(KernelLaunchSite &Site) {
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

  //===--- Evidence that a launch can fail --------------------------------===//

  /// What the code before a launch proves is not 0: locals and sizes read
  /// (`x.numel()`, `x.size(0)`, `x.sizes()[0]`).
  struct NonZero {
    llvm::SmallPtrSet<const VarDecl *, 4> Locals;
    struct Size {
      IndexVar Tensor;
      std::string Method;
      std::optional<int64_t> Dim;
      /// The dim is not a constant (`x.size(dim)`): only a test of the
      /// tensor's numel() covers it.
      bool AnyDim = false;
    };
    llvm::SmallVector<Size, 4> Sizes;
    bool empty() const { return Locals.empty() && Sizes.empty(); }
  };

  /// `x.numel()`, `x.size(d)`, `x.sizes()[d]`: the tensor, the method and
  /// the dim (AnyDim when it is not a constant); else nothing.
  std::optional<NonZero::Size> sizeRead(const Expr *E) {
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
          return WithDim({*V, "size", {}}, Sub->getArg(1));
        }
    const auto *MC = tensorMethodCall(E);
    if (!MC || !MC->getType()->isIntegerType() ||
        !MC->getMethodDecl()->getIdentifier())
      return std::nullopt;
    auto V = directVariable(MC->getImplicitObjectArgument());
    if (!V)
      return std::nullopt;
    NonZero::Size S{*V, MC->getMethodDecl()->getName().str(), {}};
    if (MC->getNumArgs() >= 1 && !isa<CXXDefaultArgExpr>(MC->getArg(0)))
      return WithDim(S, MC->getArg(0));
    return S;
  }

  /// Adds to \p Out what \p Count not being 0 proves is not 0: the count,
  /// what a local holds (its one definition), both factors of a product,
  /// the dividend of a quotient, what a cast converts.
  void addNonZero(const Expr *Count, NonZero &Out, unsigned Depth = 0) {
    if (!Count || Depth > limits::OriginDepth)
      return;
    Count = unwrap(Count);
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(Count)) {
      addNonZero(Cast->getSubExpr(), Out, Depth + 1);
      return;
    }
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

  /// Adds \p Proven, what a check at \p From proves, to \p Out, but for the
  /// sizes of a tensor that a definition after the check may replace before
  /// \p To (`x = x.index_select(0, idx)`). A member tensor, or one changed
  /// through a reference or inside a lambda, is taken as unchanged.
  void addUnchanged(NonZero &Out, const NonZero &Proven,
                    IndexGuardFinder &Finder, const Stmt *From,
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

  /// \p E is a count that \p Known proves is not 0: a local of it, or a
  /// size of a tensor whose same size, or numel(), is in it.
  bool isNonZero(const Expr *E, const NonZero &Known) {
    E = unwrap(E);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      return VD && Known.Locals.count(VD);
    }
    auto S = sizeRead(E);
    if (!S || (S->Method != "numel" && S->Method != "size"))
      return false;
    for (const NonZero::Size &K : Known.Sizes)
      if (K.Tensor == S->Tensor &&
          (K.Method == "numel" || (K.Method == S->Method && K.Dim == S->Dim &&
                                   !K.AnyDim && !S->AnyDim)))
        return true;
    return false;
  }

  /// The value of a grid or block dimension when every size read from a
  /// tensor is 0; nothing when the model cannot tell. \p Leaf gets the
  /// first size read, \p Via the first local followed to it.
  /// A count in Assumed that would be 0 is not: it is taken as its least
  /// value, 1, and names no size (Leaf), so that `std::min(n, y.size(0))`
  /// with `n` checked is still 0 through `y`.
  std::optional<int64_t> valueWhenEmpty(const Expr *E, const Expr *&Leaf,
                                        const VarDecl *&Via,
                                        unsigned Depth = 0) {
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
  std::optional<int64_t> valueWhenEmptyOf(const Expr *E, const Expr *&Leaf,
                                          const VarDecl *&Via, unsigned Depth) {
    if (!E || Depth > limits::OriginDepth || E->isValueDependent())
      return std::nullopt;
    E = unwrap(E);
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
      unsigned Index = Field->getFieldIndex();
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
      const uint64_t Facts = callFacts(Call);
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

  static bool isDim3(QualType T) {
    const CXXRecordDecl *RD = namedRecord(T);
    return RD && RD->getIdentifier() && RD->getName() == "dim3" &&
           RD->getDeclContext()->getRedeclContext()->isTranslationUnit();
  }

  /// The dimensions of a grid or block argument: a dim3's constructor
  /// arguments (through a local), or one integer for x.
  llvm::SmallVector<const Expr *, 3> dimensions(const Expr *E) {
    llvm::SmallVector<const Expr *, 3> Dims;
    for (unsigned I = 0; E && I < limits::OriginDepth; ++I) {
      E = unwrap(E);
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
      if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
        E = Cast->getSubExpr();
        continue;
      }
      if (E->getType()->isIntegerType())
        Dims.push_back(E);
      return Dims;
    }
    return Dims;
  }

  /// \p VD is passed to a function by non-const reference or pointer
  /// (`resize(grid)`, `f(&grid)`) somewhere in \p Body: it may change there.
  static bool passedByReference(const VarDecl *VD, const Stmt *Body) {
    auto Names = [&](const Expr *E) {
      const auto *DRE = dyn_cast_or_null<DeclRefExpr>(unwrap(E));
      return DRE && DRE->getDecl() == VD;
    };
    bool Found = false;
    forEachOwnStmt(Body, [&](const Stmt *S) {
      if (Found)
        return;
      if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
        Found = UO->getOpcode() == UO_AddrOf && Names(UO->getSubExpr());
        return;
      }
      const auto *Call = dyn_cast<CallExpr>(S);
      const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
      if (!Callee || isa<CXXOperatorCallExpr>(Call))
        return;
      for (unsigned I = 0; I < Call->getNumArgs() && I < Callee->getNumParams();
           ++I) {
        const QualType PT = Callee->getParamDecl(I)->getType();
        if (PT->isReferenceType() &&
            !PT.getNonReferenceType().isConstQualified() &&
            Names(Call->getArg(I)))
          Found = true;
      }
    });
    return Found;
  }

  /// The dimensions a grid argument can have at \p Launch: those of
  /// dimensions(), or, for a local dim3 written more than once (`dim3 grid;
  /// if (c) grid = dim3(a); else grid = dim3(b);`), those of each of its
  /// definitions that reaches the launch when nothing else writes it (not
  /// a field, not through a reference).
  llvm::SmallVector<llvm::SmallVector<const Expr *, 3>, 2>
  gridCandidates(const Expr *Grid, const Stmt *Launch) {
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
    std::vector<const Stmt *> Writes = Finder.writesOf(Whole);
    // Each write is the declaration or defines a value: nothing else (a
    // call that takes it by reference) changes it, and no field is set.
    if (!Finder.valid() || Writes.size() != Defs.size() ||
        (VD->getInit() && !llvm::is_contained(Defs, VD->getInit())))
      return Out;
    if (const CXXRecordDecl *RD = namedRecord(VD->getType()))
      for (const FieldDecl *F : RD->fields())
        if (Finder.writesOf(IndexVar{VD, F}).size() != Writes.size())
          return Out;
    if (passedByReference(VD, Owner->getBody()))
      return Out;
    for (const Expr *Def : Finder.reachingDefinitionsOf(VD, Launch))
      Out.push_back(dimensions(Def));
    return Out;
  }

  LaunchFailure failure(const KernelLaunchSite &Site) {
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
      Expr::EvalResult R;
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

  /// The grid dimensions \p Dims can be 0 (\p F says how), with nothing
  /// before the launch that rules it out.
  bool emptyGrid(const KernelLaunchSite &Site,
                 llvm::ArrayRef<const Expr *> Dims, LaunchFailure &F) {
    // What the code before the launch proves is not 0: a count checked
    // against 0 on every path to it (or on the branch that holds it), or
    // divided by (the host dies of an integer division by 0 first).
    std::optional<NonZero> Known;
    unsigned Dim = 0;
    for (const Expr *D : Dims) {
      unsigned This = Dim++;
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

  static void classifyStream(KernelLaunchSite &Site, const ASTContext &Ctx) {
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
    const Expr *Inner = S->IgnoreParenCasts();
    Expr::EvalResult R;
    if (Inner != S->IgnoreParens() && Inner->getType()->isIntegerType() &&
        !Inner->isValueDependent() && Inner->EvaluateAsInt(R, Ctx) &&
        (R.Val.getInt() == 1 || R.Val.getInt() == 2))
      Site.Stream = KernelLaunchSite::StreamUse::NullConstant;
  }

  //===--- Arguments ------------------------------------------------------===//

  /// The tensor whose dtype the dispatch macro that declares \p Element
  /// (its scalar_t) switches on: `x` of AT_DISPATCH_...(x.scalar_type(),
  /// ...) or of the legacy x.type(), else null. The macro declares
  /// scalar_t in a case of the switch in its own lambda; the switch's value
  /// is followed through that lambda's locals (`the_type`, `_st`) and
  /// one-argument conversions to the tensor whose dtype it reads.
  const Expr *dispatchedTensor(QualType Element) const {
    const auto *TT = Element->getAs<TypedefType>();
    if (!TT)
      return nullptr;
    const TypedefNameDecl *Alias = TT->getDecl();
    const auto *Fn = dyn_cast<FunctionDecl>(Alias->getDeclContext());
    if (!Fn || !Fn->getBody())
      return nullptr;
    const SwitchStmt *Switch = nullptr;
    forEachOwnStmt(Fn->getBody(), [&](const Stmt *S) {
      const auto *Sw = dyn_cast<SwitchStmt>(S);
      if (Switch || !Sw || !Sw->getBody())
        return;
      forEachOwnStmt(Sw->getBody(), [&](const Stmt *Inner) {
        if (const auto *DS = dyn_cast<DeclStmt>(Inner))
          for (const Decl *D : DS->decls())
            if (D == Alias)
              Switch = Sw;
      });
    });
    if (!Switch)
      return nullptr;
    const Expr *E = Switch->getCond();
    for (unsigned I = 0; E && I < limits::DeviceValueSteps; ++I) {
      E = unwrap(E);
      if (const CXXMemberCallExpr *MC = tensorMethodCall(E)) {
        QualType T = MC->getType();
        if (isC10Enum(T, "ScalarType") || isTypeMeta(T) ||
            isDeprecatedTypeProperties(T))
          return MC->getImplicitObjectArgument();
        return nullptr;
      }
      if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
        const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
        if (!VD || VD->getDeclContext() != Fn || !VD->getInit())
          return nullptr;
        E = VD->getInit();
        continue;
      }
      const auto *Call = dyn_cast<CallExpr>(E);
      if (!Call || isa<CXXMemberCallExpr>(Call) || Call->getNumArgs() != 1)
        return nullptr;
      E = Call->getArg(0);
    }
    return nullptr;
  }

  /// A view typed with a dispatch macro's scalar_t over a tensor of a known
  /// dtype. The macro copies its lambda once per dtype it admits; in the
  /// copy whose scalar_t is not that dtype, the view throws (or, untyped,
  /// reinterprets the bytes) whenever the copy runs: whenever the
  /// dispatched tensor can have the copy's dtype (nothing checks its dtype,
  /// and no known dtype rules the copy out). The dispatched tensor itself,
  /// or one made with its options, matches by construction.
  void checkDispatchedView(const RawView &View, const TensorFacts &F,
                           const KernelArgIssue &Base, const CallExpr *Sink,
                           const FunctionDecl *FD,
                           std::vector<KernelArgIssue> &Out) {
    if (F.Dtype.empty())
      return;
    std::optional<bool> Match = elementMatches(View.Element, F.Dtype, Ctx);
    if (!Match || *Match)
      return;
    const Expr *On = dispatchedTensor(View.Element);
    if (!On)
      return;
    TensorFacts Dispatched = resolve(On, Sink, FD);
    if (Dispatched.DtypeChecked)
      return;
    if (!Dispatched.Dtype.empty()) {
      std::optional<bool> Runs =
          elementMatches(View.Element, Dispatched.Dtype, Ctx);
      if (!Runs || !*Runs)
        return;
    }
    KernelArgIssue I = Base;
    I.P = KernelArgIssue::WrongDtype;
    I.At = F.DtypeAt;
    I.Var = F.DtypeVar;
    I.Detail = F.Dtype;
    I.DispatchOn = On;
    Out.push_back(std::move(I));
  }

  void checkArgument(const Expr *Arg, const CallExpr *Sink,
                     const FunctionDecl *FD, const FunctionDecl *Launcher,
                     const Expr *LauncherLaunch,
                     std::vector<KernelArgIssue> &Out) {
    std::optional<RawView> View = rawView(Arg);
    if (!View)
      return;
    TensorFacts F = resolve(View->Tensor, Sink, FD);
    KernelArgIssue Base;
    Base.Sink = Sink;
    Base.Launcher = Launcher;
    Base.LauncherLaunch = LauncherLaunch;
    Base.Argument = Arg;
    Base.RawView = View->Call;
    Base.Tensor = View->Tensor;
    Base.TypedView = View->Typed;
    if (!View->Element.isNull())
      Base.Pointee = View->Element.getAsString(Ctx.getPrintingPolicy());
    auto Emit = [&](KernelArgIssue::Property P, const PropState &S) {
      KernelArgIssue I = Base;
      I.P = P;
      I.Evidence = S.K == PropState::Against;
      I.At = S.At;
      I.Var = S.Var;
      I.Detail = S.Why;
      Out.push_back(std::move(I));
    };
    if (F.Device.K == PropState::Against ||
        (F.Device.K == PropState::Unknown && Config.ReportUnprovenArguments))
      Emit(KernelArgIssue::NotOnCuda, F.Device);
    // An accessor carries its strides; a raw pointer is read as contiguous.
    if (!View->Accessor &&
        (F.Contig.K == PropState::Against ||
         (F.Contig.K == PropState::Unknown && Config.ReportUnprovenArguments)))
      Emit(KernelArgIssue::NotContiguous, F.Contig);
    if (View->Element.isNull() || View->Element->isVoidType() || F.DtypeChecked)
      return;
    if (isDispatchType(View->Element, SM)) {
      checkDispatchedView(*View, F, Base, Sink, FD, Out);
      return;
    }
    if (!F.Dtype.empty()) {
      std::optional<bool> Match = elementMatches(View->Element, F.Dtype, Ctx);
      if (Match && !*Match) {
        KernelArgIssue I = Base;
        I.P = KernelArgIssue::WrongDtype;
        I.At = F.DtypeAt;
        I.Var = F.DtypeVar;
        I.Detail = F.Dtype;
        Out.push_back(std::move(I));
      }
    } else if (Config.ReportUnprovenArguments && !View->Typed) {
      KernelArgIssue I = Base;
      I.P = KernelArgIssue::WrongDtype;
      I.Evidence = false;
      Out.push_back(std::move(I));
    }
  }
};

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
        P->checkArgument(A, L, FD, nullptr, nullptr, Out);
      return;
    }
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || isTorchFunction(Callee) || !isUserDecl(Callee))
      return;
    unsigned Shift =
        isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
    for (unsigned A = Shift; A < Call->getNumArgs(); ++A) {
      Impl::LauncherAnswer Answer = P->launcher(Callee, A - Shift, 0);
      if (Answer.Is)
        P->checkArgument(Call->getArg(A), Call, FD, Callee, Answer.Launch, Out);
    }
  });
  return Out;
}

bool KernelLaunchAnalysis::isLauncherParam(const FunctionDecl *Callee,
                                           unsigned Param,
                                           const Expr **LaunchOut) {
  Impl::LauncherAnswer A = P->launcher(Callee, Param, 0);
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
      uint64_t Facts = 0;
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
  bool Uses = false;
  ASTContext &Ctx = P->Ctx;
  TranslationUnitDecl *TU = Ctx.getTranslationUnitDecl();
  for (NamedDecl *ND : TU->lookup(&Ctx.Idents.get("at")))
    if (auto *NS = dyn_cast<NamespaceDecl>(ND))
      for (NamedDecl *Inner : NS->lookup(&Ctx.Idents.get("Tensor")))
        if (isa<CXXRecordDecl>(Inner))
          Uses = true;
  P->UsesTorch = Uses;
  return Uses;
}

} // namespace torchtidy
