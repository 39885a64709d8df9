//===--- IndexGuards.h - Is an index tensor bounded where it is used? -*- C++
//-*-===//
//
// Answers, for an index tensor used at a statement of a function, "where do
// its values come from, and is it bounds-checked on every path before this
// use?". Sources are classified as safe (argmax/topk/sort/nonzero/
// multinomial/randperm, randint, arange, clamp with both bounds (the lower
// one >= 0), remainder, literal ids) or unsafe (parameters, members, globals,
// fields of a data batch, results of calls that do not produce indices). A use
// is guarded when a guard on the same variable dominates it in the function's
// CFG, with no write to the variable in between: TORCH_CHECK /
// TORCH_INTERNAL_ASSERT / assert / `if (...) throw|return` on its max(), min()
// or a comparison, TORCHTIDY_CHECK_INDEX, an in-place clamp_, an assignment of
// a safe value, a call to a function of the translation unit whose body guards
// that parameter on every normal return, or a call to a configured guard
// function.
//
// Dominance is clang's CFGDomTree over a CFG with every expression an
// element, both the function's FunctionContext (shared with the other
// analyses). Positions are (block, element index) pairs: a guard and its use
// in one block are ordered by their index in it.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_INDEXGUARDS_H
#define TORCHTIDY_ANALYSIS_INDEXGUARDS_H

#include "torchtidy/analysis/TorchOps.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace torchtidy {

/// A tensor as guards and uses name it: a local, parameter or global
/// (`ids`), a data member of `this` (`ids_`), or a field of a variable
/// (`batch.target`).
struct IndexVar {
  /// The variable; null for a member of `this`.
  const clang::ValueDecl *Base = nullptr;
  /// The field read from Base (or from `this`), else null.
  const clang::FieldDecl *Field = nullptr;

  bool operator==(const IndexVar &O) const {
    return Base == O.Base && Field == O.Field;
  }
  /// A write to \p Written changes this variable: the same variable, or the
  /// whole of the variable this is a field of.
  bool isChangedBy(const IndexVar &Written) const {
    return *this == Written || (!Written.Field && Written.Base == Base);
  }
};

/// The variable \p E reads, exactly (`ids`, `this->ids_`, `batch.target`),
/// looking only through implicit nodes and copies.
std::optional<IndexVar> directVariable(const clang::Expr *E);

/// The innermost expression of \p E past ops that keep its values
/// (`ids.to(device).view({-1})` -> `ids`): to, cuda, cpu, view, reshape,
/// flatten, squeeze, unsqueeze, contiguous, clone, detach, t, expand, and
/// std::move.
const clang::Expr *stripValuePreserving(const clang::Expr *E);

/// The variable whose values \p E carries, through value-preserving ops.
std::optional<IndexVar> indexVariable(const clang::Expr *E);

/// Where the values of an index come from, at one use.
struct IndexOrigin {
  enum Kind {
    Safe,    ///< guarded, or in range by construction
    Unsafe,  ///< from outside the function, unguarded
    Unknown, ///< not analysed (captured variable, out-parameter, ...)
  } K = Unknown;
  enum Reason {
    None,
    Guarded,    ///< a guard dominates the use; Evidence is the guard
    Producer,   ///< argmax, topk, randint, ...; Evidence is the call
    Bounded,    ///< clamp / remainder / fmod with a bound
    Literal,    ///< torch::tensor({1, 2, 3}); Evidence is that call
    Parameter,  ///< Decl is the parameter
    Member,     ///< Decl is the field
    Global,     ///< Decl is the variable
    BatchField, ///< `batch.target`; Evidence is the member expression
    CallResult, ///< the result of a call that does not produce indices
    Element,    ///< an element of a container (a range-for variable)
    Computed,   ///< arithmetic or another op on tensors
  } Why = None;
  const clang::Decl *Decl = nullptr;
  const clang::Stmt *Evidence = nullptr;
  /// The callee for CallResult / Computed / Producer ("load_ids", "operator+").
  std::string Callee;
};

/// The integer ids of `torch::tensor({...})` when every element is a
/// constant, with the expression of each; else nothing.
std::optional<std::vector<std::pair<int64_t, const clang::Expr *>>>
literalIds(const clang::CallExpr *TensorCall, const clang::ASTContext &Ctx);

/// The number of rows of the embedding that \p ModuleExpr names, when the
/// code states it as a constant: a local `torch::nn::Embedding emb(100, 64)`,
/// or a member every write of which constructs one with the same size. The
/// second element is the constructing expression.
std::optional<std::pair<int64_t, const clang::Expr *>>
embeddingRows(const clang::Expr *ModuleExpr, clang::ASTContext &Ctx);

struct IndexGuardConfig {
  /// Functions that validate their tensor arguments' range: a name with
  /// `::` is compared with the qualified name (leading `::` ignored),
  /// otherwise with the plain name.
  std::vector<std::string> GuardFunctions;
  /// How deep helper functions are followed (a helper calling a helper).
  unsigned MaxHelperDepth = 3;

  bool operator==(const IndexGuardConfig &O) const {
    return GuardFunctions == O.GuardFunctions &&
           MaxHelperDepth == O.MaxHelperDepth;
  }
};

/// The guard configuration libtorch-unchecked-index analyses a translation
/// unit with (FunctionContexts::analysis<IndexGuardOptions>()): the check
/// records its own there, and the unit's project summary makes its index
/// facts with the same (one guard analysis for both), so that an index a
/// configured guard function checks in this unit is not said to go
/// unchecked to another file's check. The default configuration until the
/// check records one.
struct IndexGuardOptions {
  explicit IndexGuardOptions(clang::ASTContext &) {}
  IndexGuardConfig Config;
};

class IndexGuardAnalysis;

/// The guard analysis of one function: its CFG (with every expression an
/// element), dominator tree, writes and guards are built once, on first use.
class IndexGuardFinder {
public:
  IndexGuardFinder(const clang::FunctionDecl *FD, IndexGuardAnalysis &Owner,
                   unsigned Depth);
  ~IndexGuardFinder();
  IndexGuardFinder(const IndexGuardFinder &) = delete;
  IndexGuardFinder &operator=(const IndexGuardFinder &) = delete;

  /// False when the function has no body or clang could not build its CFG.
  bool valid() const;

  /// The origin of the values of \p Index where \p Use (a statement of this
  /// function that contains or is the use) evaluates it.
  IndexOrigin classify(const clang::Expr *Index, const clang::Stmt *Use);

  /// The guard on \p V that dominates \p Use with no write in between, else
  /// null.
  const clang::Stmt *findGuard(const IndexVar &V, const clang::Stmt *Use);

  /// Every normal return of the function is guarded on parameter \p Index.
  bool guardsParameter(unsigned Index);

  /// The values given to the local (or parameter) \p D in this function:
  /// its initialiser and the right-hand sides of plain assignments.
  std::vector<const clang::Expr *> definitionsOf(const clang::ValueDecl *D);

  /// The definitions of the local \p D (of definitionsOf) whose value can
  /// reach \p Use: some path leads from the definition to the use with no
  /// other write of \p D on it (`dim3 grid; if (c) grid = a; else grid = b;`
  /// gives a and b at a use after the `if`).
  std::vector<const clang::Expr *>
  reachingDefinitionsOf(const clang::ValueDecl *D, const clang::Stmt *Use);

  /// The statements that write \p V: assignments, in-place ops, and
  /// non-const references passed to functions outside LibTorch.
  std::vector<const clang::Stmt *> writesOf(const IndexVar &V);

  /// The statements that test \p V's range (guards, and the conditions of
  /// branches on it), whether or not they dominate a use.
  std::vector<const clang::Stmt *> rangeTestsOf(const IndexVar &V);

  /// The variables some statement of the function tests the range of
  /// (those rangeTestsOf finds a test for), in source order of a test.
  std::vector<IndexVar> testedVariables();

  /// \p A is evaluated before \p B on every path to B.
  bool dominates(const clang::Stmt *A, const clang::Stmt *B);

  /// The function analysed.
  const clang::FunctionDecl *function() const;

  struct Impl;

private:
  std::unique_ptr<Impl> P;
};

/// The analyses of one translation unit: one finder per function and helper
/// depth, and the memo of which helper functions guard which parameters at
/// which depth, so that every answer is the same whatever was asked before
/// (the checks share one analysis per configuration:
/// FunctionContexts::analysis<IndexGuardAnalysis>(Config)).
class IndexGuardAnalysis {
public:
  IndexGuardAnalysis(clang::ASTContext &Ctx, IndexGuardConfig Config);
  ~IndexGuardAnalysis();

  /// The finder of \p FD (built at most once), at depth 0.
  IndexGuardFinder &finder(const clang::FunctionDecl *FD);

  /// A call to \p Callee guards its argument \p Param: a configured guard
  /// function, or a function defined in this translation unit whose body
  /// guards that parameter.
  bool callGuardsArgument(const clang::FunctionDecl *Callee, unsigned Param,
                          unsigned Depth);

  clang::ASTContext &context() { return Ctx; }
  const IndexGuardConfig &config() const { return Config; }

private:
  clang::ASTContext &Ctx;
  IndexGuardConfig Config;
  /// A finder at depth d follows helpers MaxHelperDepth - d levels down at
  /// most: one per (function, depth).
  std::map<std::pair<const clang::FunctionDecl *, unsigned>,
           std::unique_ptr<IndexGuardFinder>>
      Finders;
  std::map<std::tuple<const clang::FunctionDecl *, unsigned, unsigned>, bool>
      HelperMemo;
};

/// `v[i]`, `v.at(i)`, `v.front()` (a ContainerAccess member of the op table,
/// or `[]` on what is not a tensor) -> `v`: the container \p Call reads an
/// element of; null when \p Call is no such access.
const clang::Expr *containerOfElement(const clang::CallExpr *Call);

/// `ids.split(n)[0]`, `ids.chunk(2).at(1)`, `torch::split(ids, n)[0]` ->
/// `ids`: the tensor an element of a split's pieces comes from (a subset of
/// its values); null when \p Call is not such an element.
const clang::Expr *wholeOfSplitPiece(const clang::CallExpr *Call);

/// `ids.to(device)` -> `ids`, `std::move(ids)` -> `ids`: the operand of an
/// op that keeps its values as they are (PassesThrough, a ValuePreserving
/// tensor method); null for any other expression.
const clang::Expr *valuePreservingOperand(const clang::Expr *E);

/// clamp(min, max) with min a constant >= 0, remainder(n): the result of
/// \p Call (whose op facts are \p Facts) is bounded (whether within a
/// table's rows is IndexRanges' to say). Not fmod(n): it keeps the sign of
/// what it divides.
bool isBoundingCall(const clang::CallExpr *Call, op::FactSet Facts);

} // namespace torchtidy

#endif
