//===--- TorchOps.h - Recognise LibTorch calls by declaration ---*- C++ -*-===//
//
// Which calls are LibTorch's index ops, factories and module calls, found
// from the callee's declaration (`torch::index_select` is `at::index_select`,
// `emb(ids)` is `ModuleHolder<EmbeddingImpl>::operator()`), never from the
// spelling of the call. Shared by libtorch-unchecked-index and
// libtorch-cross-device-index.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_TORCHOPS_H
#define TORCHTIDY_ANALYSIS_TORCHOPS_H

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace torchtidy {

/// \p FD is declared in namespace `at`, `c10` or `torch` (any nesting).
bool isTorchFunction(const clang::FunctionDecl *FD);

/// \p MD is a method of `at::Tensor` (or `at::TensorBase`).
bool isTensorMethod(const clang::CXXMethodDecl *MD);

/// The name of the LibTorch function or Tensor method \p Call calls, or ""
/// when it calls something else.
llvm::StringRef torchCalleeName(const clang::CallExpr *Call);

/// An op that reads a tensor at positions given by an index tensor.
struct IndexOpSite {
  enum Kind {
    IndexSelect,  ///< index_select
    Gather,       ///< gather, take_along_dim
    Scatter,      ///< scatter, scatter_, scatter_add, scatter_add_
    IndexUpdate,  ///< index_add(_), index_copy(_), index_fill(_)
    IndexPut,     ///< index_put_ (a list of indices)
    Take,         ///< take
    Embedding,    ///< torch::embedding, F::embedding, EmbeddingImpl
    EmbeddingBag, ///< torch::embedding_bag, F::embedding_bag, EmbeddingBagImpl
    LossTarget,   ///< nll_loss / cross_entropy: the class ids of the target
    AdvancedIndex ///< Tensor::index({idx}) / t[idx]: copies a CPU index over
  };
  Kind K;
  /// The op as the user calls it: "index_select", "embedding", ...
  llvm::StringRef Name;
  /// The tensor read (for embeddings: the weight, when it is an argument;
  /// for module calls: null, see Module).
  const clang::Expr *Source = nullptr;
  /// The index tensor (the target, for losses). For index_put_ and
  /// Tensor::index: the single index of a one-element list, else null.
  const clang::Expr *Index = nullptr;
  /// `emb(ids)` / `emb->forward(ids)`: the expression of the module, its
  /// holder or its Impl.
  const clang::Expr *Module = nullptr;
  /// The module's class (EmbeddingImpl, EmbeddingBagImpl) for module calls.
  const clang::CXXRecordDecl *ModuleClass = nullptr;
};

/// Recognises the method and free-function forms of the index ops, the
/// embedding functions and module calls, and the losses.
std::optional<IndexOpSite> matchIndexOp(const clang::CallExpr *Call);

/// `emb(ids)` through a holder, or `emb->forward(ids)` / `impl.forward(ids)`:
/// the module class whose forward is called, and the module expression.
const clang::CXXRecordDecl *moduleForwardCall(const clang::CallExpr *Call,
                                              const clang::Expr **ModuleExpr);

} // namespace torchtidy

#endif
