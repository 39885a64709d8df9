//===--- TensorStorage.h - Whose memory a tensor or pointer reads -*- C++
//-*-===//
//
// What the lifetime checks need to know about memory: which storage a tensor
// expression has (a named tensor's, a view of it, storage an op may just have
// allocated, memory from_blob wraps), which raw pointers point into a
// tensor's storage (`data_ptr<T>()`, accessors), and which buffer a pointer
// given to from_blob points into (a local array, std::vector, std::string,
// std::array, a scalar, a pointer variable). Everything comes from the op
// table (TorchOps.def) and from declarations, never from spellings.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_TENSORSTORAGE_H
#define TORCHTIDY_ANALYSIS_TENSORSTORAGE_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace torchtidy {

/// Peels what does not change a value: parentheses, implicit casts,
/// temporaries and their cleanups, copies and moves of a tensor, std::move.
const clang::Expr *peelValue(const clang::Expr *E);

/// \p E without the parentheses, implicit casts, temporaries, copies and
/// moves around it, but not through calls: `t.flatten()` stays itself.
const clang::Expr *peelTemporaries(const clang::Expr *E);

/// One step from a tensor-valued expression towards the storage it reads.
struct StorageStep {
  enum Kind {
    Unknown,   ///< a call or value nothing says anything about
    Named,     ///< the tensor of a variable, parameter or data member
    View,      ///< shares Input's storage (view, select, x[i], in-place ops)
    MayAlias,  ///< new storage, or Input itself when nothing needs changing
               ///< (to, cpu, cuda, contiguous, reshape)
    Allocates, ///< storage of its own (clone, arithmetic, factories, cat)
    WrapsBlob  ///< from_blob: memory it does not own
  };
  Kind K = Unknown;
  /// The call or operator (all but Unknown and Named).
  const clang::Expr *Op = nullptr;
  /// The op's tensor operand (View, MayAlias; Allocates when it has one).
  const clang::Expr *Input = nullptr;
  /// Named: the variable, parameter or field.
  const clang::ValueDecl *Decl = nullptr;
  /// The op as the table names it: "to", "contiguous", "add" (for `a + b`).
  llvm::StringRef OpName;
};

/// The first step of \p E (peeled first).
StorageStep storageStep(const clang::Expr *E);

/// `t.data_ptr<T>()`, `t.data<T>()`, `t.data_ptr()`, `t.accessor<T, N>()`,
/// `t.packed_accessor32<...>()`...: the call gives a raw pointer into t's
/// storage, or an accessor holding one. The object expression (t), else
/// null (also for `t.data()`, which is a tensor).
const clang::Expr *rawDataObject(const clang::CallExpr *Call);

/// A call of from_blob (at:: or torch::) and its parts.
struct FromBlobCall {
  const clang::CallExpr *Call = nullptr;
  const clang::Expr *Data = nullptr;  ///< the pointer
  const clang::Expr *Sizes = nullptr; ///< the sizes argument
  /// The TensorOptions argument as written; null when it is defaulted.
  const clang::Expr *Options = nullptr;
  /// An overload with a deleter: the tensor owns the memory then.
  bool HasDeleter = false;
  /// The overload has a TensorOptions parameter right after the last
  /// argument written (where a fix-it can add a dtype).
  bool OptionsParamFollows = false;
  /// The last argument written by the user.
  const clang::Expr *LastWritten = nullptr;
};

/// \p Call as a from_blob call (the table's WrapsMemory fact), if it is one.
std::optional<FromBlobCall> matchFromBlob(const clang::CallExpr *Call);

/// A variable whose storage dies with its scope: a local of automatic
/// storage or a by-value parameter, not a reference, not static, not a
/// lambda's capture.
bool hasAutomaticStorage(const clang::VarDecl *VD);

/// Where a pointer given to from_blob points.
struct BufferOrigin {
  enum Kind {
    Unknown,   ///< a field, a call's result, a global, a captured variable
    Array,     ///< the elements of an array variable (`float a[4]`)
    Container, ///< `v.data()`, `&v[0]`, `s.c_str()` of a standard container
    Scalar,    ///< `&x` of a variable that is neither array nor container
    Pointer,   ///< the value of a pointer variable (maybe freed later)
    /// The buffer of a temporary object that owns it, destroyed at the end
    /// of its full-expression: `f().data()` of a standard container
    /// returned by value, a pointer field of a deep copy (`img.clone().data`,
    /// a class's own `clone()` returning it by value). Owner is null,
    /// OwnerRef the temporary.
    Temporary
  };
  Kind K = Unknown;
  /// The variable that holds the memory (Array, Container, Scalar) or the
  /// pointer (Pointer).
  const clang::VarDecl *Owner = nullptr;
  /// The expression naming Owner in the pointer.
  const clang::Expr *OwnerRef = nullptr;
  /// The type of the elements, where the code shows it: the element type of
  /// the array or container, the type of the scalar, `T` of `new T[n]` that
  /// initialised the pointer, or the pointee a pointer variable or
  /// parameter is declared with (DeclaredPointee). Null when nothing shows
  /// it (a `uchar *data` field of an image class holds any element type).
  clang::QualType Element;
  /// Element is only the declared pointee of a pointer variable/parameter.
  bool DeclaredPointee = false;
  /// Owner is a local of automatic storage (hasAutomaticStorage).
  bool Automatic = false;
};

/// The buffer \p Data (from_blob's pointer argument) points into, through
/// casts, `&`, subscripts, `.data()` and the initialisers of local pointer
/// variables that nothing in \p Body reassigns.
BufferOrigin bufferOrigin(const clang::Expr *Data, const clang::Stmt *Body);

/// \p VD, a local variable, may be changed in its function after its
/// declaration (FunctionContext::isMutated: =, +=, ++, its address taken,
/// passed by non-const reference, captured by reference, a non-const member
/// called); true when its function is not known.
bool isReassigned(const clang::VarDecl *VD);

} // namespace torchtidy

#endif
