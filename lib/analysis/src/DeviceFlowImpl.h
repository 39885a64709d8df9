//===--- DeviceFlowImpl.h - DeviceFlow's shared parts -----------*- C++ -*-===//
//
// What DeviceFlow.cpp shares with DeviceEscapes.cpp, the walk that finds
// the values whose device may change behind the analysis' back. The
// lattice's functions (DeviceFlow.h) are in DeviceFacts.cpp. Private to
// lib/analysis.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_SRC_DEVICEFLOWIMPL_H
#define TORCHTIDY_ANALYSIS_SRC_DEVICEFLOWIMPL_H

#include "torchtidy/analysis/DeviceFlow.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/DenseSet.h"

namespace torchtidy::deviceflow {

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
