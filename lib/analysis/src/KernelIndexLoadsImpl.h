//===--- KernelIndexLoadsImpl.h - The kernel index scan ---------*- C++ -*-===//
//
// The analysis behind KernelIndexLoads.h in three files:
//   KernelIndexSources.cpp  where index values come from: pointer
//                           parameters of kernels, data_ptr locals, and
//                           what reads them;
//   KernelIndexBounds.cpp   what bounds an access: comparisons, asserts,
//                           loops, and checks before the launch;
//   KernelIndexLoads.cpp    the helpers below, the accesses at a loaded
//                           offset, and the public function.
// Private to lib/analysis.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_SRC_KERNELINDEXLOADSIMPL_H
#define TORCHTIDY_ANALYSIS_SRC_KERNELINDEXLOADSIMPL_H

#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/IndexArrays.h"
#include "torchtidy/analysis/IndexGuards.h"
#include "torchtidy/analysis/KernelIndexLoads.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/FoldingSet.h"

#include <functional>
#include <vector>

namespace torchtidy {

/// The analysis' helpers (KernelIndexLoads.cpp), in a namespace of their
/// own so that their plain names stay out of torchtidy's.
namespace kernelindex {

const clang::Expr *ignoreCasts(const clang::Expr *E);

/// `int`, `int64_t`, `unsigned`...: a type an index value has.
bool isIndexType(clang::QualType T);

/// A pointer (or an array) to index values.
bool pointsToIndices(clang::QualType T);

/// A call that bounds its operands' result to a range: std::min/max (the
/// op table) and CUDA's device min/max/fmin/fmax.
bool isClamp(const clang::CallExpr *Call);

using Point = CFGPoint;

struct LaunchOf {
  const clang::CUDAKernelCallExpr *Call;
  const clang::FunctionDecl *Caller;
};

/// A call of a host function of the user's code.
struct CallOf {
  const clang::CallExpr *Call;
  const clang::FunctionDecl *Caller;
};

/// \p Arg is a tensor's raw storage (`t.data_ptr<int>()`, `t.data<int>()`):
/// that tensor.
const clang::Expr *rawStorageTensor(const clang::Expr *Arg);

/// A kernel's pattern: a template's instantiations share one.
const clang::FunctionDecl *patternOf(const clang::FunctionDecl *K);

/// What the scans of one translation unit share: the kernels' launches and
/// the guard analysis of the host functions that launch them.
struct Shared {
  Shared(clang::ASTContext &Ctx)
      : Guards(FunctionContexts::of(Ctx).analysis<IndexGuardAnalysis>(
            IndexGuardConfig{})),
        Arrays(Ctx, Guards) {}
  llvm::DenseMap<const clang::FunctionDecl *, std::vector<LaunchOf>> Launches;
  llvm::DenseMap<const clang::FunctionDecl *, std::vector<CallOf>> Calls;
  IndexGuardAnalysis &Guards;
  IndexArrayProof Arrays;

  const std::vector<LaunchOf> &launchesOf(const clang::FunctionDecl *K) const {
    static const std::vector<LaunchOf> None;
    auto It = Launches.find(patternOf(K));
    return It == Launches.end() ? None : It->second;
  }

  const std::vector<CallOf> &callsOf(const clang::FunctionDecl *F) const {
    static const std::vector<CallOf> None;
    auto It = Calls.find(patternOf(F));
    return It == Calls.end() ? None : It->second;
  }
};

} // namespace kernelindex

/// The analysis of one function.
class FunctionScan {
public:
  FunctionScan(const clang::FunctionDecl *FD, clang::ASTContext &Ctx,
               kernelindex::Shared &TU, const KernelIndexConfig &Config,
               const std::vector<AssertMacroUse> &Asserts)
      : FD(FD), Ctx(Ctx), TU(TU), Config(Config), Asserts(Asserts) {
    // A lambda of host code is implicitly __host__ __device__ in CUDA mode:
    // only a __device__ the user wrote makes device code.
    const auto *DeviceAttr = FD->getAttr<clang::CUDADeviceAttr>();
    Device = FD->hasAttr<clang::CUDAGlobalAttr>() ||
             (DeviceAttr && !DeviceAttr->isImplicit());
  }

  bool device() const;

  void run(std::vector<UncheckedIndexLoad> &Out);

private:
  //--- Where index values come from -----------------------------------

  /// Kernels: pointer parameters to index values, and parameters of class
  /// type (TensorInfo, accessors) whose pointers are read. Host code:
  /// locals made by data_ptr<T>() or an accessor of a tensor.
  void findSources();

  /// Visits every statement of \p FD's body and, for a lambda, of the
  /// functions it is nested in, lambdas included.
  template <typename F>
  static void forEachStmtAround(const clang::FunctionDecl *FD, F &&Visit) {
    std::function<void(const clang::Stmt *)> Walk = [&](const clang::Stmt *S) {
      if (!S)
        return;
      Visit(S);
      for (const clang::Stmt *Child : S->children())
        Walk(Child);
    };
    const clang::DeclContext *DC = FD;
    for (unsigned Depth = 0; DC && Depth < 8; ++Depth) {
      const auto *Fn = llvm::dyn_cast<clang::FunctionDecl>(DC);
      if (!Fn)
        break;
      const auto *MD = llvm::dyn_cast<clang::CXXMethodDecl>(Fn);
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
  static const clang::Expr *tensorInfoTensor(const clang::VarDecl *VD);

  /// The tensor \p Init takes raw storage from (`index.data_ptr<int64_t>()`,
  /// `index.accessor<int64_t, 2>()`) when its elements are index values.
  const clang::Expr *rawDataTensor(const clang::Expr *Init);

  /// \p E reads an index value from a source: `idx[i]`, `info.data[i]`,
  /// `*(idx + i)`, `__ldg(idx + i)`, `acc[i][j]`.
  bool isLoad(const clang::Expr *E);

  /// \p Address goes through a member of pointer type (`info.data + i`), or
  /// is an accessor's element (`acc[i]`).
  static bool readsThroughPointerMember(const clang::Expr *Address);

  /// The source a load reads: its root, through local aliases.
  const clang::ValueDecl *sourceOf(const clang::Expr *Load);

  /// The first load \p E contains (not looking into clamps), else null.
  const clang::Expr *loadIn(const clang::Expr *E);

  /// Visits the expressions of \p E in pre-order, not entering clamps and
  /// remainders that bound their value.
  template <typename F> void walk(const clang::Expr *E, F &&Visit) {
    if (!E)
      return;
    Visit(E);
    if (boundsItsValue(E))
      return;
    for (const clang::Stmt *Child : E->children())
      if (const auto *CE = llvm::dyn_cast_or_null<clang::Expr>(Child))
        walk(CE, Visit);
  }

  /// \p E keeps its value in a range whatever its operands hold: a clamp, a
  /// bounding remainder, a capped segment position.
  bool boundsItsValue(const clang::Expr *E);

  /// `v % n` with `v` never negative and `n` not itself loaded: a value in
  /// [0, n), bounded like a comparison with n (the hash of a loaded value
  /// folded into a table's size).
  bool boundingRemainder(const clang::Expr *E);

  /// `i - s` in the body of `for (i = s; i < s + k; ++i)` (also
  /// `i < min(e, s + k)`), with `k` not loaded and neither `i` nor `s`
  /// written in the body: a value in [0, k), bounded like a comparison with
  /// k (the position within a segment capped at k elements).
  bool boundedDifference(const clang::Expr *E);

  /// The tainted locals the value of \p E is computed from: not those only
  /// in the address of a load (`a[i]` holds a value of `a`; whether `i` is
  /// in range is a question for that access).
  void valueTaintedIn(const clang::Expr *E,
                      llvm::SmallPtrSetImpl<const clang::VarDecl *> &Out);

  /// The tainted locals \p E reads.
  void taintedIn(const clang::Expr *E,
                 llvm::SmallPtrSetImpl<const clang::VarDecl *> &Out);

  /// Locals of index type given a value that depends on a load, directly or
  /// through other such locals (flow-insensitive: any definition counts).
  void propagate(const clang::Stmt *Body);

  /// The load a tainted local's value comes from, following its sources.
  std::pair<const clang::Expr *, const clang::VarDecl *>
  originOf(const clang::VarDecl *VD);

  /// Every tainted local \p Vars derive from, themselves included.
  void ancestors(llvm::SmallPtrSetImpl<const clang::VarDecl *> &Vars);

  //--- Accesses at a loaded offset --------------------------------------

  void visitAccess(const clang::Stmt *S, std::vector<UncheckedIndexLoad> &Out);

  /// \p E is a LibTorch accessor (at::TensorAccessor,
  /// at::GenericPackedTensorAccessor and its PackedTensorAccessor32/64
  /// aliases), whose operator[] reads the tensor's memory.
  static bool isAccessor(const clang::Expr *E);

  /// Host code is analysed inside loops only.
  bool inLoop(const clang::Expr *E);

  /// The innermost statement of a compound statement that holds \p E.
  const clang::Stmt *statementOf(const clang::Expr *E);

  /// The host expression a launch of this kernel passes for the source.
  const clang::Expr *launchArgumentOf(const UncheckedIndexLoad &U);

  //--- What bounds an access ----------------------------------------------

  bool buildCfg();

  /// \p A is evaluated before \p B on every path to B.
  bool dominates(const clang::Stmt *A, const clang::Stmt *B);

  /// The same expression, structurally (`idx[i]` and `idx[i]`).
  bool sameExpr(const clang::Expr *A, const clang::Expr *B);

  /// A comparison of one of \p Vars (tainted locals), of \p Load or of the
  /// offset with a bound that is not itself loaded, evaluated before the
  /// access on every path (`e < row_end`, with both ends read from an index
  /// array, bounds nothing), or an assert macro that names one.
  bool compared(const UncheckedIndexLoad &U,
                const llvm::SmallPtrSetImpl<const clang::VarDecl *> &Vars,
                const clang::Expr *Load);

  /// The first local behind \p V whose loaded value nothing bounds, else
  /// null: \p V is bounded when it is compared itself, or when what it is
  /// computed from is: its own load compared, and every tainted local it is
  /// computed from bounded in turn (`off = b * HW + h * W + w` with `h` and
  /// `w` compared and `b` not is not bounded).
  const clang::VarDecl *
  uncovered(const UncheckedIndexLoad &U, const clang::VarDecl *V,
            llvm::DenseMap<const clang::VarDecl *, bool> &Memo);

  /// Every loaded part of the offset is bounded: each tainted local it reads
  /// (through a comparison of it or of a local it is computed from), each
  /// load it makes, or the offset as a whole. Else \p U names the first part
  /// that is not, and the host side is asked about its array.
  bool bounded(UncheckedIndexLoad &U);

  /// A configured assert macro names one of \p Vars in a block that
  /// encloses the access, before it.
  bool
  assertedBefore(const UncheckedIndexLoad &U,
                 const llvm::SmallPtrSetImpl<const clang::VarDecl *> &Vars);

  /// The host tensor a source pointer is taken from is bounded where the
  /// access is (a guard on its range, an index producer, a clamp).
  bool hostTensorBounded(const UncheckedIndexLoad &U);

  /// Every call of this host function in the translation unit passes, for
  /// \p Param, the raw storage of a tensor bounded before the call.
  bool callsBound(const clang::ParmVarDecl *Param);

  /// \p Tensor, passed by \p Call of \p Caller, is bounded there: guarded
  /// or produced in range (IndexGuardFinder::classify), or an index array
  /// host code made in range (IndexArrayProof) that the callee keeps
  /// \p Intact (a kernel that does not write through its parameter).
  bool boundedAt(const clang::Expr *Tensor, const clang::FunctionDecl *Caller,
                 const clang::Stmt *Call, bool Intact);

  /// Every launch of this kernel in the translation unit passes, for the
  /// source parameter, a tensor bounded before the launch.
  bool launchesBound(const UncheckedIndexLoad &U);

  /// The tensor a launch argument passes: `t.data_ptr<T>()`, an accessor of
  /// `t`, a local made from one, or a call on `t` (getTensorInfo(t)).
  static const clang::Expr *tensorOfArgument(const clang::Expr *Arg);

  const clang::FunctionDecl *FD;
  clang::ASTContext &Ctx;
  kernelindex::Shared &TU;
  const KernelIndexConfig &Config;
  const std::vector<AssertMacroUse> &Asserts;
  bool Device = false;
  llvm::SmallPtrSet<const clang::ValueDecl *, 8> Sources;
  llvm::DenseMap<const clang::ValueDecl *, const clang::ValueDecl *> Alias;
  llvm::DenseMap<const clang::ValueDecl *, const clang::Expr *> HostTensor;
  struct TaintInfo {
    const clang::Expr *Load = nullptr;
    std::vector<const clang::VarDecl *> From;
  };
  llvm::DenseMap<const clang::VarDecl *, TaintInfo> Taint;
  bool LoopsFound = false;
  bool ForsFound = false;
  std::vector<const clang::ForStmt *> Fors;
  std::vector<clang::SourceRange> Loops;
  /// The shared CFG (null when there is none) and its maps.
  FunctionContext *Fn = nullptr;
  const clang::CFG *Cfg = nullptr;
};

} // namespace torchtidy

#endif
