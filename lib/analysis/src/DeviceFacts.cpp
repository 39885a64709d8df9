//===--- DeviceFacts.cpp - The device lattice -----------------------------===//
//
// DeviceFact (DeviceFlow.h): what the analysis knows of a tensor's device,
// its join, and how an index op's two devices compare.
//
//===----------------------------------------------------------------------===//

#include "torchtidy/analysis/DeviceFlow.h"

using namespace clang;

namespace torchtidy {

//===----------------------------------------------------------------------===//
// The lattice
//===----------------------------------------------------------------------===//

bool DeviceFact::sameDevice(const DeviceFact &O) const {
  if (K != O.K)
    return false;
  return (K != SameAs && K != DeviceOf) || Ref == O.Ref;
}

bool DeviceFact::operator==(const DeviceFact &O) const {
  return sameDevice(O) && How == O.How && Origin == O.Origin &&
         RefOrigin == O.RefOrigin && ZeroDim == O.ZeroDim &&
         CudaWhenAvailable == O.CudaWhenAvailable;
}

static std::string quoted(const ValueDecl *D) {
  return D && D->getIdentifier() ? "'" + D->getName().str() + "'"
                                 : std::string("a variable");
}

std::string DeviceFact::describe() const {
  switch (K) {
  case Unknown:
    return "an unknown device";
  case CPU:
    return "the CPU";
  case CUDA:
    return "CUDA";
  case SameAs:
    return "the device of " + quoted(Ref);
  case DeviceOf:
    return "the device held by " + quoted(Ref) +
           (CudaWhenAvailable ? " (CUDA when available)" : "");
  case NoDevice:
    return "the default device";
  }
  return "";
}

/// Evidence made earlier in the file wins, so joins are deterministic and
/// monotone.
static const Stmt *earlier(const Stmt *A, const Stmt *B) {
  if (!A || !B)
    return A ? A : B;
  return A->getBeginLoc().getRawEncoding() <= B->getBeginLoc().getRawEncoding()
             ? A
             : B;
}

DeviceFact join(const DeviceFact &A, const DeviceFact &B) {
  if (!A.sameDevice(B))
    return DeviceFact::unknown();
  DeviceFact R = A;
  R.Origin = earlier(A.Origin, B.Origin);
  if (R.Origin == B.Origin && R.Origin != A.Origin)
    R.How = B.How;
  R.RefOrigin = earlier(A.RefOrigin, B.RefOrigin);
  R.ZeroDim = A.ZeroDim && B.ZeroDim;
  R.CudaWhenAvailable = A.CudaWhenAvailable || B.CudaWhenAvailable;
  return R;
}

IndexDeviceMismatch classifyIndexDevices(IndexOpSite::Kind K,
                                         const DeviceFact &Source,
                                         const DeviceFact &Index) {
  using F = DeviceFact;
  if (K == IndexOpSite::LossTarget)
    return IndexDeviceMismatch::None;
  if (Index.K == F::CPU && Index.ZeroDim)
    return IndexDeviceMismatch::None;
  const bool SourceOnDevice = Source.K == F::CUDA || Source.K == F::DeviceOf;
  const bool IndexOnDevice = Index.K == F::CUDA || Index.K == F::DeviceOf;
  // A CUDA (or maybe-CUDA) index into a CPU tensor fails with every op.
  if (IndexOnDevice && Source.K == F::CPU)
    return IndexDeviceMismatch::Error;
  if (Index.K == F::CPU && SourceOnDevice)
    return K == IndexOpSite::AdvancedIndex || K == IndexOpSite::IndexPut
               ? IndexDeviceMismatch::ImplicitCopy
               : IndexDeviceMismatch::Error;
  return IndexDeviceMismatch::None;
}

} // namespace torchtidy
