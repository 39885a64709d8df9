//===--- IndexRangesImpl.h - IndexRangeAnalysis' inside ---------*- C++ -*-===//
//
// The analysis behind IndexRanges.h, one concept a file:
//   IndexQuantities.cpp   quantities (sizes, lengths, members' dims) and
//                         the tables an op indexes;
//   IndexValueRanges.cpp  the values an index can take: intervals, parsed
//                         and loaded data, shifts, helpers' results;
//   IndexRelations.cpp    callers, and what a guard proves of a length
//                         against a table;
//   IndexEvidence.cpp     the evidence an index leaves its table, and data
//                         from outside (datasets, parameters);
//   IndexParams.cpp       parameters that reach an index unchecked, and
//                         the values of containers of ids;
//   IndexLengths.cpp      parameters whose length indexes a table of fixed
//                         rows, and a caller's growing tensor (a project's
//                         summaries: kind 2 across files);
//   IndexRanges.cpp       the lattice, the helpers below, the public class.
// Private to lib/analysis.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_SRC_INDEXRANGESIMPL_H
#define TORCHTIDY_ANALYSIS_SRC_INDEXRANGESIMPL_H

#include "torchtidy/analysis/IndexGuards.h"
#include "torchtidy/analysis/IndexRanges.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace torchtidy {

/// The analysis' helpers (IndexRanges.cpp), in a namespace of their own so
/// that their plain names stay out of torchtidy's.
namespace ranges {

/// What unwrap looks through: parens, implicit and explicit casts,
/// temporaries, cleanups, copies and converting constructors (an integer to
/// a c10::Scalar).
constexpr unsigned UnwrappedSteps =
    peel::Converted | peel::CopiesAndMoves | peel::ConvertingConstructions;

/// \p E without the wrappers of UnwrappedSteps.
const clang::Expr *unwrap(const clang::Expr *E);

bool evaluateInt(const clang::Expr *E, const clang::ASTContext &Ctx,
                 int64_t &Out);

/// The arguments of \p Call as the free function numbers them (self = 0).
const clang::Expr *argAt(const clang::CallExpr *Call, unsigned FreeIndex);

/// The elements of `{a, b}` passed as a braced list, else empty.
llvm::SmallVector<const clang::Expr *, 4> listElements(const clang::Expr *E);

bool isStdContainer(clang::QualType T);

/// `(Base, Field)` of a named value written as \p E: `n`, `this->n_`,
/// `cfg.n`, `this->cfg_.n`.
std::optional<std::pair<const clang::ValueDecl *, const clang::FieldDecl *>>
namedValue(const clang::Expr *E);

const clang::FunctionDecl *definitionOf(const clang::FunctionDecl *FD);

/// A call that copies a sub-range of a tensor: slice, narrow, chunk...,
/// and `x.index({Slice(...), ...})`.
bool isCropCall(const clang::Expr *E);

} // namespace ranges

//===----------------------------------------------------------------------===//
// The analysis
//===----------------------------------------------------------------------===//

struct IndexRangeAnalysis::Impl {
  clang::ASTContext &Ctx;
  IndexGuardAnalysis &Guards;
  /// ReportParameters: a length parameter of a function with no caller in
  /// the TU is reported.
  bool NoCallerIsUnbounded;
  /// Calls of functions of other files ask the project's summaries.
  bool FollowSummaries;
  unsigned Depth = 0;
  /// lengthBoundAtCall without the rows: the relations take any bound of
  /// the length for one by the rows (any comparison, any crop).
  bool AnyRows = false;

  /// Per class: constructor parameters (and fields of them) as the members
  /// they initialise. The key's field is null for the parameter itself;
  /// a member whose value is the whole parameter (a config struct) maps the
  /// parameter to that member with a null field.
  struct Aliases {
    llvm::DenseMap<
        std::pair<const clang::ValueDecl *, const clang::FieldDecl *>, Quantity>
        Values;
    llvm::DenseMap<const clang::ValueDecl *, const clang::FieldDecl *> Structs;
  };
  llvm::DenseMap<const clang::CXXRecordDecl *, std::unique_ptr<Aliases>>
      ClassAliases;

  /// Who calls each function of the TU: (caller, call, first argument's
  /// position in the call).
  struct CallSite {
    const clang::FunctionDecl *Caller;
    const clang::CallExpr *Call;
    unsigned FirstArg;
  };
  std::optional<llvm::DenseMap<const clang::FunctionDecl *,
                               llvm::SmallVector<CallSite, 2>>>
      Callers;

  Impl(clang::ASTContext &Ctx, IndexGuardAnalysis &Guards,
       bool NoCallerIsUnbounded, bool FollowSummaries)
      : Ctx(Ctx), Guards(Guards), NoCallerIsUnbounded(NoCallerIsUnbounded),
        FollowSummaries(FollowSummaries) {}

  struct DepthGuard {
    unsigned &D;
    explicit DepthGuard(unsigned &D) : D(D) { ++D; }
    ~DepthGuard() { --D; }
  };

  //--- Quantities --------------------------------------------------------

  Quantity named(const clang::ValueDecl *Base, const clang::FieldDecl *Field,
                 const clang::Expr *At);

  Quantity runtime(const clang::ValueDecl *Base, const clang::FieldDecl *Field,
                   int64_t Dim, bool Container, const clang::Expr *At);

  /// What \p E holds: the single definition of a local \p FD never writes
  /// again, else \p E itself (unwrapped).
  const clang::Expr *sizesOf(const clang::FunctionDecl *FD,
                             const clang::Expr *E);

  /// Field \p Field of the named value \p Base (a variable, or a member of
  /// `this`) in \p FD: of what a local copy of a parameter or a member was
  /// made from, when it is one.
  Quantity fieldOf(const clang::FunctionDecl *FD, const clang::ValueDecl *Base,
                   const clang::FieldDecl *Field, const clang::Expr *At);

  /// The single value of local \p VD, if it is given once (its
  /// initialiser) and never written again.
  const clang::Expr *singleDefinition(const clang::FunctionDecl *FD,
                                      const clang::VarDecl *VD);

  static void addOffset(Quantity &Q, int64_t K);

  /// `c ? a : b` that picks the smaller of a and b (c compares them: `a <
  /// b ? a : b`, `T > n ? n : T`): a capped by b, as std::min.
  Quantity minOfConditional(const clang::FunctionDecl *FD,
                            const clang::ConditionalOperator *CO,
                            const clang::Expr *At);

  Quantity quantityOf(const clang::FunctionDecl *FD, const clang::Expr *E);

  /// `x.size(d)` / `torch::size(x, d)`.
  Quantity sizeQuantity(const clang::FunctionDecl *FD,
                        const clang::CallExpr *Call,
                        const clang::Expr *Written);

  /// The size of tensor \p Tensor along \p Dim: the quantity its
  /// construction gives, else a runtime size.
  Quantity tensorDim(const clang::FunctionDecl *FD, const clang::Expr *Tensor,
                     int64_t Dim, const clang::Expr *Written);

  /// The size along \p Dim that the construction of the tensor \p E gives:
  /// a factory's sizes, arange's length, linspace's steps, through moves
  /// and elementwise ops; a local's single definition, or a member's
  /// writes in its module's building code.
  Quantity constructedDim(const clang::FunctionDecl *FD, const clang::Expr *E,
                          int64_t Dim);

  /// constructedDim of a call: one OpSwitch over what the op table says of
  /// it (IndexQuantities.cpp), its cases in the order they are tried.
  Quantity callDim(const clang::FunctionDecl *FD, const clang::CallExpr *Call,
                   int64_t Dim);

  /// How many of a call's leading written arguments are numbers (not
  /// sizes, options or generators): arange(a, b) has 2, arange(n) 1.
  static unsigned numericArgs(const clang::CallExpr *Call);

  /// The size along \p Dim of a member tensor, from its module's building
  /// code: every write must agree.
  Quantity memberDim(const clang::FieldDecl *Field, int64_t Dim);

  /// The aliases of \p RD's constructors: `Net(int64_t n) : n_(n)` makes
  /// `n` in the constructor the member `n_`; `cfg_(cfg)` makes `cfg.x` the
  /// member's `cfg_.x`.
  const Aliases &aliasesOf(const clang::CXXRecordDecl *RD);

  /// \p Q as the members of \p RD name it, when \p Q is written in terms of
  /// the parameters of \p Scope, one of RD's constructors.
  Quantity canonical(Quantity Q, const clang::CXXRecordDecl *RD,
                     const clang::FunctionDecl *Scope);

  //--- Tables ------------------------------------------------------------

  /// The rows of the embedding a construction makes: `Embedding(n, d)`,
  /// `Embedding(EmbeddingOptions(n, d).padding_idx(0))`,
  /// `std::make_shared<EmbeddingImpl>(n, d)`, `register_module("e", ...)`.
  Quantity rowsOfConstruction(const clang::FunctionDecl *FD,
                              const clang::Expr *E, unsigned Steps = 0);

  TableSize tableOf(const clang::FunctionDecl *FD, const IndexOpSite &Site);

  //--- Ranges ------------------------------------------------------------

  /// The dimension an index producer works over: the argument of its
  /// `dim` parameter (its default when not written). Without one, a
  /// producer that takes more than its tensor (multinomial(n)) samples the
  /// last dimension, and one that takes only its tensor (nonzero()) gives
  /// positions along every dimension: nothing. Nothing too when the
  /// dimension is not a constant, or the op reads the flattened tensor
  /// (argmax() with no dim).
  std::optional<int64_t> producerDim(const clang::CallExpr *Call) const;

  /// What an index producer gives (argmax, topk, sort, argsort,
  /// multinomial, nonzero): positions along the dimension it works over, in
  /// [0, size(dim)) of the tensor it reads, which says nothing of another
  /// table unless that size is shown to be at most the table's rows. The
  /// bound is the op's, not a length: an unknown size is no evidence. zeros
  /// gives 0.
  IndexRange producedRange(const clang::FunctionDecl *FD,
                           const clang::CallExpr *Call, op::FactSet Facts);

  IndexRange interval(const Quantity &Lo, const Quantity &Hi,
                      const clang::Expr *At);

  IndexRange values(const Quantity &V, const clang::Expr *At, bool Sentinel);

  /// Whether a local vector was filled with numbers parsed from text or
  /// bytes read from a file, or made by a call that returns such values
  /// (calledOutside): the call that does it, and how.
  std::optional<OutsideValues> parsedInto(const clang::FunctionDecl *FD,
                                          const clang::ValueDecl *Buffer);

  /// A call whose result holds values from outside the program: a helper of
  /// this unit whose returns do (returnedOutside), or, with FollowSummaries,
  /// a function of another file whose project summary says so.
  std::optional<OutsideValues> calledOutside(const clang::FunctionDecl *FD,
                                             const clang::CallExpr *Call);

  /// What IndexRangeAnalysis::returnedOutsideValues says of \p Def.
  std::optional<OutsideValues> returnedOutside(const clang::FunctionDecl *Def);

  /// The values of \p E, a container of integers (or of containers of
  /// them): parsed or read into a local, returned by a call that says so
  /// (calledOutside), or a parameter's whose elements \p FD never compares
  /// (Params); through `v[i]`, `v.at(i)`, `v.front()` of a container of
  /// containers, `{a, b}` and `c ? a : b`. Opaque otherwise.
  IndexRange containerRange(const clang::FunctionDecl *FD,
                            const clang::Expr *E);
  /// \p FD compares the elements of the container \p V (`v[i] < n`, a
  /// range-for variable over it, std::max_element(v.begin(), ...)): a check
  /// of its values, which an index made of it then has.
  bool elementsTested(const clang::FunctionDecl *FD, const clang::ValueDecl *V);
  /// What \p E (a tensor or a container of integers) holds at \p Use.
  IndexRange valuesOf(const clang::FunctionDecl *FD, const clang::Expr *E,
                      const clang::Stmt *Use);
  /// IndexRangeAnalysis::indexedParams, memoised; InProgress breaks cycles.
  llvm::DenseMap<const clang::FunctionDecl *, std::vector<IndexedParam>>
      Indexed;
  llvm::SmallPtrSet<const clang::FunctionDecl *, 4> IndexedInProgress;
  llvm::ArrayRef<IndexedParam> indexedParams(const clang::FunctionDecl *FD);
  /// IndexRangeAnalysis::lengthParams, memoised (IndexLengths.cpp).
  llvm::DenseMap<const clang::FunctionDecl *, std::vector<LengthParam>> Lengths;
  llvm::ArrayRef<LengthParam> lengthParams(const clang::FunctionDecl *FD);
  /// A loop around \p Use in \p FD whose condition bounds \p Len by \p Rows
  /// on entry to its body (`while (x.size(1) < n)`), with no definition of
  /// \p Var in the body before \p Use.
  bool loopBounds(const clang::FunctionDecl *FD, const Quantity &Len,
                  const Quantity &Rows, const clang::Stmt *Use,
                  const clang::ValueDecl *Var);
  /// \p Def reaches \p Use only through \p Point: the innermost loop
  /// around \p Use that holds \p Def holds \p Point too, and \p Def comes
  /// after \p Use in it (`x = torch::cat({x, y}, 1)` at the end of the body
  /// reaches the top of the next iteration), \p Point dominating \p Use.
  /// Any path from \p Def to \p Use goes around the loop, through its
  /// head, and from the head every path to \p Use passes \p Point.
  bool laterInLoop(const clang::FunctionDecl *FD, const clang::Expr *Def,
                   const clang::Stmt *Use, const clang::Stmt *Point);
  /// A std container of integers (not bools), or of containers of them:
  /// what parsed ids fill.
  static bool isIntegerContainer(clang::QualType T);

  /// The range of values from outside the program, \p P.
  static IndexRange outsideRange(OutsideValues P);

  /// `in >> v` with `in` a std::istream (a file, a string stream, std::cin)
  /// and \p V the variable read into, in \p FD; else null.
  const clang::Expr *extractionInto(const clang::FunctionDecl *FD,
                                    const clang::ValueDecl *V);

  static bool isInputStream(const clang::CXXRecordDecl *RD);

  /// The range of a for-loop's induction variable: `for (int64_t i = c;
  /// i < n; ++i)` gives [c, n); `i <= n`, [c, n + 1). Else nothing.
  struct LoopBound {
    Quantity Lo, Hi;
    const clang::Expr *Condition;
  };
  std::optional<LoopBound> loopRange(const clang::FunctionDecl *FD,
                                     const clang::VarDecl *VD);

  /// The range of one element of `torch::tensor({...})`: a constant, or a
  /// loop variable (plus a constant).
  IndexRange elementRange(const clang::FunctionDecl *FD, const clang::Expr *E);

  /// A call to std::stoi and friends in \p E (`std::stoi(tok)`,
  /// `static_cast<int64_t>(std::stol(s))`), else null.
  const clang::Expr *parseCall(const clang::Expr *E);

  static std::string calleeText(const clang::Expr *E);

  /// `torch::load(ids, path)`: the load that writes \p V in \p FD.
  const clang::Expr *loadInto(const clang::FunctionDecl *FD,
                              const clang::ValueDecl *V);

  IndexRange rangeOf(const clang::FunctionDecl *FD, const clang::Expr *E,
                     const clang::Stmt *Use);

  /// The values a call gives: one OpSwitch over what the op table says of
  /// it (IndexValueRanges.cpp), its cases in the order they are tried.
  IndexRange rangeOfCall(const clang::FunctionDecl *FD,
                         const clang::CallExpr *Call);

  /// `torch::tensor({...})`, `torch::tensor(v)`: literal ids, loop
  /// variables, a container filled from outside or a parameter's.
  IndexRange literalTensorRange(const clang::FunctionDecl *FD,
                                const clang::CallExpr *Call);

  /// What a bounding op gives, an interval marked as the op's bound:
  /// clamp(lo, hi) [lo, hi + 1) (one-sided, no bound at all);
  /// remainder(x, n) [0, n); fmod(x, n) [0, n) when x is not negative (it
  /// keeps x's sign); searchsorted / bucketize [0, N + 1) with N the
  /// boundaries' size.
  IndexRange opBound(const Quantity &Lo, const Quantity &Hi,
                     const clang::CallExpr *Call);
  IndexRange clampRange(const clang::FunctionDecl *FD,
                        const clang::CallExpr *Call);
  IndexRange remainderRange(const clang::FunctionDecl *FD,
                            const clang::CallExpr *Call);
  IndexRange bucketRange(const clang::FunctionDecl *FD,
                         const clang::CallExpr *Call);

  /// Every value some path gives is >= 0.
  static bool nonNegative(const IndexRange &R);

  /// The argument of the option setter \p Name in an options chain
  /// (`F::PadFuncOptions({0, 2}).value(-1)` -> `-1`), else null.
  static const clang::Expr *optionValue(const clang::Expr *Options,
                                        op::Named Name);

  IndexRange whereRange(const clang::FunctionDecl *FD,
                        const clang::CallExpr *Call);

  /// `v.at(i)`, `v[i]`, `v.front()` of the result of split/chunk/unbind:
  /// the tensor they were cut from.
  IndexRange shift(IndexRange R, int64_t K);

  IndexRange shifted(const clang::FunctionDecl *FD,
                     const clang::CXXOperatorCallExpr *Op);

  /// The range a helper of this TU returns, with its parameters replaced by
  /// the arguments of \p Call.
  IndexRange helperRange(const clang::FunctionDecl *FD,
                         const clang::CallExpr *Call);

  Quantity substitute(Quantity Q, const clang::FunctionDecl *Callee,
                      const clang::FunctionDecl *Caller,
                      const clang::CallExpr *Call);

  IndexRange substitute(IndexRange R, const clang::FunctionDecl *Callee,
                        const clang::FunctionDecl *Caller,
                        const clang::CallExpr *Call);

  //--- Callers ----------------------------------------------------------

  void buildCallers();

  llvm::ArrayRef<CallSite> callersOf(const clang::FunctionDecl *FD);

  //--- Relations between a length and a table ---------------------------

  /// A comparison `L Op R` known to hold at some point.
  struct Fact {
    const clang::Expr *L;
    clang::BinaryOperatorKind Op;
    const clang::Expr *R;
  };

  static clang::BinaryOperatorKind negated(clang::BinaryOperatorKind Op);

  /// The comparisons that hold when \p Cond evaluates to \p Holds: through
  /// `!`, `&&` when it holds, `||` when it does not, and __builtin_expect
  /// (C10_UNLIKELY).
  static void factsOf(const clang::Expr *Cond, bool Holds,
                      llvm::SmallVectorImpl<Fact> &Out, unsigned Depth = 0);

  /// \p Len is at most \p Rows when \p Q (a quantity written in the code)
  /// is at most \p Bound: Q has Len's base, Bound has Rows' base (or both
  /// Bound and Rows are constants), and the offsets agree.
  bool boundedBy(const Quantity &Q, const Quantity &Bound, int64_t Slack,
                 const Quantity &Len, const Quantity &Rows) const;

  /// Fact \p F implies \p Len <= \p Rows.
  bool implies(const clang::FunctionDecl *FD, const Fact &F,
               const Quantity &Len, const Quantity &Rows);

  /// \p S holds \p Target.
  static bool holds(const clang::Stmt *S, const clang::Stmt *Target);

  /// The conditions of \p FD that bound \p Len by \p Rows where \p Use
  /// runs: asserted (TORCH_CHECK, assert: a branch whose other side cannot
  /// continue), an `if` that exits when the length is past the rows, or an
  /// `if` whose branch holding the use is taken only within the rows.
  bool conditionBounds(const clang::FunctionDecl *FD, const Quantity &Len,
                       const Quantity &Rows, const clang::Stmt *Use);

  /// What a crop keeps along \p Dim of its input, at most: `slice(d, a, b)`
  /// keeps b - a (a a constant >= 0), `slice(d, -n)` n, `narrow(d, a, n)`
  /// n, `index({..., Slice(a, b), ...})` as slice.
  Quantity keptByCrop(const clang::FunctionDecl *FD,
                      const clang::CallExpr *Call, int64_t Dim);

  /// `None` / `c10::nullopt` / `{}` as an optional bound: no bound.
  static bool isNone(const clang::Expr *E);

  /// \p Kept is at most \p Rows, itself or through a std::min cap.
  bool atMostRows(const Quantity &Kept, const Quantity &Rows) const;

  /// \p Def, a definition of the tensor whose size \p Len is, keeps that
  /// size within \p Rows: a crop to at most the rows, or `c ? crop : x`
  /// where each arm is such a crop or the tensor itself taken only when c
  /// bounds its size by the rows.
  bool definitionWithinRows(const clang::FunctionDecl *FD,
                            const clang::Expr *Def, const Quantity &Len,
                            const Quantity &Rows);

  /// \p FD bounds the length \p Len by the table's \p Rows where \p Use
  /// runs: a comparison of the two in the direction that keeps Len within
  /// the rows (asserted, or an `if` that exits otherwise or holds the use),
  /// or a crop of the tensor whose size Len is to at most the rows, on
  /// every definition of it with one before the use.
  bool relatesInFunction(const clang::FunctionDecl *FD, const Quantity &Len,
                         const Quantity &Rows, const clang::Stmt *Use);

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
  bool croppedBeforeUse(const clang::FunctionDecl *FD, const Quantity &Len,
                        const Quantity &Rows, const clang::Stmt *Use,
                        llvm::ArrayRef<const clang::Expr *> Defs);

  /// Every write of parameter \p PVD in \p FD keeps its size: `x =
  /// x.to(device)`, not `idx = torch::cat({idx, next}, 1)`.
  bool keepsIncoming(const clang::FunctionDecl *FD,
                     const clang::ParmVarDecl *PVD);

  /// Every caller of \p FD in the TU bounds the tensor passed for
  /// parameter \p Param along \p Dim by \p Rows; \p Unbounded gets one that
  /// does not. With no caller in the TU, true unless NoCallerIsUnbounded
  /// (ReportParameters): a function nobody here calls is no evidence.
  bool callersBound(const clang::FunctionDecl *FD,
                    const clang::ParmVarDecl *Param, const Quantity &Hi,
                    const Quantity &Rows, const clang::CallExpr *&Unbounded,
                    unsigned Level);

  //--- Evidence ----------------------------------------------------------

  /// A loss's ignore_index: -100 unless its options give another.
  int64_t ignoreIndexOf(const clang::CallExpr *Call) const;

  /// The value \p V is outside [0, Rows).
  bool outside(const Quantity &V, const Quantity &Rows);

  /// The clamp / remainder / fmod call a guard statement writes into the
  /// index (`ids = ids.clamp(0, n)`, `ids.clamp_(0, n)`), else null.
  static const clang::CallExpr *boundingWrite(const clang::Stmt *Guard);

  /// A dominating guard of the index that lets `rows` through:
  /// `ids.max().item<int64_t>() <= rows`, `if (ids.max() > rows) throw`.
  const clang::Stmt *offByOne(const clang::Stmt *Guard, const TableSize &T,
                              const clang::FunctionDecl *FD);

  IndexEvidence fromRange(const IndexRange &R, const TableSize &T,
                          const IndexOpSite &Site, const clang::CallExpr *Call,
                          const clang::FunctionDecl *FD,
                          const clang::Stmt *Use);

  /// Every part of \p R is within [0, Rows).
  bool provedInRange(const IndexRange &R, const Quantity &Rows);

  IndexEvidence evidence(const clang::FunctionDecl *FD,
                         const clang::CallExpr *Call, const IndexOpSite &Site,
                         unsigned Level = 0);

  //--- Datasets -----------------------------------------------------------

  /// The range-for statement of \p FD whose loop variable is \p VD.
  static const clang::CXXForRangeStmt *loopOf(const clang::FunctionDecl *FD,
                                              const clang::VarDecl *VD);

  /// The user's dataset class a dataset type is, or wraps with transforms
  /// that keep the examples' values (`MapDataset<D, Stack<>>`); null for
  /// another transform, whose values the table does not know.
  static const clang::CXXRecordDecl *userDataset(clang::QualType T,
                                                 unsigned Depth = 0);

  /// The dataset a loop over a DataLoader (`for (auto &batch : *loader)`,
  /// and `for (auto &ex : batch)` over its vector batches) reads: the
  /// user's class of the loader's dataset argument.
  const clang::CXXRecordDecl *datasetOfLoop(const clang::FunctionDecl *FD,
                                            const clang::VarDecl *VD,
                                            unsigned Depth = 0);

  /// `batch.data` / `batch.target` of a loop over a DataLoader: the range of
  /// that member of the Examples the dataset's get() returns, when each
  /// return constructs one. What comes from outside the program there is
  /// the data a dataset exists to read: no evidence (an id of a data batch
  /// is no evidence by itself).
  std::optional<IndexRange> batchFieldRange(const clang::FunctionDecl *FD,
                                            const IndexVar &V);

  /// A parameter of \p FD or a member of `this` (or a field of either):
  /// values from outside the function, whose checks are about them alone.
  static bool fromOutside(const IndexVar &V, const clang::FunctionDecl *FD);

  /// \p Test compares something with the rows of \p T: one side of a
  /// comparison (`u.max().item<int64_t>() < n_users`, `(u < n_users).all()`)
  /// or the bound of a range-test call (`u.lt(n_users)`).
  bool comparesWithRows(const clang::Stmt *Test, const TableSize &T,
                        const clang::FunctionDecl *FD);

  /// The index \p V, from outside the function, is never tested, while
  /// another tensor from outside it is tested against the table's rows:
  /// the evidence, with that check.
  IndexEvidence otherTensorChecked(IndexGuardFinder &F,
                                   const clang::FunctionDecl *FD,
                                   const IndexVar &V, const TableSize &T);

  /// Some value or bound of \p R is a parameter of \p FD (plus a constant).
  static bool mentionsParameterOf(const IndexRange &R,
                                  const clang::FunctionDecl *FD);

  /// The table of \p Site as the caller of \p CS sees it: a module or a
  /// tensor that is a parameter of \p FD is the argument passed for it;
  /// otherwise \p T with its rows in the caller's terms.
  TableSize tableInCaller(const clang::FunctionDecl *FD,
                          const IndexOpSite &Site, const TableSize &T,
                          const CallSite &CS);

  static bool sameClass(const clang::FunctionDecl *A,
                        const clang::FunctionDecl *B);
};

} // namespace torchtidy

#endif
