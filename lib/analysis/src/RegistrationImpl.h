//===--- RegistrationImpl.h - Registration's inside -------------*- C++ -*-===//
//
// The analysis behind Registration.h in three files:
//   RegistrationCalls.cpp  the calls that register a member, and the member
//                     a value is;
//   Registration.cpp  the walk of a module class's building code (here, and
//                     from the project's summaries of other files) and the
//                     member facts;
//   MemberUses.cpp    the reads of members (MemberUses), user modules
//                     without state, and a registration replaced after it.
// Private to lib/analysis.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_SRC_REGISTRATIONIMPL_H
#define TORCHTIDY_ANALYSIS_SRC_REGISTRATIONIMPL_H

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"

#include <utility>

namespace torchtidy::registration {

/// Looks through what does not change which object a value is: implicit
/// conversions, temporaries, copies and moves, `std::move`.
const clang::Expr *stripValue(const clang::Expr *E);

/// A null pointer constant, through stripValue.
bool isNullValue(const clang::Expr *E);

/// `m` or `this->m`, for a data member m.
const clang::FieldDecl *thisField(const clang::Expr *E);

/// The member a value is, or an element of: `m`, `m[i]`, `m.at(i)`,
/// `m.back()`, `*m`, `m.ptr()`, `m = v` (an assignment is its left side).
const clang::FieldDecl *fieldBehind(const clang::Expr *E);

/// A container method that adds an element (the table's ContainerInsert).
bool isContainerMutator(const clang::CXXMethodDecl *MD);

/// The reads of members of `this` in \p FD's body and initialisers (not
/// counting plain assignments to them), and the reads that move the member
/// to another tensor's device first, added to \p Counts.
void countReads(const clang::FunctionDecl *FD,
                llvm::DenseMap<const clang::FieldDecl *,
                               std::pair<unsigned, unsigned>> &Counts);

} // namespace torchtidy::registration

#endif // TORCHTIDY_ANALYSIS_SRC_REGISTRATIONIMPL_H
