//===--- DeviceFlowImpl.h - DeviceFlow's shared parts -----------*- C++ -*-===//
//
// What DeviceFlow.cpp shares with DeviceEscapes.cpp, the walk that finds
// the values whose device may change behind the analysis' back, and with
// DeviceValues.cpp, what it reads of a value and of a call. The lattice's
// functions (DeviceFlow.h) are in DeviceFacts.cpp. Private to lib/analysis.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_SRC_DEVICEFLOWIMPL_H
#define TORCHTIDY_ANALYSIS_SRC_DEVICEFLOWIMPL_H

#include "torchtidy/analysis/DeviceFlow.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/DenseSet.h"

#include <cstdint>
#include <optional>

namespace torchtidy {
struct OpCall;
} // namespace torchtidy

namespace torchtidy::deviceflow {

//--- What a value is (DeviceValues.cpp) -------------------------------------

/// What the flow tracks of a value: a tensor, a device, options, a module.
enum class ValueKind : uint8_t { None, Tensor, Device, Options, Module };

ValueKind kindOf(clang::QualType T);
/// A tensor, or a reference to one.
bool isTensor(clang::QualType T);
/// A device's name: a std::string or a character string.
bool namesDevice(clang::QualType T);
/// The fact a device literal gives, when it names the CPU or CUDA.
std::optional<DeviceFact::Kind> factKind(DeviceLiteral L);
/// \p E without the compiler's wrappers, casts that construct, copies and
/// moves.
const clang::Expr *strip(const clang::Expr *E);
/// The device a string literal names (`"cuda:0"`, also converted to a
/// std::string), made at \p At: unknown when the name does not parse;
/// nothing when \p Name is no literal.
std::optional<DeviceFact> namedDevice(const clang::Expr *Name,
                                      const clang::Expr *At);
/// The variable, parameter or member of `this` that \p E names, if it is a
/// value the analysis tracks.
const clang::ValueDecl *trackedDecl(const clang::Expr *E);

//--- What the transfer reads of a call (DeviceValues.cpp) -------------------

/// The tensor a tensor method is called on (`x.f()`, or `x` of `x + y`).
const clang::Expr *methodObject(const clang::CallExpr *Call);
/// The TensorOptions argument of a free LibTorch function (the last one).
const clang::Expr *optionsArgument(const OpCall &C);
/// The first argument that is a tensor, or a braced list whose first
/// element is one (`cat({a, b})`: a).
const clang::Expr *firstTensorArgument(const clang::CallExpr *Call);

//--- The values whose device may change unseen (DeviceEscapes.cpp) ----------

/// A module object: a holder, a shared_ptr to a module, or the Impl itself.
bool isModuleValue(clang::QualType T);

/// Adds to \p Escaped the locals and parameters of \p Body whose address is
/// taken, that are bound to a reference, captured by reference, passed to a
/// non-const reference parameter, or (modules) copied anywhere: their facts
/// are always Unknown.
void findEscapedValues(const clang::Stmt *Body,
                       llvm::DenseSet<const clang::ValueDecl *> &Escaped);

} // namespace torchtidy::deviceflow

#endif
