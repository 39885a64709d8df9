//===--- Registration.h - Which module members are registered -*- C++ -*-===//
//
// Answers "is this data member of a torch::nn::Module registered?" from the
// code that builds the module: its constructors (init lists included), its
// default member initialisers, `reset()`, and the member functions they call.
// A member is registered when it is initialised or assigned from
// register_buffer/register_parameter/register_module (also through a chain
// such as `.set_requires_grad(true)`), when it is itself passed to one of
// them, when a container member is filled from them or iterated into them,
// or when it is assigned from a variable that is passed to one of them (the
// two share the TensorImpl or the module Impl).
//
// A building function defined in another translation unit is read from the
// project's summary of it (ProjectSummaries.h, `memberEffects`), which the
// translation unit that defines it writes with memberEffects() below.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_REGISTRATION_H
#define TORCHTIDY_ANALYSIS_REGISTRATION_H

#include "torchtidy/analysis/ProjectSummaries.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <utility>
#include <vector>

namespace torchtidy {

/// One place where the building code writes a member.
struct MemberWrite {
  enum Kind {
    DefaultMemberInit, ///< `torch::Tensor w = ...;` in the class
    ConstructorInit,   ///< `w(...)` in a constructor's init list
    Assignment,        ///< `w = ...;` (or `ws[i] = ...;`)
    ContainerFill,     ///< `ws.push_back(...)`, `ws.emplace(...)`...
  } How = Assignment;
  /// The assignment, initialiser or mutating call.
  const clang::Expr *Site = nullptr;
  /// The value written (the right-hand side), when there is a single one.
  const clang::Expr *Value = nullptr;
  /// The function whose code writes it (null for a default member
  /// initialiser).
  const clang::FunctionDecl *Function = nullptr;
  /// `M = value;` as a full statement at the top of the body of a
  /// constructor or of reset(): the shape the fix-its rewrite.
  bool IsTopLevelAssignment = false;
  /// The value is `nullptr` (an empty holder or shared_ptr).
  bool IsNull = false;
  /// A write in a function of another file, which the project's summary
  /// of \c Function (declared here, defined there) gives: where it is.
  /// \c Site and \c Value are null.
  std::optional<SourcePlace> Elsewhere;
};

/// How \p How writes, as the notes say it: "initialised", "assigned",
/// "filled".
llvm::StringRef memberWriteWords(MemberWrite::Kind How);

/// What the building code of a module does with one member.
struct MemberFacts {
  MemberClass Class;
  bool Registered = false;
  /// Where it is registered (the register_* call), when it is.
  const clang::Expr *RegisteredAt = nullptr;
  /// Writes in the building code, in source order.
  llvm::SmallVector<MemberWrite, 2> Writes;
  /// Any initialiser at all (default member initialiser or init list).
  bool HasInitializer = false;
  /// Assignments of a registered member in the class's other member
  /// functions defined in this translation unit (`update()`, `forward()`),
  /// in source order: a new tensor or module stored there replaces the
  /// registered one as surely as in the building code.
  llvm::SmallVector<MemberWrite, 1> LaterWrites;
  /// Where a building function of another file registers it (its
  /// summary's place), when that is where.
  std::optional<SourcePlace> RegisteredElsewhere;
  /// Reads (and reads moved to another tensor's device first) in the
  /// class's methods of other files, from their summaries (with
  /// FollowSummaries); ReadsUnknown when the facts rest on building code of
  /// another file and one of those methods has no summary, so that its
  /// reads cannot be counted (no use can then show the member harmless).
  unsigned ReadsElsewhere = 0, MovedReadsElsewhere = 0;
  bool ReadsUnknown = false;
  /// The building functions of other files that the analysis read from
  /// their summaries: each one's qualified name and where it is defined.
  std::vector<std::pair<std::string, SourcePlace>> BuiltElsewhere;
};

/// The registration facts of every tensor and submodule member of one
/// module class.
class ModuleRegistration {
public:
  /// Analyses \p RD. Returns false, and knows nothing, when the code that
  /// would prove a member registered is not in this translation unit: a
  /// user-declared constructor, `reset()` or a member function they call that
  /// has no body here. With \p FollowSummaries, such a function is read
  /// from the project's summary of it instead (its `memberEffects`), when
  /// this translation unit can report the class: the class, or building
  /// code of it, is in the main file (a file that merely includes the
  /// class's header asks nothing); false when one of them has none.
  bool analyze(const clang::CXXRecordDecl *RD, bool FollowSummaries = false);

  /// Facts about each tensor or submodule member, in declaration order.
  /// Members of bases are included when this class's building code
  /// registers them.
  const llvm::MapVector<const clang::FieldDecl *, MemberFacts> &
  members() const {
    return Members;
  }

  /// The building functions that were walked, in the order they were found.
  llvm::ArrayRef<const clang::FunctionDecl *> buildingFunctions() const {
    return Walked;
  }

  /// What the last analyze returned.
  bool complete() const { return Complete; }

private:
  bool walkBuildingCode(const clang::CXXRecordDecl *RD, bool FollowSummaries);

  llvm::MapVector<const clang::FieldDecl *, MemberFacts> Members;
  llvm::SmallVector<const clang::FunctionDecl *, 4> Walked;
  bool Complete = false;
};

/// \p RD's ModuleRegistration, analysed (with \p FollowSummaries) once per
/// translation unit and shared by every analysis and check that asks: the
/// table sizes of IndexRanges ask it for each member they read, the
/// registration checks for each module class.
const ModuleRegistration &registrationOf(const clang::CXXRecordDecl *RD,
                                         bool FollowSummaries = false);

/// What one method (or constructor) of a module class does to the tensor
/// and submodule members of its object, as its translation unit shows it:
/// the members it registers and writes, in its body and in the member
/// functions of its translation unit it calls on `this` (as the building
/// code is walked), and the members it reads in its own body.
struct MethodMemberEffects {
  /// The members it registers or writes (the class's own, and those of
  /// bases it registers), in the order met; no default member initialiser.
  llvm::MapVector<const clang::FieldDecl *, MemberFacts> Members;
  /// Reads, and reads moved to another tensor's device first (MemberUses'
  /// notions), in its own body and initialisers.
  llvm::MapVector<const clang::FieldDecl *, std::pair<unsigned, unsigned>>
      Reads;
  /// The member functions it calls on `this` (through those it walks) that
  /// have no body here: what they do is elsewhere.
  llvm::SmallVector<const clang::CXXMethodDecl *, 1> Calls;
};
/// \p MD's effects; std::nullopt when it has no body here or its class is
/// not a module class.
std::optional<MethodMemberEffects>
memberEffects(const clang::CXXMethodDecl *MD);

/// A write of a registered member that stores a new, unregistered value
/// after its registration, in the same building function
/// (`rms = RunningMeanStd(...)` after `rms(register_module("rms", ...))`) or
/// in another member function (`mean = x.mean(0);` in `update()`): the
/// module's children (or buffers) keep the registered one, the member holds
/// the other. A conversion of the member itself (`m = m.to(x.device())`)
/// keeps its values and is not one. The registration call, and the write;
/// null when none.
struct ReplacedRegistration {
  const clang::CallExpr *Registration = nullptr;
  const MemberWrite *Write = nullptr;
  /// The write is in a member function that is not building code (a
  /// buffer cannot be registered again there: its name is taken).
  bool OutsideBuilding = false;
  explicit operator bool() const { return Write != nullptr; }
};
ReplacedRegistration replacedAfterRegistration(const MemberFacts &Facts,
                                               const clang::ASTContext &Ctx);

/// What a user's module class holds, as far as registering it matters.
enum class UserModuleState {
  NotVisible, ///< its building code or forward() is not in this TU
  Stateful,   ///< parameters, buffers, children, or train/eval behaviour
  Stateless,  ///< none of these: as harmless unregistered as a ReLU
};

/// Whether the user's module class \p Impl (defined in user code, not
/// LibTorch's) holds state: a tensor or submodule member, a registration
/// call in its building code, a call of is_training() in its methods, or a
/// base other than torch::nn::Module / Cloneable that does.
UserModuleState userModuleState(const clang::CXXRecordDecl *Impl);

/// How the user code of a translation unit reads the data members of its
/// classes: each read (not counting plain assignments to the member), and
/// the reads that move the member to another tensor's device first
/// (`P.to(x.device())`, `P.index({i}).to(x.options())`, `P.to(x)`), which
/// cannot mix devices whatever device the member is on. Built on the first
/// question, one walk over the user code.
class MemberUses {
public:
  explicit MemberUses(clang::ASTContext &Ctx) : Ctx(Ctx) {}

  /// The reads of \p Field in user code.
  unsigned reads(const clang::FieldDecl *Field);
  /// \p Field is read, and every read moves it to another tensor's device.
  bool onlyMovedToAnotherDevice(const clang::FieldDecl *Field);
  /// The same two, counting also the reads in methods of other files that
  /// \p Facts has from the project's summaries.
  unsigned reads(const clang::FieldDecl *Field, const MemberFacts &Facts);
  bool onlyMovedToAnotherDevice(const clang::FieldDecl *Field,
                                const MemberFacts &Facts);

private:
  void build();
  clang::ASTContext &Ctx;
  bool Built = false;
  llvm::DenseMap<const clang::FieldDecl *, std::pair<unsigned, unsigned>>
      Counts; // reads, moved reads
};

/// The callee of \p Call is register_buffer, register_parameter or
/// register_module of torch::nn::Module (or, in a template with a dependent
/// base, a call by that name through `this`).
bool isRegistrationCall(const clang::Expr *E);

/// \p E is a registration call, possibly converted, copied or followed by a
/// method chain such as `.set_requires_grad(true)`.
bool isRegistrationExpr(const clang::Expr *E);

} // namespace torchtidy

#endif
