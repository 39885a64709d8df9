//===--- KernelIndexLoads.cpp - Indices loaded from another array ---------===//

#include "torchtidy/analysis/KernelIndexLoads.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/IndexArrays.h"
#include "torchtidy/analysis/IndexGuards.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/FoldingSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <functional>

using namespace clang;

namespace torchtidy {

namespace {

const Expr *ignoreCasts(const Expr *E) {
  return peel::peel(E, peel::AsComputed);
}

/// `int`, `int64_t`, `unsigned`...: a type an index value has.
bool isIndexType(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  return T->isIntegerType() && !T->isBooleanType() && !T->isCharType();
}

/// A pointer (or an array) to index values.
bool pointsToIndices(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (const auto *P = T->getAs<PointerType>())
    return isIndexType(P->getPointeeType());
  if (const auto *A = T->getAsArrayTypeUnsafe())
    return isIndexType(A->getElementType());
  return false;
}

/// A call that bounds its operands' result to a range: std::min/max (the
/// op table) and CUDA's device min/max/fmin/fmax.
bool isClamp(const CallExpr *Call) {
  if (callFacts(Call) & (op::StdMin | op::StdMax))
    return true;
  StringRef N = calleeName(Call);
  return N == "min" || N == "max" || N == "fmin" || N == "fmax" ||
         N == "fminf" || N == "fmaxf" || N == "clamp";
}

using Point = CFGPoint;

struct LaunchOf {
  const CUDAKernelCallExpr *Call;
  const FunctionDecl *Caller;
};

/// A call of a host function of the user's code.
struct CallOf {
  const CallExpr *Call;
  const FunctionDecl *Caller;
};

/// \p Arg is a tensor's raw storage (`t.data_ptr<int>()`, `t.data<int>()`):
/// that tensor.
const Expr *rawStorageTensor(const Expr *Arg) {
  const auto *MC =
      Arg ? dyn_cast<CXXMemberCallExpr>(Arg->IgnoreParenImpCasts()) : nullptr;
  if (!MC || !(callFacts(MC) & op::RawData) || !MC->getType()->isPointerType())
    return nullptr;
  return MC->getImplicitObjectArgument();
}

/// A kernel's pattern: a template's instantiations share one.
const FunctionDecl *patternOf(const FunctionDecl *K) {
  if (const FunctionDecl *P = K->getTemplateInstantiationPattern())
    K = P;
  return K->getCanonicalDecl();
}

/// What the scans of one translation unit share: the kernels' launches and
/// the guard analysis of the host functions that launch them.
struct Shared {
  Shared(ASTContext &Ctx)
      : Guards(FunctionContexts::of(Ctx).analysis<IndexGuardAnalysis>(
            IndexGuardConfig{})),
        Arrays(Ctx, Guards) {}
  llvm::DenseMap<const FunctionDecl *, std::vector<LaunchOf>> Launches;
  llvm::DenseMap<const FunctionDecl *, std::vector<CallOf>> Calls;
  IndexGuardAnalysis &Guards;
  IndexArrayProof Arrays;

  const std::vector<LaunchOf> &launchesOf(const FunctionDecl *K) const {
    static const std::vector<LaunchOf> None;
    auto It = Launches.find(patternOf(K));
    return It == Launches.end() ? None : It->second;
  }

  const std::vector<CallOf> &callsOf(const FunctionDecl *F) const {
    static const std::vector<CallOf> None;
    auto It = Calls.find(patternOf(F));
    return It == Calls.end() ? None : It->second;
  }
};

/// The analysis of one function.
class FunctionScan {
public:
  FunctionScan(const FunctionDecl *FD, ASTContext &Ctx, Shared &TU,
               const KernelIndexConfig &Config,
               const std::vector<AssertMacroUse> &Asserts)
      : FD(FD), Ctx(Ctx), TU(TU), Config(Config), Asserts(Asserts) {
    // A lambda of host code is implicitly __host__ __device__ in CUDA mode:
    // only a __device__ the user wrote makes device code.
    const auto *DeviceAttr = FD->getAttr<CUDADeviceAttr>();
    Device = FD->hasAttr<CUDAGlobalAttr>() ||
             (DeviceAttr && !DeviceAttr->isImplicit());
  }

  bool device() const { return Device; }

  void run(std::vector<UncheckedIndexLoad> &Out) {
    const Stmt *Body = FD->getBody();
    if (!Body)
      return;
    findSources();
    if (Sources.empty())
      return;
    propagate(Body);
    std::vector<UncheckedIndexLoad> Found;
    forEachOwnStmt(Body, [&](const Stmt *S) { visitAccess(S, Found); });
    if (Found.empty())
      return;
    if (!buildCfg())
      return;
    for (UncheckedIndexLoad &U : Found)
      if (!bounded(U)) { // names the part that nothing bounds
        U.Statement = statementOf(U.Access);
        U.LaunchArgument = launchArgumentOf(U);
        Out.push_back(U);
      }
  }

private:
  //--- Where index values come from -----------------------------------

  /// Kernels: pointer parameters to index values, and parameters of class
  /// type (TensorInfo, accessors) whose pointers are read. Host code:
  /// locals made by data_ptr<T>() or an accessor of a tensor.
  void findSources() {
    if (Device) {
      for (const ParmVarDecl *P : FD->parameters()) {
        QualType T = P->getType().getNonReferenceType();
        if (pointsToIndices(T) || T->isRecordType())
          Sources.insert(P);
      }
    } else if (Config.HostLoops) {
      // A helper's pointer parameter for which a call of the file passes a
      // tensor's raw storage (`gather(indices.data<int>(), ...)`).
      for (const ParmVarDecl *P : FD->parameters()) {
        if (!P->getType()->isPointerType() || !pointsToIndices(P->getType()))
          continue;
        const unsigned I = P->getFunctionScopeIndex();
        for (const CallOf &C : TU.callsOf(FD))
          if (I < C.Call->getNumArgs() && rawStorageTensor(C.Call->getArg(I))) {
            Sources.insert(P);
            break;
          }
      }
      // A lambda (the body of an AT_DISPATCH macro) reads the locals of the
      // functions around it.
      forEachStmtAround(FD, [&](const Stmt *S) {
        const auto *DS = dyn_cast<DeclStmt>(S);
        if (!DS)
          return;
        for (const Decl *D : DS->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D)) {
            const Expr *Tensor = rawDataTensor(VD->getInit());
            if (!Tensor)
              Tensor = tensorInfoTensor(VD);
            if (Tensor) {
              Sources.insert(VD);
              HostTensor[VD] = Tensor;
            }
          }
      });
    }
    // Local pointers into a source: `const int64_t *row = idx + b * n`.
    bool Changed = true;
    while (Changed) {
      Changed = false;
      forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
        const auto *DS = dyn_cast<DeclStmt>(S);
        if (!DS)
          return;
        for (const Decl *D : DS->decls()) {
          const auto *VD = dyn_cast<VarDecl>(D);
          if (!VD || Sources.count(VD) || !VD->getInit() ||
              !pointsToIndices(VD->getType()))
            continue;
          const ValueDecl *Root = rootOf(VD->getInit());
          if (Root && Sources.count(Root) &&
              VD->getInit()->getType()->isPointerType()) {
            Sources.insert(VD);
            Alias[VD] = Root;
            Changed = true;
          }
        }
      });
    }
  }

  /// Visits every statement of \p FD's body and, for a lambda, of the
  /// functions it is nested in, lambdas included.
  template <typename F>
  static void forEachStmtAround(const FunctionDecl *FD, F &&Visit) {
    std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
      if (!S)
        return;
      Visit(S);
      for (const Stmt *Child : S->children())
        Walk(Child);
    };
    const DeclContext *DC = FD;
    for (unsigned Depth = 0; DC && Depth < 8; ++Depth) {
      const auto *Fn = dyn_cast<FunctionDecl>(DC);
      if (!Fn)
        break;
      const auto *MD = dyn_cast<CXXMethodDecl>(Fn);
      if (!MD || !MD->getParent()->isLambda()) {
        Walk(Fn->getBody());
        break;
      }
      DC = MD->getParent()->getParent();
    }
    if (DC != FD)
      Walk(FD->getBody());
  }

  /// A local of class type with a pointer to index values (TensorInfo)
  /// made by a call from a tensor (`getTensorInfo<int64_t, int>(index)`):
  /// that tensor.
  static const Expr *tensorInfoTensor(const VarDecl *VD) {
    const CXXRecordDecl *RD = VD->getType()->getAsCXXRecordDecl();
    if (!RD || !RD->hasDefinition() || !VD->getInit())
      return nullptr;
    if (!llvm::any_of(RD->fields(), [](const FieldDecl *F) {
          return pointsToIndices(F->getType()) && F->getType()->isPointerType();
        }))
      return nullptr;
    const Expr *Init = ignoreCasts(VD->getInit());
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(Init);
        Construct && Construct->getNumArgs() == 1)
      Init = ignoreCasts(Construct->getArg(0));
    const auto *Call = dyn_cast<CallExpr>(Init);
    if (!Call)
      return nullptr;
    for (const Expr *A : Call->arguments())
      if (isTensorType(ignoreCasts(A)->getType()))
        return A;
    return nullptr;
  }

  /// The tensor \p Init takes raw storage from (`index.data_ptr<int64_t>()`,
  /// `index.accessor<int64_t, 2>()`) when its elements are index values.
  const Expr *rawDataTensor(const Expr *Init) {
    const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(ignoreCasts(Init));
    if (!MC || !(callFacts(MC) & op::RawData))
      return nullptr;
    QualType T = MC->getType();
    bool Indices = pointsToIndices(T);
    if (!Indices)
      if (const auto *Spec =
              T->getAs<TemplateSpecializationType>()) // an accessor
        if (!Spec->template_arguments().empty() &&
            Spec->template_arguments()[0].getKind() == TemplateArgument::Type)
          Indices = isIndexType(Spec->template_arguments()[0].getAsType());
    if (!Indices)
      if (const auto *RD = T->getAsCXXRecordDecl())
        if (const auto *CTS = dyn_cast<ClassTemplateSpecializationDecl>(RD))
          if (CTS->getTemplateArgs().size() > 0 &&
              CTS->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
            Indices = isIndexType(CTS->getTemplateArgs()[0].getAsType());
    return Indices ? MC->getImplicitObjectArgument() : nullptr;
  }

  /// \p E reads an index value from a source: `idx[i]`, `info.data[i]`,
  /// `*(idx + i)`, `__ldg(idx + i)`, `acc[i][j]`.
  bool isLoad(const Expr *E) {
    E = ignoreCasts(E);
    if (!E || !isIndexType(E->getType()))
      return false;
    const Expr *Address = nullptr;
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E))
      Address = ASE->getBase();
    else if (const auto *UO = dyn_cast<UnaryOperator>(E);
             UO && UO->getOpcode() == UO_Deref)
      Address = UO->getSubExpr();
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
             Op && Op->getOperator() == OO_Subscript)
      Address = Op->getArg(0);
    else if (const auto *Call = dyn_cast<CallExpr>(E);
             Call && readsAddress(calleeName(Call)) && Call->getNumArgs() > 0)
      Address = Call->getArg(0);
    if (!Address)
      return false;
    const ValueDecl *Root = rootOf(Address);
    if (!Root || !Sources.count(Root))
      return false;
    // A struct or accessor parameter: only what its data pointer holds is
    // tensor data (TensorInfo's sizes and strides are arrays of the shape).
    if (Root->getType().getNonReferenceType()->isRecordType())
      return readsThroughPointerMember(Address);
    return true;
  }

  /// \p Address goes through a member of pointer type (`info.data + i`), or
  /// is an accessor's element (`acc[i]`).
  static bool readsThroughPointerMember(const Expr *Address) {
    for (unsigned Steps = 0; Address && Steps < 16; ++Steps) {
      Address = ignoreCasts(Address);
      if (const auto *ME = dyn_cast<MemberExpr>(Address))
        return ME->getType()->isPointerType();
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Address))
        return MC->getType()->isPointerType(); // info.data()
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Address))
        return Op->getOperator() == OO_Subscript && isAccessor(Op->getArg(0));
      if (isAccessor(Address))
        return true;
      if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(Address))
        Address = ASE->getBase();
      else if (const auto *BO = dyn_cast<BinaryOperator>(Address))
        Address = BO->getLHS()->getType()->isPointerType() ? BO->getLHS()
                                                           : BO->getRHS();
      else if (const auto *UO = dyn_cast<UnaryOperator>(Address))
        Address = UO->getSubExpr();
      else
        return false;
    }
    return false;
  }

  /// The source a load reads: its root, through local aliases.
  const ValueDecl *sourceOf(const Expr *Load) {
    const ValueDecl *Root = nullptr;
    const Expr *E = ignoreCasts(Load);
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E))
      Root = rootOf(ASE->getBase());
    else if (const auto *UO = dyn_cast<UnaryOperator>(E))
      Root = rootOf(UO->getSubExpr());
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
      Root = rootOf(Op->getArg(0));
    else if (const auto *Call = dyn_cast<CallExpr>(E))
      Root = rootOf(Call->getArg(0));
    for (unsigned I = 0; I < 8 && Root && Alias.count(Root); ++I)
      Root = Alias.lookup(Root);
    return Root;
  }

  /// The first load \p E contains (not looking into clamps), else null.
  const Expr *loadIn(const Expr *E) {
    const Expr *Found = nullptr;
    walk(E, [&](const Expr *X) {
      if (!Found && isLoad(X))
        Found = X;
    });
    return Found;
  }

  /// Visits the expressions of \p E in pre-order, not entering clamps and
  /// remainders that bound their value.
  template <typename F> void walk(const Expr *E, F &&Visit) {
    if (!E)
      return;
    Visit(E);
    if (boundsItsValue(E))
      return;
    for (const Stmt *Child : E->children())
      if (const auto *CE = dyn_cast_or_null<Expr>(Child))
        walk(CE, Visit);
  }

  /// \p E keeps its value in a range whatever its operands hold: a clamp, a
  /// bounding remainder, a capped segment position.
  bool boundsItsValue(const Expr *E) {
    const auto *Call = dyn_cast<CallExpr>(E);
    return (Call && isClamp(Call)) || boundingRemainder(E) ||
           boundedDifference(E);
  }

  /// `v % n` with `v` never negative and `n` not itself loaded: a value in
  /// [0, n), bounded like a comparison with n (the hash of a loaded value
  /// folded into a table's size).
  bool boundingRemainder(const Expr *E) {
    const auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParens());
    if (!BO || BO->getOpcode() != BO_Rem || !nonNegative(BO->getLHS(), Ctx))
      return false;
    llvm::SmallPtrSet<const VarDecl *, 2> Tainted;
    taintedIn(BO->getRHS(), Tainted);
    return Tainted.empty() && !loadIn(BO->getRHS());
  }

  /// `i - s` in the body of `for (i = s; i < s + k; ++i)` (also
  /// `i < min(e, s + k)`), with `k` not loaded and neither `i` nor `s`
  /// written in the body: a value in [0, k), bounded like a comparison with
  /// k (the position within a segment capped at k elements).
  bool boundedDifference(const Expr *E) {
    const auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParens());
    if (!BO || BO->getOpcode() != BO_Sub)
      return false;
    const VarDecl *I = varOf(BO->getLHS()), *S = varOf(BO->getRHS());
    if (!I || !S || I == S)
      return false;
    auto Starts = [&](const Stmt *Init) {
      if (const auto *DS = dyn_cast_or_null<DeclStmt>(Init))
        return DS->isSingleDecl() && DS->getSingleDecl() == I &&
               varOf(I->getInit()) == S;
      const auto *A = dyn_cast_or_null<BinaryOperator>(Init);
      return A && A->getOpcode() == BO_Assign && varOf(A->getLHS()) == I &&
             varOf(A->getRHS()) == S;
    };
    auto StepsByOne = [&](const Expr *Inc) {
      const auto *UO = dyn_cast_or_null<UnaryOperator>(Inc);
      return UO && UO->isIncrementOp() && varOf(UO->getSubExpr()) == I;
    };
    // `s + k` with k not loaded.
    auto StartPlusBound = [&](const Expr *X) {
      const auto *Add = dyn_cast<BinaryOperator>(X->IgnoreParenImpCasts());
      if (!Add || Add->getOpcode() != BO_Add)
        return false;
      const Expr *K = varOf(Add->getLHS()) == S   ? Add->getRHS()
                      : varOf(Add->getRHS()) == S ? Add->getLHS()
                                                  : nullptr;
      if (!K || loadIn(K))
        return false;
      llvm::SmallPtrSet<const VarDecl *, 2> Tainted;
      taintedIn(K, Tainted);
      return Tainted.empty();
    };
    auto Caps = [&](const Expr *Cond) {
      const auto *Lt =
          Cond ? dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts())
               : nullptr;
      if (!Lt || Lt->getOpcode() != BO_LT || varOf(Lt->getLHS()) != I)
        return false;
      const Expr *Hi = Lt->getRHS()->IgnoreParenImpCasts();
      if (StartPlusBound(Hi))
        return true;
      const auto *Min = dyn_cast<CallExpr>(Hi);
      if (!Min || !((callFacts(Min) & op::StdMin) || calleeName(Min) == "min"))
        return false;
      return llvm::any_of(Min->arguments(), StartPlusBound);
    };
    if (!ForsFound) {
      ForsFound = true;
      forEachOwnStmt(FD->getBody(), [&](const Stmt *St) {
        if (const auto *For = dyn_cast<ForStmt>(St); For && For->getBody())
          Fors.push_back(For);
      });
    }
    const SourceManager &SM = Ctx.getSourceManager();
    const SourceLocation At = SM.getFileLoc(BO->getBeginLoc());
    for (const ForStmt *For : Fors) {
      const SourceRange Body = For->getBody()->getSourceRange();
      if (SM.isBeforeInTranslationUnit(At, SM.getFileLoc(Body.getBegin())) ||
          SM.isBeforeInTranslationUnit(SM.getFileLoc(Body.getEnd()), At) ||
          !containsStmt(For->getBody(), BO))
        continue;
      if (Starts(For->getInit()) && StepsByOne(For->getInc()) &&
          Caps(For->getCond()) && !writesVar(For->getBody(), I) &&
          !writesVar(For->getBody(), S))
        return true;
    }
    return false;
  }

  /// The tainted locals the value of \p E is computed from: not those only
  /// in the address of a load (`a[i]` holds a value of `a`; whether `i` is
  /// in range is a question for that access).
  void valueTaintedIn(const Expr *E,
                      llvm::SmallPtrSetImpl<const VarDecl *> &Out) {
    if (!E)
      return;
    if (isLoad(E))
      return;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
          VD && Taint.count(VD))
        Out.insert(VD);
    if (boundsItsValue(E))
      return;
    for (const Stmt *Child : E->children())
      if (const auto *CE = dyn_cast_or_null<Expr>(Child))
        valueTaintedIn(CE, Out);
  }

  /// The tainted locals \p E reads.
  void taintedIn(const Expr *E, llvm::SmallPtrSetImpl<const VarDecl *> &Out) {
    walk(E, [&](const Expr *X) {
      if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
        if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
          if (Taint.count(VD))
            Out.insert(VD);
    });
  }

  /// Locals of index type given a value that depends on a load, directly or
  /// through other such locals (flow-insensitive: any definition counts).
  void propagate(const Stmt *Body) {
    std::vector<std::pair<const VarDecl *, const Expr *>> Defs;
    forEachOwnStmt(Body, [&](const Stmt *S) {
      if (const auto *DS = dyn_cast<DeclStmt>(S)) {
        for (const Decl *D : DS->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D))
            if (VD->getInit() && isIndexType(VD->getType()))
              Defs.push_back({VD, VD->getInit()});
        return;
      }
      const auto *BO = dyn_cast<BinaryOperator>(S);
      if (!BO || !BO->isAssignmentOp())
        return;
      if (const auto *DRE = dyn_cast<DeclRefExpr>(ignoreCasts(BO->getLHS())))
        if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
          if (isIndexType(VD->getType()) && !VD->getType()->isReferenceType())
            Defs.push_back({VD, BO->getRHS()});
    });
    bool Changed = true;
    while (Changed) {
      Changed = false;
      for (const auto &[VD, Init] : Defs) {
        const Expr *Load = loadIn(Init);
        llvm::SmallPtrSet<const VarDecl *, 4> From;
        valueTaintedIn(Init, From);
        From.erase(VD);
        if (!Load && From.empty())
          continue;
        TaintInfo &TI = Taint[VD];
        const size_t Before = TI.From.size() + (TI.Load ? 1 : 0);
        if (Load && !TI.Load)
          TI.Load = Load;
        for (const VarDecl *F : From)
          if (!llvm::is_contained(TI.From, F))
            TI.From.push_back(F);
        if (TI.From.size() + (TI.Load ? 1 : 0) != Before)
          Changed = true;
      }
    }
  }

  /// The load a tainted local's value comes from, following its sources.
  std::pair<const Expr *, const VarDecl *> originOf(const VarDecl *VD) {
    llvm::SmallPtrSet<const VarDecl *, 8> Seen;
    std::vector<const VarDecl *> Work = {VD};
    while (!Work.empty()) {
      const VarDecl *V = Work.back();
      Work.pop_back();
      if (!Seen.insert(V).second)
        continue;
      auto It = Taint.find(V);
      if (It == Taint.end())
        continue;
      if (It->second.Load)
        return {It->second.Load, V};
      for (const VarDecl *F : It->second.From)
        Work.push_back(F);
    }
    return {nullptr, nullptr};
  }

  /// Every tainted local \p Vars derive from, themselves included.
  void ancestors(llvm::SmallPtrSetImpl<const VarDecl *> &Vars) {
    std::vector<const VarDecl *> Work(Vars.begin(), Vars.end());
    while (!Work.empty()) {
      const VarDecl *V = Work.back();
      Work.pop_back();
      auto It = Taint.find(V);
      if (It == Taint.end())
        continue;
      for (const VarDecl *F : It->second.From)
        if (Vars.insert(F).second)
          Work.push_back(F);
    }
  }

  //--- Accesses at a loaded offset --------------------------------------

  void visitAccess(const Stmt *S, std::vector<UncheckedIndexLoad> &Out) {
    const auto *E = dyn_cast<Expr>(S);
    if (!E)
      return;
    const Expr *Array = nullptr;
    const Expr *Offset = nullptr;
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
      Array = ASE->getBase();
      Offset = ASE->getIdx();
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
               Op && Op->getOperator() == OO_Subscript &&
               Op->getNumArgs() == 2 && isAccessor(Op->getArg(0))) {
      Array = Op->getArg(0);
      Offset = Op->getArg(1);
    } else if (const auto *BO = dyn_cast<BinaryOperator>(E);
               BO && BO->isAdditiveOp() && BO->getType()->isPointerType()) {
      // `p + e`, whatever reads or writes through it (`*(p + e)`,
      // `atomicAdd(p + e, v)`, a helper given the address). The offset is
      // the whole sum: `out + b * N + idx * K + k`.
      Array = BO;
      while (const auto *Inner = dyn_cast<BinaryOperator>(ignoreCasts(Array)))
        if (Inner->isAdditiveOp() && Inner->getType()->isPointerType())
          Array = Inner->getLHS()->getType()->isPointerType() ? Inner->getLHS()
                                                              : Inner->getRHS();
        else
          break;
      Offset = BO;
    }
    if (!Array || !Offset)
      return;
    if (!Device && !inLoop(E))
      return;
    llvm::SmallPtrSet<const VarDecl *, 4> Vars;
    taintedIn(Offset, Vars);
    const Expr *Load = loadIn(Offset);
    if (!Load && Vars.empty())
      return;
    UncheckedIndexLoad U;
    U.Function = FD;
    U.Access = E;
    U.Offset = Offset;
    U.Array = Array;
    U.Device = Device;
    if (Load) {
      U.Load = Load;
    } else {
      // The tainted local the offset reads whose load comes first.
      for (const VarDecl *V : Vars) {
        auto [L, Holder] = originOf(V);
        if (L && (!U.Load || L->getBeginLoc() < U.Load->getBeginLoc())) {
          U.Load = L;
          U.Holder = Holder;
        }
      }
      if (!U.Load)
        return;
    }
    U.Source = sourceOf(U.Load);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(ignoreCasts(Array)))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        if (const auto *CAT = Ctx.getAsConstantArrayType(VD->getType()))
          U.ArrayExtent = CAT->getSize().getSExtValue();
    Out.push_back(U);
  }

  static bool isAccessor(const Expr *E) {
    const CXXRecordDecl *RD =
        ignoreCasts(E)->getType().getNonReferenceType()->getAsCXXRecordDecl();
    return RD && RD->getIdentifier() &&
           RD->getName().contains("TensorAccessor");
  }

  /// Host code is analysed inside loops only.
  bool inLoop(const Expr *E) {
    if (!LoopsFound) {
      LoopsFound = true;
      forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
        if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S))
          Loops.push_back(S->getSourceRange());
      });
    }
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation L = SM.getFileLoc(E->getBeginLoc());
    for (SourceRange R : Loops)
      if (!SM.isBeforeInTranslationUnit(L, SM.getFileLoc(R.getBegin())) &&
          !SM.isBeforeInTranslationUnit(SM.getFileLoc(R.getEnd()), L))
        return true;
    return false;
  }

  /// The innermost statement of a compound statement that holds \p E.
  const Stmt *statementOf(const Expr *E) {
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation At = SM.getFileLoc(E->getBeginLoc());
    const Stmt *Best = nullptr;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *CS = dyn_cast<CompoundStmt>(S);
      if (!CS)
        return;
      for (const Stmt *Child : CS->body()) {
        SourceLocation B = SM.getFileLoc(Child->getBeginLoc());
        SourceLocation End = SM.getFileLoc(Child->getEndLoc());
        if (!SM.isBeforeInTranslationUnit(At, B) &&
            !SM.isBeforeInTranslationUnit(End, At))
          Best = Child; // pre-order: inner statements come later
      }
    });
    return Best;
  }

  /// The host expression a launch of this kernel passes for the source.
  const Expr *launchArgumentOf(const UncheckedIndexLoad &U) {
    const auto *Param = dyn_cast_or_null<ParmVarDecl>(U.Source);
    if (Param && !Device) {
      // A host helper: the call that passes a tensor's storage for it.
      for (const CallOf &C : TU.callsOf(FD))
        if (Param->getFunctionScopeIndex() < C.Call->getNumArgs() &&
            rawStorageTensor(C.Call->getArg(Param->getFunctionScopeIndex())))
          return C.Call->getArg(Param->getFunctionScopeIndex());
      return nullptr;
    }
    if (!Param || !FD->hasAttr<CUDAGlobalAttr>())
      return nullptr;
    for (const LaunchOf &L : TU.launchesOf(FD))
      if (Param->getFunctionScopeIndex() < L.Call->getNumArgs())
        return L.Call->getArg(Param->getFunctionScopeIndex());
    return nullptr;
  }

  //--- What bounds an access ----------------------------------------------

  bool buildCfg() {
    Fn = FunctionContexts::of(Ctx).get(FD);
    Cfg = Fn ? Fn->cfg() : nullptr;
    return Cfg != nullptr;
  }

  /// \p A is evaluated before \p B on every path to B.
  bool dominates(const Stmt *A, const Stmt *B) {
    Point PA = Fn->pointOf(A), PB = Fn->pointOf(B);
    if (!PA.Block || !PB.Block)
      return false;
    if (PA.Block == PB.Block)
      return PA.Index < PB.Index;
    return Fn->dominates(PA.Block, PB.Block);
  }

  /// The same expression, structurally (`idx[i]` and `idx[i]`).
  bool sameExpr(const Expr *A, const Expr *B) {
    llvm::FoldingSetNodeID IA, IB;
    ignoreCasts(A)->Profile(IA, Ctx, true);
    ignoreCasts(B)->Profile(IB, Ctx, true);
    return IA == IB;
  }

  /// A comparison of one of \p Vars (tainted locals), of \p Load or of the
  /// offset with a bound that is not itself loaded, evaluated before the
  /// access on every path (`e < row_end`, with both ends read from an index
  /// array, bounds nothing), or an assert macro that names one.
  bool compared(const UncheckedIndexLoad &U,
                const llvm::SmallPtrSetImpl<const VarDecl *> &Vars,
                const Expr *Load) {
    bool Found = false;
    auto Names = [&](const Expr *Side) {
      bool Mentions = false;
      llvm::SmallPtrSet<const VarDecl *, 4> In;
      taintedIn(Side, In);
      for (const VarDecl *V : In)
        Mentions |= Vars.count(V) > 0;
      walk(Side, [&](const Expr *X) {
        Mentions |= (Load && sameExpr(X, Load)) || sameExpr(X, U.Offset);
      });
      return Mentions;
    };
    auto Loaded = [&](const Expr *Side) {
      llvm::SmallPtrSet<const VarDecl *, 4> In;
      taintedIn(Side, In);
      return !In.empty() || loadIn(Side);
    };
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *BO = dyn_cast<BinaryOperator>(S);
      if (Found || !BO || !BO->isRelationalOp())
        return;
      const bool Relates = (Names(BO->getLHS()) && !Loaded(BO->getRHS())) ||
                           (Names(BO->getRHS()) && !Loaded(BO->getLHS()));
      if (Relates && dominates(BO, U.Access))
        Found = true;
    });
    return Found || assertedBefore(U, Vars);
  }

  /// The first local behind \p V whose loaded value nothing bounds, else
  /// null: \p V is bounded when it is compared itself, or when what it is
  /// computed from is: its own load compared, and every tainted local it is
  /// computed from bounded in turn (`off = b * HW + h * W + w` with `h` and
  /// `w` compared and `b` not is not bounded).
  const VarDecl *uncovered(const UncheckedIndexLoad &U, const VarDecl *V,
                           llvm::DenseMap<const VarDecl *, bool> &Memo) {
    auto [It, New] = Memo.try_emplace(V, false);
    if (!New)
      return It->second ? nullptr : V; // in progress: a cycle bounds nothing
    llvm::SmallPtrSet<const VarDecl *, 2> Self = {V};
    if (compared(U, Self, nullptr)) {
      Memo[V] = true;
      return nullptr;
    }
    auto TI = Taint.find(V);
    if (TI == Taint.end()) {
      Memo[V] = true; // not loaded
      return nullptr;
    }
    if (TI->second.Load && !compared(U, Self, TI->second.Load))
      return V;
    for (const VarDecl *From : TI->second.From)
      if (const VarDecl *Open = uncovered(U, From, Memo))
        return Open;
    Memo[V] = true;
    return nullptr;
  }

  /// Every loaded part of the offset is bounded: each tainted local it reads
  /// (through a comparison of it or of a local it is computed from), each
  /// load it makes, or the offset as a whole. Else \p U names the first part
  /// that is not, and the host side is asked about its array.
  bool bounded(UncheckedIndexLoad &U) {
    llvm::SmallPtrSet<const VarDecl *, 4> None;
    if (compared(U, None, nullptr))
      return true; // the whole offset
    llvm::SmallPtrSet<const VarDecl *, 4> Direct;
    taintedIn(U.Offset, Direct);
    std::vector<const VarDecl *> Parts(Direct.begin(), Direct.end());
    llvm::sort(Parts, [](const VarDecl *A, const VarDecl *B) {
      return A->getBeginLoc() < B->getBeginLoc();
    });
    bool All = true;
    for (const VarDecl *V : Parts) {
      llvm::DenseMap<const VarDecl *, bool> Memo;
      const VarDecl *Open = uncovered(U, V, Memo);
      if (!Open)
        continue;
      auto It = Taint.find(Open);
      U.Load = It != Taint.end() && It->second.Load ? It->second.Load
                                                    : originOf(Open).first;
      U.Holder = Open;
      All = false;
      break;
    }
    if (All) {
      std::vector<const Expr *> Loads;
      walk(U.Offset, [&](const Expr *X) {
        if (isLoad(X))
          Loads.push_back(X);
      });
      for (const Expr *L : Loads) {
        if (compared(U, None, L))
          continue;
        U.Load = L;
        U.Holder = nullptr;
        All = false;
        break;
      }
    }
    if (All)
      return true;
    U.Source = sourceOf(U.Load);
    return Device ? launchesBound(U) : hostTensorBounded(U);
  }

  /// A configured assert macro names one of \p Vars in a block that
  /// encloses the access, before it.
  bool assertedBefore(const UncheckedIndexLoad &U,
                      const llvm::SmallPtrSetImpl<const VarDecl *> &Vars) {
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation At = SM.getFileLoc(U.Access->getBeginLoc());
    llvm::StringSet<> Names;
    for (const VarDecl *V : Vars)
      Names.insert(V->getName());
    if (Names.empty())
      return false;
    llvm::StringSet<> TaintedNames;
    for (const auto &Entry : Taint)
      TaintedNames.insert(Entry.first->getName());
    for (const AssertMacroUse &M : Asserts) {
      if (!SM.isBeforeInTranslationUnit(M.Loc, At))
        continue;
      if (!llvm::any_of(M.Names,
                        [&](const std::string &N) { return Names.count(N); }))
        continue;
      // ... against a bound: a name that is not itself a loaded value, or a
      // number ("#"); `assert(idx1 <= idx2)` bounds neither.
      if (!llvm::any_of(M.Names, [&](const std::string &N) {
            return !TaintedNames.count(N);
          }))
        continue;
      // The innermost compound statement around the macro must hold the
      // access too.
      const CompoundStmt *Inner = nullptr;
      forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
        const auto *CS = dyn_cast<CompoundStmt>(S);
        if (!CS)
          return;
        SourceLocation B = SM.getFileLoc(CS->getLBracLoc());
        SourceLocation E = SM.getFileLoc(CS->getRBracLoc());
        if (SM.isBeforeInTranslationUnit(B, M.Loc) &&
            SM.isBeforeInTranslationUnit(M.Loc, E))
          Inner = CS;
      });
      if (Inner &&
          SM.isBeforeInTranslationUnit(At, SM.getFileLoc(Inner->getRBracLoc())))
        return true;
    }
    return false;
  }

  /// The host tensor a source pointer is taken from is bounded where the
  /// access is (a guard on its range, an index producer, a clamp).
  bool hostTensorBounded(const UncheckedIndexLoad &U) {
    if (const auto *Param = dyn_cast_or_null<ParmVarDecl>(U.Source))
      return callsBound(Param);
    auto It = HostTensor.find(U.Source);
    if (It == HostTensor.end())
      return false;
    IndexGuardFinder &F = TU.Guards.finder(FD);
    if (!F.valid())
      return false;
    return F.classify(It->second, U.Access).K == IndexOrigin::Safe;
  }

  /// Every call of this host function in the translation unit passes, for
  /// \p Param, the raw storage of a tensor bounded before the call.
  bool callsBound(const ParmVarDecl *Param) {
    const unsigned I = Param->getFunctionScopeIndex();
    for (const CallOf &C : TU.callsOf(FD)) {
      const Expr *Tensor = I < C.Call->getNumArgs()
                               ? rawStorageTensor(C.Call->getArg(I))
                               : nullptr;
      if (!Tensor || !boundedAt(Tensor, C.Caller, C.Call, /*Intact=*/true))
        return false;
    }
    return true;
  }

  /// \p Tensor, passed by \p Call of \p Caller, is bounded there: guarded
  /// or produced in range (IndexGuardFinder::classify), or an index array
  /// host code made in range (IndexArrayProof) that the callee keeps
  /// \p Intact (a kernel that does not write through its parameter).
  bool boundedAt(const Expr *Tensor, const FunctionDecl *Caller,
                 const Stmt *Call, bool Intact) {
    IndexGuardFinder &F = TU.Guards.finder(Caller);
    if (F.valid() && F.classify(Tensor, Call).K == IndexOrigin::Safe)
      return true;
    return Intact && TU.Arrays.holds(Tensor, Call);
  }

  /// Every launch of this kernel in the translation unit passes, for the
  /// source parameter, a tensor bounded before the launch.
  bool launchesBound(const UncheckedIndexLoad &U) {
    const auto *Param = dyn_cast_or_null<ParmVarDecl>(U.Source);
    if (!Param || !FD->hasAttr<CUDAGlobalAttr>())
      return false;
    const std::vector<LaunchOf> &Launches = TU.launchesOf(FD);
    if (Launches.empty())
      return false;
    const unsigned I = Param->getFunctionScopeIndex();
    // An array made in range stays so only if this kernel does not write
    // through the parameter it reads it from.
    const bool Intact = kernelOnlyReads(FD, I);
    for (const LaunchOf &L : Launches) {
      if (I >= L.Call->getNumArgs())
        return false;
      const Expr *Tensor = tensorOfArgument(L.Call->getArg(I));
      if (!Tensor || !boundedAt(Tensor, L.Caller, L.Call, Intact))
        return false;
    }
    return true;
  }

  /// The tensor a launch argument passes: `t.data_ptr<T>()`, an accessor of
  /// `t`, a local made from one, or a call on `t` (getTensorInfo(t)).
  static const Expr *tensorOfArgument(const Expr *Arg) {
    for (unsigned Steps = 0; Arg && Steps < 4; ++Steps) {
      Arg = ignoreCasts(Arg);
      if (const auto *Construct = dyn_cast<CXXConstructExpr>(Arg);
          Construct && Construct->getNumArgs() == 1) {
        Arg = Construct->getArg(0);
        continue;
      }
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Arg))
        if (callFacts(MC) & op::RawData)
          return MC->getImplicitObjectArgument();
      if (const auto *DRE = dyn_cast<DeclRefExpr>(Arg))
        if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
            VD && VD->hasLocalStorage() && VD->getInit()) {
          Arg = VD->getInit();
          continue;
        }
      if (const auto *Call = dyn_cast<CallExpr>(Arg)) {
        for (const Expr *A : Call->arguments())
          if (isTensorType(ignoreCasts(A)->getType()))
            return A;
      }
      return nullptr;
    }
    return nullptr;
  }

  const FunctionDecl *FD;
  ASTContext &Ctx;
  Shared &TU;
  const KernelIndexConfig &Config;
  const std::vector<AssertMacroUse> &Asserts;
  bool Device = false;
  llvm::SmallPtrSet<const ValueDecl *, 8> Sources;
  llvm::DenseMap<const ValueDecl *, const ValueDecl *> Alias;
  llvm::DenseMap<const ValueDecl *, const Expr *> HostTensor;
  struct TaintInfo {
    const Expr *Load = nullptr;
    std::vector<const VarDecl *> From;
  };
  llvm::DenseMap<const VarDecl *, TaintInfo> Taint;
  bool LoopsFound = false;
  bool ForsFound = false;
  std::vector<const ForStmt *> Fors;
  std::vector<SourceRange> Loops;
  /// The shared CFG (null when there is none) and its maps.
  FunctionContext *Fn = nullptr;
  const CFG *Cfg = nullptr;
};

} // namespace

std::vector<UncheckedIndexLoad>
findUncheckedIndexLoads(ASTContext &Ctx, const KernelIndexConfig &Config,
                        const std::vector<AssertMacroUse> &Asserts) {
  std::vector<UncheckedIndexLoad> Out;
  Shared TU(Ctx);
  std::vector<const FunctionDecl *> Functions;
  forEachUserFunction(Ctx, [&](const FunctionDecl *FD) {
    Functions.push_back(FD);
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      if (const auto *L = dyn_cast<CUDAKernelCallExpr>(S)) {
        if (const FunctionDecl *K = L->getDirectCallee())
          TU.Launches[patternOf(K)].push_back({L, FD});
        return;
      }
      if (const auto *Call = dyn_cast<CallExpr>(S);
          Call && !isa<CXXOperatorCallExpr, CXXMemberCallExpr>(Call))
        if (const FunctionDecl *Callee = Call->getDirectCallee();
            Callee && isUserDecl(Callee) &&
            !Callee->hasAttr<CUDAGlobalAttr>() &&
            !Callee->hasAttr<CUDADeviceAttr>())
          TU.Calls[patternOf(Callee)].push_back({Call, FD});
    });
  });
  for (const FunctionDecl *FD : Functions) {
    FunctionScan Scan(FD, Ctx, TU, Config, Asserts);
    if (Scan.device() || Config.HostLoops)
      Scan.run(Out);
  }
  // One finding per access (a template's instantiations share its source).
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::DenseSet<unsigned> Seen;
  std::vector<UncheckedIndexLoad> Unique;
  for (const UncheckedIndexLoad &U : Out)
    if (Seen.insert(SM.getFileLoc(U.Access->getBeginLoc()).getRawEncoding())
            .second)
      Unique.push_back(U);
  std::sort(Unique.begin(), Unique.end(),
            [&](const UncheckedIndexLoad &A, const UncheckedIndexLoad &B) {
              return SM.isBeforeInTranslationUnit(
                  SM.getFileLoc(A.Access->getBeginLoc()),
                  SM.getFileLoc(B.Access->getBeginLoc()));
            });
  return Unique;
}

} // namespace torchtidy
