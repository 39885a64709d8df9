//===--- IndexRanges.h - Can an index leave its table? ----------*- C++ -*-===//
//
// Evidence that an index can be out of range of the table it reads, as
// libtorch-unchecked-index reports it: never the mere absence of a guard.
//
// An index's values get a range, [Lo, Hi) in symbolic quantities
// (`arange(T)` is [0, T), `randint(1, n + 1)` is [1, n + 1)), or a set of
// constants (literal ids, a sentinel written with full/fill_/masked_fill),
// or "from outside the program" (parsed with std::stoi, read with fread,
// loaded with torch::load). A table gets a number of rows: a constant, a
// quantity fixed when the module was built (`Embedding(cfg.block_size, d)`,
// a constructor argument, a member), or the size of a tensor. A quantity is
// a constant, a named value (a parameter, a member, a field of a config
// struct), or a runtime size (`x.size(1)`, `tokens.size()`), plus an
// offset; a constructor argument is the member it initialises.
//
// Evidence is one of:
//  - a constant id outside [0, rows) (a literal, or a sentinel: negative, or
//    the table's own size);
//  - a range whose lower end is a negative constant (`t - 1` of `t` in
//    [0, T)), or whose upper end passes the rows by a constant
//    (`randint(0, T + 2)` into T + 1 rows);
//  - a range bounded by a runtime size into a table of fixed rows, with no
//    comparison bounding it by the rows, cap or crop to the rows in the
//    function or in every caller of it in the translation unit (the
//    position-embedding overflow: `Embedding(block_size, d)` read at
//    `arange(x.size(1))`); a function with no caller there is no evidence
//    unless asked;
//  - values from outside the program with no bounds check on the way,
//    also returned by a helper (a tensor, or a vector of integers it
//    parses into), and with a project run by a function of another file
//    whose summary says so (ProjectSummaries.h); also passed to a function
//    whose parameter reaches an index unchecked (indexedParams), of this
//    file or, through its summary, of another;
//  - a bounds check of the index that does not protect the use (it does not
//    dominate it) or that is off by one (`max() <= rows`).
// Indices made by producers (argmax, topk, sort, nonzero, multinomial...),
// parameters without evidence, members, dataset fields and results of
// unknown calls have no evidence.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_INDEXRANGES_H
#define TORCHTIDY_ANALYSIS_INDEXRANGES_H

#include "torchtidy/analysis/IndexGuards.h"
#include "torchtidy/analysis/TorchOps.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace torchtidy {

struct FunctionSummary; // ProjectSummaries.h
struct SummaryRows;     // ProjectSummaries.h

/// A symbolic integer: Base + Offset.
struct Quantity {
  enum Kind : uint8_t {
    Unknown,
    Constant, ///< Offset alone
    Named,    ///< a parameter, a local, a member, or a field of one
    Runtime,  ///< the size of a tensor or container at run time
  } K = Unknown;
  int64_t Offset = 0;
  /// Named: the variable (null for a member of `this`) and the field read
  /// from it (or from `this`). Runtime: the tensor or container, and Field
  /// for a member of `this`.
  const clang::ValueDecl *Base = nullptr;
  const clang::FieldDecl *Field = nullptr;
  /// Runtime: the dim of `x.size(d)`, or a container's size().
  int64_t Dim = 0;
  bool Container = false;
  /// Where the quantity is written (for notes); its text is shown.
  const clang::Expr *Origin = nullptr;
  /// std::min(a, b): the other bounds this one is capped by.
  std::vector<Quantity> CappedBy;

  static Quantity constant(int64_t V, const clang::Expr *At) {
    Quantity Q;
    Q.K = Constant;
    Q.Offset = V;
    Q.Origin = At;
    return Q;
  }
  bool known() const { return K != Unknown; }
  /// Same base (not counting the offsets).
  bool sameBase(const Quantity &O) const;
};

/// What is known of the values an index can hold where it is used. The
/// parts are what some path gives: a join keeps every part, since each is
/// possible.
struct IndexRange {
  /// Some path gives indices in range by construction (argmax, topk,
  /// clamp, a bounds check).
  bool Produced = false;
  /// Some path gives [Lo, Hi); Interval is the call that makes it (arange,
  /// randint, randperm).
  bool HasInterval = false;
  Quantity Lo, Hi;
  const clang::Expr *Interval = nullptr;
  /// The constant added to the interval since the call that made it
  /// (`t - 1`: -1).
  int64_t Shift = 0;
  /// The loop condition that bounds a loop variable's interval (`t <
  /// steps`): it relates the variable to the length, not the length to the
  /// table.
  const clang::Expr *LoopCondition = nullptr;
  /// The interval is what an op guarantees of its result (clamp, remainder,
  /// fmod, searchsorted), not a length: it is no evidence of an unbounded
  /// length.
  bool OpBound = false;
  /// Values some path writes: literal ids, or sentinels (full, fill_,
  /// masked_fill), each with where it is written.
  llvm::SmallVector<std::pair<Quantity, const clang::Expr *>, 2> Values;
  bool Sentinel = false;
  /// Some path's values come from outside the program: where they enter,
  /// and how ("std::stoi", "torch::load", ...).
  const clang::Expr *External = nullptr;
  std::string How;
  /// External is a call of a function of another file whose project
  /// summary says its values come from outside (its OutsideValues fact).
  std::shared_ptr<const FunctionSummary> ExternalSummary;
  /// Some path is not understood (a parameter, a member, an unknown call).
  bool Opaque = false;
  /// Some path's values are those of these parameters of the function (a
  /// tensor, or a container of integers): unknown here (Opaque is set too),
  /// the callers' to say (IndexRangeAnalysis::indexedParams).
  llvm::SmallVector<const clang::ParmVarDecl *, 1> Params;

  static IndexRange opaque() {
    IndexRange R;
    R.Opaque = true;
    return R;
  }
  static IndexRange produced() {
    IndexRange R;
    R.Produced = true;
    return R;
  }
  /// The union of what two paths give.
  void join(const IndexRange &O);
};

/// The number of rows (or the size along the indexed dim) of a sink's table.
struct TableSize {
  Quantity Rows;
  /// The rows, also when known only at run time (`x.size(0)` of the tensor
  /// indexed): what an index is shown in range of.
  Quantity Size;
  /// Where the table is made (the Embedding's construction, the factory).
  const clang::Expr *MadeAt = nullptr;
};

/// Why an index can leave its table.
struct IndexEvidence {
  enum Kind : uint8_t {
    None,
    ConstantOutOfRange, ///< Value (literal or sentinel) outside [0, rows)
    NegativeStart,      ///< the range starts at a negative constant
    PastTheEnd,         ///< the range ends past the rows by a constant
    UnboundedLength,    ///< a runtime size indexes a table of fixed rows
    External,           ///< data from outside the program
    IneffectiveGuard,   ///< a bounds check that does not protect the use
    OffByOneGuard,      ///< a bounds check that lets `rows` through
  } K = None;
  IndexRange Range;
  TableSize Table;
  /// ConstantOutOfRange: the value (a constant, or the table's own size)
  /// and where it is written.
  Quantity Value;
  const clang::Expr *ValueAt = nullptr;
  /// The guard, for the two guard kinds.
  const clang::Stmt *Guard = nullptr;
  /// IneffectiveGuard: why the check does not protect the use.
  enum GuardProblem : uint8_t {
    AfterTheUse,  ///< it comes after the use
    SomePaths,    ///< it is not on every path to the use
    WrittenAfter, ///< the index is written again between the two
    /// it tests another tensor against the table's rows (TestedInstead)
    OtherTensor,
  } Problem = SomePaths;
  /// OtherTensor: the parameter or member the check tests instead.
  const clang::NamedDecl *TestedInstead = nullptr;
  /// Evidence found in a caller: the call that passes the index (the
  /// finding is reported there) and its function.
  const clang::CallExpr *Caller = nullptr;
  /// UnboundedLength through a parameter: a caller that passes an
  /// unbounded tensor, if one was seen.
  const clang::CallExpr *UnboundedCaller = nullptr;

  /// None, and every value the index can hold is shown to be in range
  /// (a range within the rows, constants within them, producers).
  bool InRange = false;
  /// None, the index's values are bounded by an op (clamp, remainder...)
  /// and the table's size is known, but the bound is not shown within it:
  /// ReportParameters reports the site.
  bool Unproven = false;

  explicit operator bool() const { return K != None; }
};

/// Values from outside the program (parsed, read, loaded): where they enter
/// and how ("std::stoll", "torch::load"); through a function of another
/// file, the call of it and its project summary.
struct OutsideValues {
  const clang::Expr *At = nullptr;
  std::string How;
  std::shared_ptr<const FunctionSummary> Summary;
};

/// A parameter of a function whose values reach an index op's index with
/// no bounds check on the way: in the function itself, or through the
/// functions of its translation unit it calls (Via, the calls in order).
struct IndexedParam {
  unsigned Param = 0;
  const clang::CallExpr *Sink = nullptr;
  IndexOpSite Site;
  llvm::SmallVector<const clang::CallExpr *, 2> Via;
};

/// A tensor parameter of a function whose size along Dim (plus Offset) is
/// where an index made from it ends (`torch::arange(x.size(1))`), into a
/// table of fixed rows (a constant, or members of the object) that nothing
/// in the function relates the length to; an index that a bounds check
/// guards, a length the function changes (`cat`) or caps, are not listed.
/// A caller that passes a tensor whose length grows without bound is then
/// the evidence (kind 2, the position-embedding overflow).
struct LengthParam {
  unsigned Param = 0;
  int64_t Dim = 0;
  int64_t Offset = 0;
  const clang::CallExpr *Sink = nullptr;
  IndexOpSite Site;
  /// The call that makes the index from the length (arange, randint...).
  const clang::Expr *Made = nullptr;
  TableSize Table;
};

/// A tensor whose length grows in a loop: `idx = torch::cat({idx, next},
/// 1)` inside a loop, the variable and the dim it grows along.
struct GrowingLength {
  const clang::CallExpr *Cat = nullptr;
  const clang::ValueDecl *Var = nullptr;
  int64_t Dim = 0;
};

/// The evidence analysis of one translation unit: it owns the guard
/// analysis it builds on and memoises per-function facts.
class IndexRangeAnalysis {
public:
  /// \p NoCallerIsUnbounded (ReportParameters): a length that a parameter
  /// gives, in a function with no caller in the TU, counts as unbounded;
  /// by default a function nobody here calls is no evidence. With
  /// \p FollowSummaries, a call of a function of another file asks the
  /// project's summaries (ProjectSummaries.h) what it returns; without, it
  /// gives unknown values (a summary is made of one unit alone).
  IndexRangeAnalysis(clang::ASTContext &Ctx, IndexGuardAnalysis &Guards,
                     bool NoCallerIsUnbounded = false,
                     bool FollowSummaries = true);
  ~IndexRangeAnalysis();

  /// The evidence that the index of \p Site, a call \p Call in function
  /// \p FD, can leave its table; None when there is none. A loss target
  /// may hold the loss's ignore_index (-100 unless its options say).
  IndexEvidence evidence(const clang::FunctionDecl *FD,
                         const clang::CallExpr *Call, const IndexOpSite &Site);

  /// The range of \p E evaluated at \p Use in \p FD (for tests).
  IndexRange rangeOf(const clang::FunctionDecl *FD, const clang::Expr *E,
                     const clang::Stmt *Use);
  /// The quantity \p E denotes in \p FD (for tests).
  Quantity quantityOf(const clang::FunctionDecl *FD, const clang::Expr *E);
  /// The size of the table \p Site reads (for tests).
  TableSize tableOf(const clang::FunctionDecl *FD, const IndexOpSite &Site);

  /// Whether what \p FD (a definition) returns comes from outside the
  /// program on some path: a tensor whose range says so, or a vector of
  /// integers it fills by parsing or reading (the summary's OutsideValues).
  std::optional<OutsideValues>
  returnedOutsideValues(const clang::FunctionDecl *FD);

  /// The parameters of \p FD (a definition) whose values reach an index
  /// op with no bounds check of them on the way: the index itself, ids
  /// made of it (`torch::tensor(v)`, a tensor it is written into), through
  /// functions of this unit it is passed to (three calls deep). A
  /// parameter that a check relates to the table (any bounds check of the
  /// index) is not listed; one list per function, memoised.
  llvm::ArrayRef<IndexedParam> indexedParams(const clang::FunctionDecl *FD);

  /// Whether argument \p Arg of \p Call in \p FD holds values from outside
  /// the program (a tensor or a container of integers parsed, read or
  /// loaded) with no bounds check of them before the call.
  std::optional<OutsideValues> outsideArgument(const clang::FunctionDecl *FD,
                                               const clang::CallExpr *Call,
                                               const clang::Expr *Arg);

  /// The parameters of \p FD (a definition) whose length is the end of an
  /// index into a table of fixed rows with nothing in \p FD relating the
  /// two (LengthParam), in its own body; memoised.
  llvm::ArrayRef<LengthParam> lengthParams(const clang::FunctionDecl *FD);

  /// \p Table's rows, read by \p FD, as a caller in another file can name
  /// them (ProjectSummaries.h's SummaryRows, without its text and place):
  /// a constant; members of FD's object, with the constructor parameters
  /// that set them; a constructor parameter itself.
  SummaryRows summaryRows(const clang::FunctionDecl *FD,
                          const TableSize &Table);

  /// The rows as a project summary gives them (ProjectSummaries.h), in the
  /// terms of \p FD at \p Call, a call of the function the summary is of:
  /// a constant; the members, when \p Call is on `this` in a method of
  /// their class; the argument of the constructor parameter that sets
  /// them, when the object \p Call is on is a local that \p FD constructs
  /// (`Gpt model(cfg)`, `auto m = std::make_shared<GptImpl>(cfg)`).
  /// Nothing when \p FD cannot name them.
  std::optional<Quantity> rowsAtCall(const clang::FunctionDecl *FD,
                                     const clang::CallExpr *Call,
                                     const SummaryRows &Rows);

  /// \p Arg of \p Call in \p FD is a variable whose length grows in a loop
  /// of \p FD: a definition of it, in a loop, concatenates it with more
  /// (`idx = torch::cat({idx, next}, 1)`).
  std::optional<GrowingLength> growingArgument(const clang::FunctionDecl *FD,
                                               const clang::Expr *Arg);

  /// \p FD bounds the length \p G of the argument at \p Call, plus
  /// \p Offset, by \p Rows (relatesInFunction: a comparison, a cap, a crop
  /// to the rows before the call). Without \p Rows (\p FD cannot name
  /// them), a bound of the length by anything (a comparison with any
  /// quantity, a crop, a loop condition that compares it) is no evidence
  /// either way, and counts.
  bool lengthBoundAtCall(const clang::FunctionDecl *FD,
                         const clang::CallExpr *Call, const GrowingLength &G,
                         int64_t Offset, const std::optional<Quantity> &Rows);

  struct Impl;

private:
  std::unique_ptr<Impl> P;
};

/// "T", "x.size(1)", "block_size_ + 1", "100": a quantity as a message
/// shows it, with \p Delta added. A named value is shown by its name (a
/// member by the member's), a size at run time as the code writes it.
std::string describeQuantity(const Quantity &Q, const clang::ASTContext &Ctx,
                             int64_t Delta = 0);

} // namespace torchtidy

#endif
