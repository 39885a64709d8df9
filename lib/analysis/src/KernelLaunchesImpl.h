//===--- KernelLaunchesImpl.h - KernelLaunchAnalysis' inside ----*- C++ -*-===//
//
// The analysis behind KernelLaunches.h, one concept a file:
//   LaunchGuards.cpp         the tests and guards before a launch: what a
//                            condition, a check macro or a helper proves of
//                            a tensor (device, contiguity, dtype, not empty);
//   LaunchArguments.cpp      what a kernel argument is: the tensor behind a
//                            raw view of storage, its device, strides and
//                            dtype where the launch reads it;
//   LaunchConfiguration.cpp  the evidence a launch can fail: its grid and
//                            block, and what the code before it proves;
//   KernelLaunches.cpp       the helpers below, what follows a launch (its
//                            check, its stream) and the public class.
// Private to lib/analysis.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_SRC_KERNELLAUNCHESIMPL_H
#define TORCHTIDY_ANALYSIS_SRC_KERNELLAUNCHESIMPL_H

#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/IndexGuards.h"
#include "torchtidy/analysis/KernelLaunches.h"
#include "torchtidy/analysis/OpSwitch.h"
#include "torchtidy/analysis/TorchOps.h"

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace torchtidy {

/// The analysis' helpers (KernelLaunches.cpp), in a namespace of their
/// own so that their plain names stay out of torchtidy's.
namespace launches {

/// \p E without parentheses, implicit nodes, copies and moves of a value.
const clang::Expr *unwrap(const clang::Expr *E);

/// caffe2::TypeMeta, what Tensor::dtype() returns.
bool isTypeMeta(clang::QualType T);

/// at::DeprecatedTypeProperties, what the legacy Tensor::type() returns.
bool isDeprecatedTypeProperties(clang::QualType T);

/// `cudaStream_t`: a pointer to `struct CUstream_st`.
bool isCudaStreamType(clang::QualType T);

/// PackedTensorAccessor32/64, GenericPackedTensorAccessor (at::).
bool isAccessorType(clang::QualType T);

/// The element type of an accessor type, else a null type.
clang::QualType accessorElement(clang::QualType T);

/// The method call \p E is on a tensor, with its object.
const clang::CXXMemberCallExpr *tensorMethodCall(const clang::Expr *E);

/// The lambda class whose call operator is \p FD, else null.
const clang::CXXRecordDecl *lambdaClassOf(const clang::FunctionDecl *FD);

/// The function a lambda's call operator is written in, else null.
const clang::FunctionDecl *enclosingFunctionOf(const clang::FunctionDecl *FD);

/// The outermost function around a lambda's call operator (itself for
/// other functions); null when a lambda is not inside a function.
const clang::FunctionDecl *outerFunctionOf(const clang::FunctionDecl *FD);

/// \p Loc is in an expansion of a macro named in \p Names (looking through
/// the macros it expands inside).
bool inMacroNamed(clang::SourceLocation Loc, const clang::SourceManager &SM,
                  const clang::LangOptions &LO, const llvm::StringSet<> &Names,
                  clang::SourceLocation *ExpansionOut = nullptr);

/// The ScalarType enumerator \p E evaluates to ("Long"), else "".
std::string scalarTypeName(const clang::Expr *E, const clang::ASTContext &Ctx);

/// Whether element type \p T stores dtype \p Scalar (the ScalarType
/// enumerator's name): true, false, or nothing for a dtype the model does
/// not know (a quantized one).
std::optional<bool> elementMatches(clang::QualType T, llvm::StringRef Scalar,
                                   const clang::ASTContext &Ctx);

/// The element type a dispatch macro picks (AT_DISPATCH_*'s `scalar_t`,
/// declared by the macro in a system header): right for the tensor it
/// dispatches on by construction.
bool isDispatchType(clang::QualType T, const clang::SourceManager &SM);

} // namespace launches

//===--- The analysis ---------------------------------------------------===//

/// A check before a use: the properties a condition tests on a variable.
struct Guard {
  enum Prop : unsigned { Cuda = 1, Contig = 2, Dtype = 4, NonEmpty = 8 };
  unsigned Props = 0;
  IndexVar Var;
  /// A CFG element of the function that is evaluated when the check runs:
  /// the test, or the whole condition (the test of `!(a && b)` is not
  /// evaluated on every path, the condition is).
  const clang::Stmt *At = nullptr;
  const clang::Stmt *Cond = nullptr;
  /// NonEmpty: the count divided by (`n` of `k / n`), or the condition
  /// (Cond) and the truth value it has past the guard.
  const clang::Expr *Count = nullptr;
  bool CondTruth = false;
  /// A guard of an if or a ?: holds past it, not in the branch that exits.
  const clang::Stmt *ExitBranch = nullptr;
  /// A branch that exits by break or continue: the loop or switch it leaves,
  /// past which the condition is not known.
  const clang::Stmt *Scope = nullptr;
};

/// What the model knows about one property of a tensor.
struct PropState {
  enum Kind { Unknown, Proven, Against } K = Unknown;
  const clang::Stmt *At = nullptr;
  std::string Why;
  const clang::ValueDecl *Var = nullptr;
};

struct TensorFacts {
  PropState Device, Contig;
  /// An explicit dtype ("Long") and where it was given.
  std::string Dtype;
  const clang::Stmt *DtypeAt = nullptr;
  const clang::ValueDecl *DtypeVar = nullptr;
  bool DtypeChecked = false;
  /// The factory whose options gave Dtype (`at::zeros({n * sizeof(T)},
  /// ...dtype(kChar))`), if that is where it comes from.
  const clang::CallExpr *DtypeFactory = nullptr;
};

/// A raw view of storage found in a kernel argument.
struct RawView {
  const clang::CXXMemberCallExpr *Call = nullptr;
  const clang::Expr *Tensor = nullptr;
  clang::QualType Element;
  bool Typed = false;    ///< data_ptr<T>, data<T>, an accessor
  bool Accessor = false; ///< carries its strides
};

struct KernelLaunchAnalysis::Impl {
  struct NonZero;
  /// Counts valueWhenEmpty takes as not 0 (what the code before the launch
  /// proves), while it re-evaluates a grid; else null.
  const NonZero *Assumed = nullptr;
  clang::ASTContext &Ctx;
  const clang::SourceManager &SM;
  KernelLaunchConfig Config;
  llvm::StringSet<> CheckMacros;
  IndexGuardAnalysis &GuardAnalysis;

  struct Outer {
    /// The context of the outermost function, whose parent map spans the
    /// bodies of the lambdas written inside.
    FunctionContext *Fn = nullptr;
    llvm::DenseMap<const clang::CXXRecordDecl *, const clang::LambdaExpr *>
        Lambdas;
  };
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<Outer>> Outers;
  llvm::DenseMap<const clang::FunctionDecl *, std::vector<Guard>> GuardsOf;
  llvm::DenseMap<std::pair<const clang::FunctionDecl *, unsigned>, unsigned>
      HelperGuards;
  struct LauncherAnswer {
    bool Is = false;
    const clang::Expr *Launch = nullptr;
    /// A function of another file that its project summary says launches
    /// with the parameter.
    std::shared_ptr<const FunctionSummary> Summary;
  };
  llvm::DenseMap<std::pair<const clang::FunctionDecl *, unsigned>,
                 LauncherAnswer>
      Launchers;
  std::optional<bool> UsesTorch;

  Impl(clang::ASTContext &Ctx, KernelLaunchConfig C)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Config(std::move(C)),
        GuardAnalysis(FunctionContexts::of(Ctx).analysis<IndexGuardAnalysis>(
            IndexGuardConfig{})) {
    for (const std::string &M : macrosWith(op::ChecksLaunch))
      CheckMacros.insert(M);
    for (const std::string &M : Config.LaunchCheckMacros)
      if (!M.empty())
        CheckMacros.insert(M);
  }

  //===--- Outermost functions and their parent maps ----------------------===//

  Outer *outer(const clang::FunctionDecl *FD);

  /// The lambda expression whose call operator is \p FD, else null.
  const clang::LambdaExpr *lambdaExprOf(const clang::FunctionDecl *FD);

  const clang::Stmt *parent(const clang::FunctionDecl *FD,
                            const clang::Stmt *S);

  /// \p S, a statement of \p FD, is \p Tree or inside it; \p IfUnknown
  /// past the nesting limit.
  bool within(const clang::FunctionDecl *FD, const clang::Stmt *S,
              const clang::Stmt *Tree, bool IfUnknown);

  //===--- Tests and guards -----------------------------------------------===//

  /// `t.device()` (or `t.device().type()`): the tensor variable.
  std::optional<IndexVar> deviceOwner(const clang::Expr *E);

  static bool isZero(const clang::Expr *E, const clang::ASTContext &Ctx);
  static bool isOne(const clang::Expr *E, const clang::ASTContext &Ctx);

  /// A count a run-time value may make 0: an integer read from a tensor, or
  /// an integer variable.
  static bool isCountLike(const clang::Expr *E, unsigned Depth = 0);

  /// The operands and the operator of \p C: a built-in binary operator, or
  /// an overloaded comparison; null operands for anything else.
  static std::tuple<const clang::Expr *, const clang::Expr *,
                    clang::BinaryOperatorKind>
  binaryOperands(const clang::Stmt *C);

  /// Calls \p Atom(A, T) for each test A of condition \p C that has the truth
  /// value T whenever \p C has \p Truth: through parens, cleanups, casts
  /// between truth values, `!` (the other way), both sides of `a && b` true
  /// or of `a || b` false; C10_LIKELY's `__builtin_expect(static_cast<bool>(c),
  /// 1)` is `c`. A test is anything else (a call, a comparison, a count
  /// converted to bool).
  static void
  atomsWhen(const clang::Expr *C, bool Truth,
            llvm::function_ref<void(const clang::Expr *, bool)> Atom,
            unsigned Depth = 0);

  /// Test \p A as a comparison that holds: its operands and its operator,
  /// negated when \p T is false; null operands for anything else (`a <=> b`
  /// is no truth value).
  static std::tuple<const clang::Expr *, const clang::Expr *,
                    clang::BinaryOperatorKind>
  comparisonWhen(const clang::Expr *A, bool T);

  /// Adds to \p Out the (variable, property) tests that condition \p C
  /// having the truth value \p Truth proves: `x.is_cuda()` or
  /// `x.is_contiguous()` true, `x.device() == kCUDA` or `!= kCPU` true (or
  /// the other comparison false), `x.scalar_type() == k` true; a test on the
  /// other side proves nothing (`if (x.is_cuda()) return;`).
  void testsWhen(const clang::Expr *C, bool Truth,
                 llvm::SmallVectorImpl<Guard> &Out);

  /// Adds to \p Out the counts that condition \p C having the truth value
  /// \p Truth proves are not 0: `n != 0`, `n > 0`, `n >= 1`, `0 < n` or `n`
  /// true, `n == 0`, `n <= 0` or `n < 1` false (through atomsWhen).
  void nonZeroWhen(const clang::Expr *C, bool Truth, NonZero &Out);

  /// The properties \p Callee checks on its parameter \p Param before it
  /// can return normally (its top-level guards), \p Depth helpers deep.
  unsigned helperGuards(const clang::FunctionDecl *Callee, unsigned Param,
                        unsigned Depth);

  /// What \p Call (a helper of the translation unit) checks on \p V.
  unsigned callGuardsOn(const clang::CallExpr *Call, const clang::ValueDecl *V,
                        unsigned Depth);

  /// The operand of condition \p C evaluated first: an element of the CFG,
  /// where `a || b` is none.
  static const clang::Expr *firstEvaluated(const clang::Expr *C);

  /// The divisor of \p E when it is an integer division or remainder by a
  /// count (`a / n`, `a % x.size(0)`, `a /= n`), which traps when it is 0;
  /// else null. A floating division by 0 does not trap.
  static const clang::Expr *integerDivisor(const clang::Expr *E);

  static const llvm::StringSet<> &kernelArgMacros();

  /// The guards of \p FD's own body: conditions with a branch that exits,
  /// TORCHTIDY_CHECK_KERNEL_ARG, and helpers that check their arguments.
  const std::vector<Guard> &guardsOf(const clang::FunctionDecl *FD);

  /// The properties checked on \p V (any variable for NonEmpty) before
  /// \p Use of \p UseFn: a guard that dominates it (in its function or, for
  /// a lambda, where the enclosing function calls it), or a branch on it
  /// that holds the use. \p Counts gets the counts those guards prove are
  /// not 0.
  unsigned provenAt(const IndexVar *V, const clang::Stmt *Use,
                    const clang::FunctionDecl *UseFn,
                    NonZero *Counts = nullptr);

  //===--- Definitions of locals ------------------------------------------===//

  /// The one value a local gets (its initialiser), when nothing else writes
  /// it but in-place ops that keep its device, dtype and strides.
  const clang::Expr *singleDefinition(const clang::VarDecl *VD);

  //===--- What a tensor expression is ------------------------------------===//

  /// The dtype an options or dtype expression names ("Long"), else "".
  std::string dtypeOf(const clang::Expr *E, unsigned Depth = 0);

  /// The tensor an options expression takes its device and dtype from
  /// (`x.options()`, `x.options().dtype(...)`), else null.
  const clang::Expr *optionsOwner(const clang::Expr *E, unsigned Depth = 0);

  /// The TensorOptions parameter of a factory call: false when it has
  /// none (the overloads that take dtype, layout and device apart); \p Opts
  /// gets the argument, null for the default.
  static bool optionsArgument(const clang::CallExpr *Call,
                              const clang::Expr *&Opts);

  void applyOptions(TensorFacts &F, const clang::CallExpr *Call,
                    const clang::Expr *Opts, const clang::Stmt *Use,
                    const clang::FunctionDecl *UseFn, unsigned Depth);

  /// What \p E is where \p Use (of \p UseFn) reads it.
  TensorFacts resolve(const clang::Expr *E, const clang::Stmt *Use,
                      const clang::FunctionDecl *UseFn, unsigned Depth = 0);

  /// What a call's tensor result is, as the op table says: a tensor
  /// method's (resolveMethod), a factory's (contiguous, on the device and
  /// of the dtype its options give), a like-factory's (resolveLike).
  TensorFacts resolveCall(const OpCall &C, const clang::Stmt *Use,
                          const clang::FunctionDecl *UseFn, unsigned Depth);

  /// `x.cuda()`, `x.to(...)`, `x.contiguous()`, `x.t()`...: what x is,
  /// moved, made contiguous or strided, of another dtype.
  TensorFacts resolveMethod(const clang::CXXMemberCallExpr *MC,
                            op::FactSet Facts, const clang::Stmt *Use,
                            const clang::FunctionDecl *UseFn, unsigned Depth);

  /// `zeros_like(x, options)`: x's facts, with the device and dtype the
  /// options give.
  TensorFacts resolveLike(const clang::CallExpr *Call, const clang::Stmt *Use,
                          const clang::FunctionDecl *UseFn, unsigned Depth);

  //===--- Raw views ------------------------------------------------------===//

  /// The raw view of storage that kernel argument \p A is (through casts,
  /// pointer arithmetic and pointer or accessor locals).
  std::optional<RawView> rawView(const clang::Expr *A, unsigned Depth = 0);

  /// The parameter of \p FD that kernel argument \p A passes on, if any.
  const clang::ParmVarDecl *passedParam(const clang::Expr *A,
                                        const clang::FunctionDecl *FD);

  LauncherAnswer launcher(const clang::FunctionDecl *Callee, unsigned Param,
                          unsigned Depth);

  //===--- What follows a launch ------------------------------------------===//

  /// \p S contains a launch check: a check macro, or a read of the launch
  /// error whose value is used.
  bool isLaunchCheck(const clang::Stmt *S, const clang::FunctionDecl *FD);

  /// \p S only launches kernels (a launch, a block or branches of them).
  static bool isLaunchOnly(const clang::Stmt *S, unsigned Depth = 0);

  /// The lambda expression whose body holds \p S in \p FD's parent map.
  const clang::LambdaExpr *enclosingLambda(const clang::FunctionDecl *FD,
                                           const clang::Stmt *S);

  /// The lambda \p L is called where it is written: `[&] { ... }()` or
  /// passed to a call, not stored for later.
  bool calledWhereWritten(const clang::FunctionDecl *FD,
                          const clang::LambdaExpr *L);

  /// The loop or switch a break (or the loop a continue) at \p Jump leaves.
  /// For a break or a continue somewhere in \p Jump, \p Break: the innermost
  /// of the two.
  const clang::Stmt *jumpTarget(const clang::FunctionDecl *FD,
                                const clang::Stmt *Jump, bool Break);

  void follow(KernelLaunchSite &Site);

  //===--- Evidence that a launch can fail --------------------------------===//

  /// What the code before a launch proves is not 0: locals and sizes read
  /// (`x.numel()`, `x.size(0)`, `x.sizes()[0]`).
  struct NonZero {
    llvm::SmallPtrSet<const clang::VarDecl *, 4> Locals;
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
  std::optional<NonZero::Size> sizeRead(const clang::Expr *E) const;

  /// Adds to \p Out what \p Count not being 0 proves is not 0: the count,
  /// what a local holds (its one definition), both factors of a product,
  /// the dividend of a quotient, what a cast converts.
  void addNonZero(const clang::Expr *Count, NonZero &Out, unsigned Depth = 0);

  /// Adds \p Proven, what a check at \p From proves, to \p Out, but for the
  /// sizes of a tensor that a definition after the check may replace before
  /// \p To (`x = x.index_select(0, idx)`). A member tensor, or one changed
  /// through a reference or inside a lambda, is taken as unchanged.
  void addUnchanged(NonZero &Out, const NonZero &Proven,
                    IndexGuardFinder &Finder, const clang::Stmt *From,
                    const clang::Stmt *To);

  /// \p E is a count that \p Known proves is not 0: a local of it, or a
  /// size of a tensor whose same size, or numel(), is in it.
  bool isNonZero(const clang::Expr *E, const NonZero &Known) const;

  /// The value of a grid or block dimension when every size read from a
  /// tensor is 0; nothing when the model cannot tell. \p Leaf gets the
  /// first size read, \p Via the first local followed to it.
  /// A count in Assumed that would be 0 is not: it is taken as its least
  /// value, 1, and names no size (Leaf), so that `std::min(n, y.size(0))`
  /// with `n` checked is still 0 through `y`.
  std::optional<int64_t> valueWhenEmpty(const clang::Expr *E,
                                        const clang::Expr *&Leaf,
                                        const clang::VarDecl *&Via,
                                        unsigned Depth = 0);
  std::optional<int64_t> valueWhenEmptyOf(const clang::Expr *E,
                                          const clang::Expr *&Leaf,
                                          const clang::VarDecl *&Via,
                                          unsigned Depth);

  static bool isDim3(clang::QualType T);

  /// The dimensions of a grid or block argument: a dim3's constructor
  /// arguments (through a local), or one integer for x.
  llvm::SmallVector<const clang::Expr *, 3> dimensions(const clang::Expr *E);

  /// The dimensions a grid argument can have at \p Launch: those of
  /// dimensions(), or, for a local dim3 written more than once (`dim3 grid;
  /// if (c) grid = dim3(a); else grid = dim3(b);`), those of each of its
  /// definitions that reaches the launch when nothing else writes it (not
  /// a field, not through a reference).
  llvm::SmallVector<llvm::SmallVector<const clang::Expr *, 3>, 2>
  gridCandidates(const clang::Expr *Grid, const clang::Stmt *Launch);

  LaunchFailure failure(const KernelLaunchSite &Site);

  /// The grid dimensions \p Dims can be 0 (\p F says how), with nothing
  /// before the launch that rules it out.
  bool emptyGrid(const KernelLaunchSite &Site,
                 llvm::ArrayRef<const clang::Expr *> Dims, LaunchFailure &F);

  static void classifyStream(KernelLaunchSite &Site,
                             const clang::ASTContext &Ctx);

  //===--- Arguments ------------------------------------------------------===//

  /// The tensor whose dtype the dispatch macro that declares \p Element
  /// (its scalar_t) switches on: `x` of AT_DISPATCH_...(x.scalar_type(),
  /// ...) or of the legacy x.type(), else null. The macro declares
  /// scalar_t in a case of the switch in its own lambda; the switch's value
  /// is followed through that lambda's locals (`the_type`, `_st`) and
  /// one-argument conversions to the tensor whose dtype it reads.
  const clang::Expr *dispatchedTensor(clang::QualType Element) const;

  /// A view typed with a dispatch macro's scalar_t over a tensor of a known
  /// dtype. The macro copies its lambda once per dtype it admits; in the
  /// copy whose scalar_t is not that dtype, the view throws (or, untyped,
  /// reinterprets the bytes) whenever the copy runs: whenever the
  /// dispatched tensor can have the copy's dtype (nothing checks its dtype,
  /// and no known dtype rules the copy out). The dispatched tensor itself,
  /// or one made with its options, matches by construction.
  void checkDispatchedView(const RawView &View, const TensorFacts &F,
                           const KernelArgIssue &Base,
                           const clang::CallExpr *Sink,
                           const clang::FunctionDecl *FD,
                           std::vector<KernelArgIssue> &Out);

  /// \p F is a tensor of bytes (Char, Byte) made by a factory whose sizes
  /// are written with `sizeof(Element)`: storage allocated for objects of
  /// that type, which a cast of data_ptr() reads as such by design.
  static bool bytesSizedFor(const TensorFacts &F, clang::QualType Element);

  void checkArgument(const clang::Expr *Arg, const clang::CallExpr *Sink,
                     const clang::FunctionDecl *FD,
                     const clang::FunctionDecl *Launcher,
                     const LauncherAnswer *Answer, unsigned Param,
                     std::vector<KernelArgIssue> &Out);
};

} // namespace torchtidy

#endif
