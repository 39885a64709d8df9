//===--- FunctionContext.h - One function's CFG, shared ---------*- C++ -*-===//
//
// What the flow-sensitive analyses need of one function's body, built once
// per translation unit and shared by every analysis and check that asks:
// the CFG, each statement's position in it, its dominators, the parent map
// of the body, what its statements change (ExprMutationAnalyzer), and the
// function's analyses (analysis<T>()). Before it each
// analysis built its own CFG (with one of two option sets), so that a function
// could be built five times.
//
// The CFG has every expression as an element (AllAlwaysAdd), and the
// implicit destructors, lifetime ends and constructor initializers that
// PointerLifetime needs; the other analyses read its CFGStmt elements only.
// Positions are (block, element index) pairs: CFGStmtMap gives a statement's
// block only, and two statements in one block are ordered by their index.
//
// The contexts of a translation unit live as long as its ASTContext (they
// are freed with it), and one ASTContext is used by one thread at a time
// (clangd builds each file's AST on a thread of its own).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_FUNCTIONCONTEXT_H
#define TORCHTIDY_ANALYSIS_FUNCTIONCONTEXT_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ParentMap.h"
#include "clang/Analysis/Analyses/Dominators.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace torchtidy {

/// Where a statement is evaluated: a block of the CFG and the index of its
/// element in it.
struct CFGPoint {
  const clang::CFGBlock *Block = nullptr;
  unsigned Index = 0;
  explicit operator bool() const { return Block != nullptr; }
};

namespace detail {
/// A type-erased analysis, owned by a context.
struct AnalysisSlot {
  virtual ~AnalysisSlot() = default;
};
/// One address per analysis type.
template <typename T> const void *slotKey() {
  static const char Key = 0;
  return &Key;
}
} // namespace detail

/// One function definition's CFG and maps, each built on first use.
class FunctionContext {
public:
  FunctionContext(const clang::FunctionDecl *FD, clang::ASTContext &Ctx);
  FunctionContext(const FunctionContext &) = delete;
  FunctionContext &operator=(const FunctionContext &) = delete;
  ~FunctionContext();

  const clang::FunctionDecl *function() const { return FD; }
  /// cfg() has been asked for and built one.
  bool hasCFG() const { return Cfg != nullptr; }

  /// The CFG, or null when clang cannot build one (or the function has no
  /// body, or is dependent).
  const clang::CFG *cfg();

  /// Where \p S is evaluated; an invalid point when it is no element (the
  /// CFG splits `int a, b;` into declarations of its own: declaredAt).
  CFGPoint pointOf(const clang::Stmt *S);
  /// Where the CFG declares \p VD.
  CFGPoint declaredAt(const clang::VarDecl *VD);

  /// Block \p A dominates block \p B (a block dominates itself).
  bool dominates(const clang::CFGBlock *A, const clang::CFGBlock *B);

  /// The parent of \p S in the body (lambda bodies included, as written
  /// inside the function) or in a constructor's initializers; null at the
  /// root of one of those or outside them. A function's parent map, not the
  /// ASTContext's getParents, which walks the whole translation unit (all of
  /// <torch/torch.h>) the first time it is asked.
  const clang::Stmt *parentOf(const clang::Stmt *S);

  /// \p VD, a variable of this function, may be changed in its body after
  /// its declaration: clang's ExprMutationAnalyzer (assigned, incremented,
  /// its address taken, passed by non-const reference, a non-const member
  /// called, captured by reference...), one per function, memoized.
  bool isMutated(const clang::VarDecl *VD);

  /// What in the body changes the value of \p E, one expression of this
  /// function (a reference to a variable where it is written): the
  /// ExprMutationAnalyzer's statement for that one occurrence, through the
  /// references and pointers bound to it, or the call that takes it by
  /// non-const reference, also through a forwarding reference whose callee
  /// does not change it (the analyzer's answer there depends on whether the
  /// frontend parsed the callee's body); null if nothing does.
  const clang::Stmt *mutationOf(const clang::Expr *E);

  /// Some reference to \p VD inside \p Within, a statement of this
  /// function, changes it (mutationOf each one): a loop body that writes
  /// its loop's counter. The writes of \p VD outside \p Within, and those
  /// of the statements \p Except (the ones the caller already knows of),
  /// do not count.
  bool isMutatedIn(const clang::VarDecl *VD, const clang::Stmt *Within,
                   llvm::ArrayRef<const clang::Stmt *> Except = {});

  /// This function's analysis \p T (constructible from the function and the
  /// ASTContext), made on first use and shared by every check that asks,
  /// as MLIR's AnalysisManager keeps one of each analysis per operation.
  template <typename T> T &analysis() {
    const void *Key = detail::slotKey<T>();
    if (auto It = Analyses.find(Key); It != Analyses.end())
      return static_cast<AnalysisOf<T> &>(*It->second).Value;
    // Made before it goes into the map: T may ask for another analysis.
    auto Made = std::make_unique<AnalysisOf<T>>(FD, Ctx);
    T &Value = Made->Value;
    Analyses.try_emplace(Key, std::move(Made));
    return Value;
  }

private:
  template <typename T> struct AnalysisOf final : detail::AnalysisSlot {
    AnalysisOf(const clang::FunctionDecl *FD, clang::ASTContext &Ctx)
        : Value(FD, Ctx) {}
    T Value;
  };

  /// The body's ExprMutationAnalyzer, made on first use (null without a
  /// body).
  clang::ExprMutationAnalyzer *mutations();

  const clang::FunctionDecl *FD;
  clang::ASTContext &Ctx;
  bool CfgTried = false;
  std::unique_ptr<clang::CFG> Cfg;
  llvm::DenseMap<const clang::Stmt *, CFGPoint> Where;
  llvm::DenseMap<const clang::VarDecl *, CFGPoint> Declared;
  std::optional<clang::CFGDomTree> DomTree;
  std::unique_ptr<clang::ParentMap> Parents;
  std::unique_ptr<clang::ExprMutationAnalyzer> Mutations;
  /// Last, so that the analyses go before the CFG they point into.
  llvm::DenseMap<const void *, std::unique_ptr<detail::AnalysisSlot>> Analyses;
};

/// A call in a user function's own statements (a kernel launch, an
/// operator or member call included) and the function that makes it.
struct CallSite {
  const clang::CallExpr *Call;
  const clang::FunctionDecl *Caller;
};

/// The function contexts of one translation unit.
class FunctionContexts {
public:
  /// The contexts of \p Ctx's translation unit, made on first use and freed
  /// with \p Ctx.
  static FunctionContexts &of(clang::ASTContext &Ctx);

  /// \p FD's context (its definition's, where \p FD is a declaration);
  /// null when \p FD has no body.
  FunctionContext *get(const clang::FunctionDecl *FD);

  /// How many contexts have built their CFG (for tests).
  unsigned builtCFGs() const;

  /// The user function definitions that forEachUserFunction visits, in its
  /// order: one walk of the translation unit (or of its traversal scope),
  /// made on first use and shared by every analysis and check that asks;
  /// walked again only when the traversal scope has changed since.
  const std::vector<const clang::FunctionDecl *> &userFunctions();
  /// How many walks userFunctions has made (for tests).
  unsigned userFunctionWalks() const { return UserFunctionWalks; }

  /// Every call in the user functions' own statements (forEachOwnStmt of
  /// each of userFunctions, in their order): the one call-site index that
  /// the analyses' caller maps are made from. Built on first use, again
  /// after userFunctions walks again.
  const std::vector<CallSite> &callSites();

  /// The translation unit's analysis \p T for \p Config (T constructible
  /// from the ASTContext and a ConfigT, ConfigT comparable with ==): one per
  /// configuration, shared by every check that asks with an equal one.
  template <typename T, typename ConfigT> T &analysis(const ConfigT &Config) {
    using Of = TUAnalysisOf<T, ConfigT>;
    const void *Key = detail::slotKey<Of>();
    for (const auto &[SlotKey, Slot] : TUAnalyses)
      if (SlotKey == Key && static_cast<Of &>(*Slot).Config == Config)
        return static_cast<Of &>(*Slot).Value;
    TUAnalyses.emplace_back(Key, std::make_unique<Of>(Ctx, Config));
    return static_cast<Of &>(*TUAnalyses.back().second).Value;
  }

  /// The translation unit's analysis \p T that has no configuration (T
  /// constructible from the ASTContext alone): one, shared by every check
  /// and analysis that asks.
  template <typename T> T &analysis() { return analysis<T>(NoConfig{}); }

private:
  /// The configuration of an analysis that has none.
  struct NoConfig {
    bool operator==(const NoConfig &) const { return true; }
  };

  template <typename T, typename ConfigT>
  struct TUAnalysisOf final : detail::AnalysisSlot {
    TUAnalysisOf(clang::ASTContext &Ctx, const ConfigT &Config)
        : Config(Config), Value(make(Ctx, Config)) {}
    // A prvalue, so T need not be movable.
    static T make(clang::ASTContext &Ctx, const ConfigT &Config) {
      if constexpr (std::is_same_v<ConfigT, NoConfig>)
        return T(Ctx);
      else
        return T(Ctx, Config);
    }
    ConfigT Config;
    T Value;
  };

  explicit FunctionContexts(clang::ASTContext &Ctx) : Ctx(Ctx) {}
  clang::ASTContext &Ctx;
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<FunctionContext>>
      Contexts;
  std::optional<std::vector<const clang::FunctionDecl *>> UserFunctions;
  /// The traversal scope UserFunctions was walked in.
  std::vector<clang::Decl *> UserFunctionsScope;
  unsigned UserFunctionWalks = 0;
  std::optional<std::vector<CallSite>> CallSites;
  /// The userFunctions walk CallSites was made from.
  unsigned CallSitesWalk = 0;
  /// Last, so that they go before the function contexts they point into.
  std::vector<std::pair<const void *, std::unique_ptr<detail::AnalysisSlot>>>
      TUAnalyses;
};

} // namespace torchtidy

#endif // TORCHTIDY_ANALYSIS_FUNCTIONCONTEXT_H
