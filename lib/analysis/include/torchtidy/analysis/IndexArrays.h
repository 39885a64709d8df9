//===--- IndexArrays.h - Index arrays and index values in range -*- C++ -*-===//
//
// What kernel code and the host code around it tell about index values:
// where a device access is rooted, which values cannot be negative, and
// which index arrays host code makes with every value in an index range
// (a permutation of an arange, a counting fill that Thrust sorts).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_INDEXARRAYS_H
#define TORCHTIDY_ANALYSIS_INDEXARRAYS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/StringRef.h"

#include <memory>

namespace torchtidy {

class IndexGuardAnalysis;

/// The declaration \p E is rooted at: `p`, `p + i`, `&p[i]`, `info.data`,
/// `acc[i]` (an accessor's operator[]) -> p / info / acc.
const clang::ValueDecl *rootOf(const clang::Expr *E);

/// \p E cannot be negative: a value of unsigned type, a constant >= 0, a
/// conversion that keeps such a value (an unsigned value into a wider
/// signed type, or one below the signed type's limit), a sum, product,
/// quotient or remainder of such values, or a call of a function of the
/// user's code whose every return value is such a value.
bool nonNegative(const clang::Expr *E, const clang::ASTContext &Ctx,
                 unsigned Depth = 0);

/// \p Root is or holds \p Target.
bool containsStmt(const clang::Stmt *Root, const clang::Stmt *Target);

/// Index arrays that host code makes with values kept in an index range:
/// a local made by an index producer of the op table (arange, randperm,
/// argsort...) or a tensor filled over its whole length from a counting
/// iterator that starts at a constant >= 0 (`thrust::copy(count, count + n,
/// p)`, `thrust::sequence(p, p + n)`), whose storage is afterwards only
/// permuted by Thrust's sorts, read by its shape, and passed to kernels
/// that never write through that parameter; or a call of a function of the
/// user's code whose every return value is such a local. Every use of the
/// tensor and of the pointers made from its storage must be one of these,
/// else nothing is known. One per translation unit (answers are cached).
class IndexArrayProof {
public:
  IndexArrayProof(clang::ASTContext &Ctx, IndexGuardAnalysis &Guards);
  ~IndexArrayProof();
  IndexArrayProof(const IndexArrayProof &) = delete;
  IndexArrayProof &operator=(const IndexArrayProof &) = delete;

  /// \p Tensor, an expression of host code used by \p At (a launch, a
  /// call), holds such an index array there. What \p At itself does with
  /// the tensor is the caller's to judge (kernelOnlyReads for a launch).
  bool holds(const clang::Expr *Tensor, const clang::Stmt *At);

  class Impl;

private:
  std::unique_ptr<Impl> P;
};

/// Kernel \p K never writes through its parameter \p I (a pointer or an
/// accessor), nor hands it to another function or takes an alias of it.
/// A walk of its own, not FunctionContext's ExprMutationAnalyzer: what is
/// asked is whether the memory the parameter points to is written, and
/// LLVM 19's analyzer answers that for no pointer (isPointeeMutated is
/// there but finds nothing; LLVM 20 filled it in), while the whole-value
/// question calls every `acc[i]` of a non-const accessor a mutation (the
/// non-const operator[] is chosen for a read too).
bool kernelOnlyReads(const clang::FunctionDecl *K, unsigned I);

} // namespace torchtidy

#endif
