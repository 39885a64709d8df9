//===--- UserCode.h - What is the user's code -------------------*- C++ -*-===//
//
// One definition of "user code" for every check and for the driver's
// traversal scope: code whose expansion location is outside the system
// headers. A LibTorch macro used in user code (TORCH_CHECK, TORCH_MODULE)
// is user code where it is used; a user macro expanded inside a system
// header is not. User headers (`#include "model.h"`) are user code.
//
// And one walk over it: each function definition of user code once, so
// that the checks that analyse function bodies share what they visit.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_USERCODE_H
#define TORCHTIDY_ANALYSIS_USERCODE_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <vector>

namespace torchtidy {

/// \p Loc is valid and its expansion location is not in a system header.
bool isUserCode(clang::SourceLocation Loc, const clang::SourceManager &SM);

/// The declaration's location is user code.
bool isUserDecl(const clang::Decl *D);

/// \p D is an implicit instantiation of a function, class or variable
/// template. Sema hands a function's to the consumer as a top-level
/// declaration too (for code generation); a whole-TU traversal reaches it
/// from its template, or not at all (a generic lambda's call operator), so a
/// traversal scope leaves it out, as clangd's does.
bool isImplicitInstantiation(const clang::Decl *D);

/// No check or analysis reads the body of function \p D, so that a parse may
/// leave it out (FrontendOptions::SkipFunctionBodies: the driver does when
/// every check is a libtorch-* one, tools/driver/FastRun.cpp): \p D is
/// declared in a system header, is not a template nor in one, and is not a
/// member of a class deriving from `torch::nn::Module` (the registration
/// analysis reads a user module's bases' methods). The analyses look into
/// user functions' bodies only. A body of a system header that is not
/// templated cannot name user code, so it instantiates none of it either;
/// a template's body can (LibTorch's DataLoader calls a user dataset's get,
/// ModuleHolder a user module's constructor) and is kept. Functions whose
/// body decides their type (constexpr, a deduced return type) clang parses
/// whatever this says.
bool isSkippableLibraryBody(const clang::Decl *D);

/// \p Loc is valid and expands in the main file: where a finding of this
/// translation unit can be reported (a macro's body written in a header
/// and used here counts as here).
bool isInMainFileExpansion(clang::SourceLocation Loc,
                           const clang::SourceManager &SM);

/// Calls \p Visit once for each function definition of user code in the
/// translation unit (or in its traversal scope, when one is set): free
/// functions, methods, those of local classes, lambdas' call operators, and
/// the instantiations of user templates. Not visited: system headers
/// (skipped whole, bodies included), dependent code (its instantiations
/// are), implicit and defaulted members (their bodies are the compiler's),
/// and invalid declarations.
///
/// The walk is made once per translation unit (and traversal scope) and
/// shared by every analysis and check that asks
/// (FunctionContexts::userFunctions).
void forEachUserFunction(
    clang::ASTContext &Ctx,
    llvm::function_ref<void(const clang::FunctionDecl *)> Visit);

namespace detail {
/// forEachUserFunction's walk itself, in its order; FunctionContexts keeps
/// its result.
std::vector<const clang::FunctionDecl *>
collectUserFunctions(clang::ASTContext &Ctx);
} // namespace detail

/// Calls \p Visit for each statement of \p Body in pre-order, not entering
/// the bodies of lambdas or of local classes' methods (functions of their
/// own, which forEachUserFunction visits). The lambda expression itself is
/// visited.
void forEachOwnStmt(const clang::Stmt *Body,
                    llvm::function_ref<void(const clang::Stmt *)> Visit);

/// The same, entering lambda bodies too: everything a function's code can
/// do to its locals, also from a lambda that captures them (an AT_DISPATCH
/// body).
void forEachStmtIn(const clang::Stmt *Body,
                   llvm::function_ref<void(const clang::Stmt *)> Visit);

/// \p S cannot fall through to what follows it: a return, a throw, a call
/// of a [[noreturn]] function, break or continue, or a block or
/// `do { } while (0)` holding one.
bool exits(const clang::Stmt *S, unsigned Depth = 0);

/// \p S cannot fall through and leaves the function: exits() without break
/// and continue, which only leave a loop or a switch.
bool leavesFunction(const clang::Stmt *S);

/// \p S cannot fall through and never returns to the caller: a throw or a
/// [[noreturn]] call (TORCH_CHECK's failure), not a return.
bool neverReturns(const clang::Stmt *S);

/// \p S holds a return, a break, a continue or a goto (not one of a lambda
/// or a local class): what follows it may not run.
bool mayJumpOut(const clang::Stmt *S);

} // namespace torchtidy

#endif
