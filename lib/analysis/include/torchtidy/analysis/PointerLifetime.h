//===--- PointerLifetime.h - Pointers that outlive their memory -*- C++ -*-===//
//
// Two analyses of one function, on clang's CFG (every expression an element,
// with the ends of variables' lifetimes and their destructors):
//
// - dangling raw pointers: `data_ptr<T>()` (or an accessor) of a temporary
//   tensor that an op may just have allocated (`x.to(kCPU)`, `contiguous()`,
//   `a + b`), kept past the end of the full-expression (in a variable, a
//   member, a container, a struct, a tensor from_blob makes of it, or
//   returned), and then used; or of a local tensor that owns its storage and
//   goes out of scope or is reassigned before the pointer's last use.
// - from_blob tensors that outlive their buffer: from_blob (without a
//   deleter) over a local array, std::vector, std::string, std::array or
//   scalar, or over a buffer freed with delete[] / free, whose tensor
//   escapes (returned, stored in a member, an out-parameter, a module, or a
//   container or Example that escapes) or is used after the buffer died,
//   with no op in between that certainly copies (clone(), arithmetic; not
//   `.to(device)`, which returns the same tensor when it is already there).
//
// Evidence only: a tensor whose storage may be shared (a parameter, a member,
// a local copied elsewhere) is never said to free it; a call the op table
// does not know ends the trail.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_POINTERLIFETIME_H
#define TORCHTIDY_ANALYSIS_POINTERLIFETIME_H

#include "torchtidy/analysis/TensorStorage.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <vector>

namespace torchtidy {

/// Where a value (a raw pointer, a tensor) is kept beyond the
/// full-expression that makes it.
struct Store {
  enum Kind {
    None,     ///< used up inside the full-expression (or nothing is known)
    Local,    ///< a local variable holds it (directly or in a struct,
              ///< container, image object or tensor)
    Member,   ///< a data member
    Global,   ///< a global or static variable
    OutParam, ///< through a reference or pointer parameter
    Returned, ///< returned from the function
    Module    ///< registered in the module (register_buffer/parameter)
  };
  Kind K = None;
  /// The variable, field or parameter (all but None, Returned, Module).
  const clang::ValueDecl *Holder = nullptr;
  /// The statement or expression that stores it (an assignment, a DeclStmt,
  /// a push_back, a return, a member initialiser's expression).
  const clang::Stmt *At = nullptr;
  /// A from_blob, constructor, aggregate or lambda that holds it on the way.
  const clang::Expr *Through = nullptr;
  /// An op on the way that may return its input (`.to(device)`): it does
  /// not copy.
  const clang::Expr *MayAliasOp = nullptr;

  /// Stored where it outlives the function.
  bool escapes() const { return K != None && K != Local; }
};

/// A raw pointer into storage that is freed before the pointer's last use.
struct DanglingPointer {
  enum Cause {
    Temporary,  ///< taken on a temporary freed at the end of the statement
    OutOfScope, ///< taken on a local tensor that goes out of scope
    Reassigned  ///< taken on a local tensor that is then reassigned
  };
  Cause C = Temporary;
  /// `data_ptr<float>()`, `accessor<float, 2>()`...
  const clang::CallExpr *Raw = nullptr;
  /// Temporary: the temporary tensor (the call's object) and the op that
  /// (may have) allocated it; MayAlias when the op may return its input.
  const clang::Expr *TemporaryTensor = nullptr;
  const clang::Expr *AllocOp = nullptr;
  bool MayAlias = false;
  /// OutOfScope / Reassigned: the local tensor, and where it was made and
  /// where it dies (the end of its scope, or the assignment).
  const clang::VarDecl *Tensor = nullptr;
  const clang::Stmt *Kill = nullptr;
  /// Where the pointer is kept.
  Store Kept;
  /// The first later use of the holder (null when it escapes).
  const clang::Stmt *Use = nullptr;
  /// The full-expression statement of the raw call.
  const clang::Stmt *Statement = nullptr;
  /// Every later use is in Statement's enclosing block, after it: a named
  /// tensor bound before Statement lives long enough (the fix-it).
  bool BindingFixes = false;
};

/// A from_blob tensor that outlives the buffer it wraps.
struct BlobEscape {
  FromBlobCall Blob;
  BufferOrigin Buffer;
  /// Where the tensor goes: it escapes (Store::escapes()), or a local holds
  /// it and Use reads it after the buffer died.
  Store Kept;
  const clang::Stmt *Use = nullptr;
  /// Where the buffer dies before Use: the end of its scope, a delete[] or
  /// a free (null when the tensor escapes a local buffer: it dies when the
  /// function returns).
  const clang::Stmt *Freed = nullptr;
  /// Locals that held the tensor on the way, in order.
  llvm::SmallVector<const clang::VarDecl *, 2> Via;
};

/// Cheap tests on a function's own statements (and a constructor's member
/// initialisers), so that the analyses run only where they can find
/// something: a raw-pointer call (`data_ptr`, an accessor), a from_blob.
bool containsRawDataCall(const clang::FunctionDecl *FD);
bool containsFromBlob(const clang::FunctionDecl *FD);

/// The analyses of one function. The CFG is built on first use and only for
/// functions with a raw-pointer call or a from_blob.
class PointerLifetime {
public:
  PointerLifetime(const clang::FunctionDecl *FD, clang::ASTContext &Ctx);
  ~PointerLifetime();
  PointerLifetime(const PointerLifetime &) = delete;
  PointerLifetime &operator=(const PointerLifetime &) = delete;

  /// Raw pointers freed before their last use, in source order.
  std::vector<DanglingPointer> danglingPointers();
  /// from_blob tensors that outlive their buffers, in source order.
  std::vector<BlobEscape> blobEscapes();
  /// The from_blob calls of the function (its own body and its member
  /// initialisers).
  const std::vector<FromBlobCall> &blobs() const;

  class Impl;

private:
  std::unique_ptr<Impl> P;
};

} // namespace torchtidy

#endif
