//===--- PointerLifetimeImpl.h - PointerLifetime's inside -------*- C++ -*-===//
//
// The analysis behind PointerLifetime.h in two files:
//   PointerFlow.cpp      where values go: what a raw pointer or a from_blob
//                        tensor is stored in, returned as or passed to;
//   PointerLifetime.cpp  the helpers below, the function's statements and
//                        CFG, the dangling pointers and escaping blobs, and
//                        the public class.
// Private to lib/analysis.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_SRC_POINTERLIFETIMEIMPL_H
#define TORCHTIDY_ANALYSIS_SRC_POINTERLIFETIMEIMPL_H

#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/PointerLifetime.h"

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <vector>

namespace torchtidy {

/// The analysis' helpers (PointerLifetime.cpp), in a namespace of their
/// own so that their plain names stay out of torchtidy's.
namespace lifetime {

bool isTensor(clang::QualType T);

/// A place in the CFG: element I of block B.
struct Pos {
  const clang::CFGBlock *B = nullptr;
  unsigned I = 0;
};

/// What the value carried up the expression tree is.
enum class Carried { Pointer, Tensor };

/// The same value, seen through what the AST wraps it in.
bool sameValue(const clang::Expr *A, const clang::Expr *B);

const clang::Expr *assignmentLHS(const clang::Stmt *S,
                                 const clang::Expr **RHS = nullptr);

/// \p S writes variable \p V as a whole (an assignment, or the declaration
/// itself reached again in a loop); the value written in *RHS.
bool definesVar(const clang::Stmt *S, const clang::ValueDecl *V,
                const clang::Expr **RHS);

/// The variable whose lifetime ends at \p E (its scope's end or its
/// destructor), if \p E is such an element.
const clang::VarDecl *lifetimeEnd(const clang::CFGElement &E,
                                  const clang::Stmt **Trigger);

/// A class a LibTorch program keeps tensors in: torch::data::Example, and
/// the standard library's pairs, tuples, optionals and containers.
bool holdsTensors(const clang::CXXRecordDecl *RD);

} // namespace lifetime

class PointerLifetime::Impl {
public:
  Impl(const clang::FunctionDecl *FD, clang::ASTContext &Ctx)
      : FD(FD), Ctx(Ctx), Body(FD->getBody()),
        Fn(FunctionContexts::of(Ctx).get(FD)) {
    index(Body);
    if (const auto *Ctor = llvm::dyn_cast<clang::CXXConstructorDecl>(FD))
      for (const clang::CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten() && Init->getInit()) {
          InitRoots[Init->getInit()] = Init;
          index(Init->getInit());
        }
  }

  std::vector<DanglingPointer> danglingPointers();
  std::vector<BlobEscape> blobEscapes();

  const clang::FunctionDecl *FD;
  clang::ASTContext &Ctx;
  const clang::Stmt *Body;
  std::vector<FromBlobCall> Blobs;

private:
  //===--- The function's statements ------------------------------------===//

  /// Records the statements of the function (not those of lambda bodies:
  /// functions of their own) and collects the raw-pointer calls and the
  /// from_blob calls.
  void index(const clang::Stmt *Root);

  /// The parent of a statement of the function (the function context's
  /// parent map); none for a root, or for a statement of a lambda's body,
  /// where a climb stops.
  const clang::Stmt *parent(const clang::Stmt *S) const;

  /// The full-expression statement around \p E: the expression statement,
  /// the declaration, the return.
  const clang::Stmt *statementOf(const clang::Stmt *E) const;

  /// \p DRE only names the variable it writes: the left side of an
  /// assignment, or the object of a field written (`args.ptr = p`).
  bool isWriteOnly(const clang::Expr *Ref) const;

  //===--- The CFG --------------------------------------------------------===//

  const clang::CFG *cfg();

  /// Where \p S is evaluated (a declaration: the CFG's own DeclStmt of its
  /// variable, as the CFG splits `int a, b;`).
  std::optional<lifetime::Pos> position(const clang::Stmt *S);

  /// What a walk does at one element.
  enum class Step { Continue, Stop, Advance };

  /// Walks the CFG forward from just after \p Start, in phase \p Phase (0
  /// or 1); \p Visit says whether a path goes on, ends, or enters the next
  /// phase (which it does at most once). Each block is entered once per
  /// phase.
  void walk(lifetime::Pos Start, unsigned Phase,
            llvm::function_ref<Step(const clang::CFGElement &, unsigned Phase)>
                Visit);

  //===--- Where values go ------------------------------------------------===//

  Store holderOfVar(const clang::VarDecl *VD) const;

  /// What writing to \p LHS stores into.
  Store holderOf(const clang::Expr *LHS, unsigned Depth = 0) const;

  /// A constructor argument the object keeps: a raw pointer given to a
  /// class outside the standard library (an image header that wraps it);
  /// a tensor given to a class of tensors or to a parameter of tensor type.
  bool keepsArgument(const clang::CXXConstructExpr *CE, const clang::Stmt *Arg,
                     lifetime::Carried M) const;

  /// The op \p Call certainly copies the from_blob tensor: `.cuda()` or a
  /// move to a CUDA device of host memory, a conversion to another dtype.
  bool certainlyCopies(const clang::CallExpr *Call,
                       const FromBlobCall &Blob) const;

  /// Where the value of \p E (a raw pointer, or a tensor) goes after the
  /// expression that makes it: up the tree through the wrappers, views and
  /// ops that may not copy, holders (constructors, aggregates, lambdas) and
  /// from_blob (which turns a pointer into a tensor holding it), to a store.
  Store climb(const clang::Expr *E, lifetime::Carried M,
              const FromBlobCall *Blob) const;

  /// \p RHS holds (a view of, or what may be) the tensor of \p V.
  bool derivesFrom(const clang::Expr *RHS, const clang::ValueDecl *V) const;

  /// The storage of local tensor \p T may be freed with it: every value it
  /// gets may have been freshly allocated (an op, not a copy of another
  /// tensor), and nothing else may keep its storage (copies, views kept
  /// elsewhere, calls that take it by value).
  bool ownsStorage(const clang::VarDecl *T) const;

  /// Something may keep the storage \p E (a tensor sharing it) refers to:
  /// anything but the object of an op (whose result is not a tensor, is a
  /// copy, or is itself used up) or an argument of a LibTorch function.
  bool mayKeepStorage(const clang::Expr *E, unsigned Depth) const;

  const clang::Stmt *enclosingBlock(const clang::Stmt *S) const;

  /// Every use is in \p Stmt's block, after \p Stmt.
  bool usesFollowInBlock(const clang::Stmt *Statement,
                         llvm::ArrayRef<const clang::Stmt *> Uses) const;

  bool isFreeOf(const clang::Stmt *S, const clang::VarDecl *P) const;

  /// The buffer \p Owner (a container) is handed on: std::move'd or swapped.
  bool isHandedOn(const clang::VarDecl *Owner) const;

  /// The statements index() walked: those parent() answers for.
  llvm::DenseSet<const clang::Stmt *> Indexed;
  llvm::DenseMap<const clang::Stmt *, const clang::CXXCtorInitializer *>
      InitRoots;
  std::vector<const clang::CallExpr *> RawCalls;
  /// The shared CFG and its maps (built when first asked for).
  FunctionContext *Fn = nullptr;
};

} // namespace torchtidy

#endif
