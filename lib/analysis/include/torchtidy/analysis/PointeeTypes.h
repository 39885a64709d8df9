//===--- PointeeTypes.h - C++ element types against dtypes ------*- C++ -*-===//
//
// What a LibTorch dtype (c10::ScalarType) is as memory, which dtype an
// expression names (`torch::kFloat64`, `torch::dtype(torch::kLong)`, options
// built in a local, none at all: the default float), and whether elements of
// a C++ type read as that dtype are the same values. from_blob takes a
// `void *`: it reinterprets whatever the pointer points at as the dtype.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_POINTEETYPES_H
#define TORCHTIDY_ANALYSIS_POINTEETYPES_H

#include "torchtidy/analysis/TensorStorage.h"
#include "torchtidy/analysis/TorchOps.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace torchtidy {

/// A dtype as memory: its row of the op table (TorchDtypes.def).
using Dtype = DtypeRow;

/// The dtype of c10::ScalarType enumerator \p Name, if LibTorch 1.13 has it
/// (quantized types are not modelled).
std::optional<Dtype> dtypeNamed(llvm::StringRef Name);

/// The dtype a `c10::ScalarType` expression names (a constant such as
/// `torch::kFloat64`, `at::ScalarType::Long`, a constexpr local), if known.
std::optional<Dtype> evaluateScalarType(const clang::Expr *E,
                                        const clang::ASTContext &Ctx);

/// What a TensorOptions argument (or a ScalarType / Device converted to one)
/// says about the dtype.
struct OptionsDtype {
  enum Kind {
    Default, ///< no dtype: the default dtype (float)
    Given,   ///< the dtype D, written at Where
    Unknown  ///< x.options(), options from elsewhere
  };
  Kind K = Unknown;
  Dtype D;
  const clang::Expr *Where = nullptr;
};

/// The dtype \p Options gives a tensor (null: no options, the default).
OptionsDtype dtypeOfOptions(const clang::Expr *Options,
                            const clang::ASTContext &Ctx);

/// The dtype whose elements are C++ \p T (float is Float, int64_t is Long,
/// c10::Half is Half), if there is one.
std::optional<Dtype> dtypeOfCppType(clang::QualType T,
                                    const clang::ASTContext &Ctx);

/// How elements of C++ type T read when a tensor of dtype D wraps them.
enum class ElementMatch {
  Same,      ///< the same values (a struct of D fields too)
  SameBytes, ///< integers of one size: only the signedness differs
  Mismatch,  ///< other values, another size, or a class's bytes
  RawBytes   ///< T is char, std::byte or void: bytes of anything
};

/// Compares the elements of \p T with \p D.
ElementMatch compareElements(clang::QualType T, const Dtype &D,
                             const clang::ASTContext &Ctx);

/// A from_blob whose dtype does not match what its pointer points at.
struct BlobDtypeMismatch {
  FromBlobCall Blob;
  BufferOrigin Buffer;
  /// The dtype the tensor gets; Default: none was given (float).
  OptionsDtype Given;
  /// The dtype of the buffer's elements, when there is one (the fix-it).
  std::optional<Dtype> Matching;
};

/// Checks \p Blob: a mismatch only where the code shows the element type
/// (see BufferOrigin::Element) and the dtype is known; a user function
/// `set_default_dtype` call anywhere (\p DefaultDtypeChanged) makes the
/// default unknown.
std::optional<BlobDtypeMismatch> checkBlobDtype(const FromBlobCall &Blob,
                                                const clang::Stmt *Body,
                                                const clang::ASTContext &Ctx,
                                                bool DefaultDtypeChanged);

} // namespace torchtidy

#endif
