//===--- HardcodedDevice.h - Devices a module fixes in its code -*- C++ -*-===//
//
// Where a torch::nn::Module subclass puts tensors on a device of its own
// choosing instead of the device the module was moved to
// (`module->to(device)`, the replicas of `torch::nn::parallel::data_parallel`):
//
// - Fixed: a tensor created on or moved to a fixed device in any member
//   function (constructor, forward, reset...): `torch::kCUDA`,
//   `torch::Device("cuda:0")`, `.cuda()`, a device with an index literal, a
//   global or static `torch::Device`, or a device member the module only
//   ever sets to such a device.
// - NoDevice: a factory with no device (so on the CPU) in forward, or in a
//   function forward calls, meeting a tensor of the module's inputs or
//   parameters at an op that needs both on one device (`torch::zeros({n}) +
//   x`); DeviceFlow's combine sites give both facts. The other methods of a
//   built module (`history`, `sample`; not construction, nor what it calls)
//   are walked the same way, with the module's members, not the method's
//   tensor parameters, on the module's device.
// - DefaultArgument: a call of a module's member function that leaves out a
//   device parameter whose default argument is such a fixed device.
//
// Not fixed: a device taken from a tensor (`x.device()`, `x.options()`), a
// parameter, a member set from outside (a constructor argument), the CPU
// (`.to(torch::kCPU)` of a result for output is fine), and anything that is
// not a tensor's device (`m.impl("op", torch::kCUDA, fn)` registers a kernel).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_HARDCODEDDEVICE_H
#define TORCHTIDY_ANALYSIS_HARDCODEDDEVICE_H

#include "torchtidy/analysis/CudaWork.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace torchtidy {

/// Why a device expression names a device fixed in the code.
struct FixedDevice {
  enum Kind {
    None,         ///< not fixed (a tensor's device, a parameter, the CPU...)
    Literal,      ///< torch::kCUDA, Device("cuda:0"), Device(kCUDA, 1)...
    CurrentCuda,  ///< t.cuda(): the thread's current CUDA device
    IndexLiteral, ///< Device(type, 0): a fixed device index
    Global,       ///< a global or static torch::Device (or DeviceType)
    Member,       ///< a device member only ever set to a fixed device
  };
  Kind K = None;
  /// The device-valued expression as written (`torch::kCUDA`,
  /// `torch::Device("cuda:0")`, `g_device`, `device_`): what a fix-it
  /// replaces. Null for CurrentCuda.
  const clang::Expr *Spelling = nullptr;
  /// Global, Member: the variable or the member...
  const clang::ValueDecl *Holder = nullptr;
  /// ...and where it is given a fixed device (null when the TU has none,
  /// e.g. a global set from outside).
  const clang::Expr *SetAt = nullptr;
  /// CUDA is chosen with torch::cuda::is_available() (still device 0).
  bool WhenAvailable = false;

  explicit operator bool() const { return K != None; }
};

/// What the device argument \p E of a move or a factory names: a device
/// fixed in the code, or None. Looks through TensorOptions chains
/// (`TensorOptions().dtype(t).device(d)`, `torch::device(d)`), implicit
/// conversions, `?:`, the initialisers of locals, and device members of
/// the class (FixedDevice::Member when every write in the TU is fixed and
/// every constructor is defined there).
FixedDevice classifyFixedDevice(const clang::Expr *E);

/// \p E as the user wrote it: without parens, implicit casts, temporaries,
/// copies and implicit converting constructions (`torch::kLong` passed as
/// TensorOptions is `torch::kLong`).
const clang::Expr *writtenArgument(const clang::Expr *E);

/// The module class a function belongs to: \p FD is a member function of a
/// torch::nn::Module subclass, or a lambda or local class written in one.
const clang::CXXRecordDecl *enclosingModule(const clang::FunctionDecl *FD);

/// One finding.
struct HardcodedDeviceSite {
  enum Kind {
    Fixed,          ///< a tensor created on / moved to a fixed device
    NoDevice,       ///< a factory without a device meets the module's tensor
    DefaultArgument ///< a call takes a device parameter's fixed default
  };
  Kind K = Fixed;
  /// The function holding the site, and the module it belongs to (for
  /// NoDevice in a function forward calls: the module of that forward).
  const clang::FunctionDecl *Function = nullptr;
  const clang::CXXRecordDecl *Module = nullptr;
  /// Fixed: the `.cuda()`, `.to(...)` or factory call. NoDevice: the
  /// factory. DefaultArgument: the default argument.
  const clang::Expr *Site = nullptr;
  /// Fixed, DefaultArgument: what the device is.
  FixedDevice Device;
  /// NoDevice: the op where the factory's tensor meets Other, a tensor of
  /// the module's inputs or parameters (for a module call, Other is the
  /// module: its parameters).
  const clang::CallExpr *Combine = nullptr;
  const clang::Expr *Other = nullptr;
  bool OtherIsModule = false;
  /// NoDevice with the factory in a user function whose every return is
  /// its tensor: the call of that function (in Receiver, where Combine is)
  /// whose value meets Other; Function is then that function. Else null,
  /// and Receiver is Function.
  const clang::CallExpr *ReturnedBy = nullptr;
  const clang::FunctionDecl *Receiver = nullptr;
  /// NoDevice: the method the site is reached from (a forward(), or another
  /// method of a built module, RootIsForward false), and, in a function
  /// that it calls, the calls from it (Chain.front().Call is in Root) down
  /// to Function.
  const clang::FunctionDecl *Root = nullptr;
  bool RootIsForward = true;
  llvm::SmallVector<CallStep, 4> Chain;
  /// DefaultArgument: the parameter, and a call that leaves it out.
  const clang::ParmVarDecl *Param = nullptr;
  const clang::Expr *Call = nullptr;
  /// A tensor whose device a fix-it can use (`x` in `x.device()`): for
  /// NoDevice the tensor met when it is a parameter or a local, else the
  /// function's first tensor parameter; null when there is none.
  const clang::VarDecl *Input = nullptr;
  /// Fixed: the site is in a constructor or reset(), where the module is
  /// built (on the CPU) before anything moves it.
  bool InConstruction = false;
};

/// Finds the sites of a translation unit's user code, in source order.
/// \p MaxCallDepth bounds how many calls deep NoDevice follows forward (or
/// another method of a built module).
std::vector<HardcodedDeviceSite> findHardcodedDevices(clang::ASTContext &Ctx,
                                                      unsigned MaxCallDepth);

} // namespace torchtidy

#endif
