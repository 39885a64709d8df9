//===--- TorchTypes.cpp - Recognise LibTorch types by declaration ---------===//

#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/TorchOps.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <vector>

using namespace clang;

namespace torchtidy {

/// \p DC, or the context around it that names it: past inline namespaces
/// (std::__cxx11) and linkage specifications (libstdc++ declares
/// std::exception inside `extern "C++"`).
static const DeclContext *namingContext(const DeclContext *DC) {
  while (DC && (DC->isInlineNamespace() || isa<LinkageSpecDecl>(DC)))
    DC = DC->getParent();
  return DC;
}

/// \p D sits in exactly the namespaces \p Namespaces (outermost first).
static bool declaredIn(const NamedDecl *D,
                       llvm::ArrayRef<llvm::StringRef> Namespaces) {
  const DeclContext *DC = D->getDeclContext();
  for (auto It = Namespaces.rbegin(); It != Namespaces.rend(); ++It) {
    const auto *NS = dyn_cast_or_null<NamespaceDecl>(namingContext(DC));
    if (!NS || !NS->getIdentifier() || NS->getName() != *It)
      return false;
    DC = NS->getParent();
  }
  DC = namingContext(DC);
  return DC && DC->isTranslationUnit();
}

bool hasQualifiedName(const NamedDecl *D, llvm::StringRef Name,
                      llvm::ArrayRef<llvm::StringRef> Namespaces) {
  if (!D)
    return false;
  const IdentifierInfo *II = D->getIdentifier();
  return II && II->getName() == Name && declaredIn(D, Namespaces);
}

namespace {

/// A TORCHTIDY_CLASS row with its scope split into namespaces.
struct ClassScopes {
  llvm::StringRef Name;
  bool Anywhere = false; // "*"
  bool Global = false;   // ""
  llvm::SmallVector<llvm::SmallVector<llvm::StringRef, 3>, 2> Namespaces;
};

/// The rows' scopes, split once (a function-local static: torch-clangd's
/// worker threads may ask first at once).
const std::vector<ClassScopes> &classScopes() {
  static const std::vector<ClassScopes> Scopes = [] {
    std::vector<ClassScopes> All;
    for (const ClassRow &Row : classRows()) {
      ClassScopes C;
      C.Name = Row.Name;
      if (Row.Scope == "*") {
        C.Anywhere = true;
      } else if (Row.Scope.empty()) {
        C.Global = true;
      } else {
        llvm::SmallVector<llvm::StringRef, 2> Alternatives;
        Row.Scope.split(Alternatives, '|');
        for (const llvm::StringRef A : Alternatives) {
          llvm::SmallVector<llvm::StringRef, 3> Parts;
          A.split(Parts, "::");
          C.Namespaces.push_back(Parts);
        }
      }
      All.push_back(std::move(C));
    }
    return All;
  }();
  return Scopes;
}

} // namespace

/// \p D sits in one of row \p S's scopes ("*": any).
static bool inScopes(const NamedDecl *D, const ClassScopes &S) {
  if (S.Anywhere)
    return true;
  if (S.Global)
    return declaredIn(D, {});
  return llvm::any_of(S.Namespaces, [&](llvm::ArrayRef<llvm::StringRef> NS) {
    return declaredIn(D, NS);
  });
}

bool isClass(const NamedDecl *D, KnownClass C) {
  if (!D)
    return false;
  const ClassScopes &S = classScopes()[static_cast<unsigned>(C)];
  const IdentifierInfo *II = D->getIdentifier();
  return II && II->getName() == S.Name && inScopes(D, S);
}

bool inNamespaceOf(const NamedDecl *D, KnownClass C) {
  const ClassScopes &S = classScopes()[static_cast<unsigned>(C)];
  return D && !S.Anywhere && inScopes(D, S);
}

bool isClass(const NamedDecl *D, std::initializer_list<KnownClass> Cs) {
  return llvm::any_of(Cs, [&](KnownClass C) { return isClass(D, C); });
}

/// What qualified lookup of \p Name in \p DC finds ([namespace.qual]): the
/// namespace's own members (an inline namespace's are its parent's too),
/// else those of the namespaces its using-directives nominate, through
/// using-declarations to what they name; null for none.
static const NamedDecl *
lookupIn(const DeclContext *DC, DeclarationName Name,
         llvm::SmallPtrSetImpl<const DeclContext *> &Seen) {
  if (!DC || !Seen.insert(DC->getPrimaryContext()).second)
    return nullptr;
  const auto Found = DC->lookup(Name);
  for (const NamedDecl *ND : Found)
    if (!isa<BaseUsingDecl>(ND)) // the shadow of a using-declaration is here
      return ND->getUnderlyingDecl();
  if (!Found.empty())
    return Found.front();
  for (const UsingDirectiveDecl *UD : DC->using_directives())
    if (const NamedDecl *ND = lookupIn(UD->getNominatedNamespace(), Name, Seen))
      return ND;
  return nullptr;
}

/// What qualified lookup of `Scope::Name` finds, \p Scope given as its
/// namespaces (outermost first; none for the global namespace).
static const NamedDecl *lookupPath(ASTContext &Ctx,
                                   llvm::ArrayRef<llvm::StringRef> Scope,
                                   llvm::StringRef Name) {
  const DeclContext *DC = Ctx.getTranslationUnitDecl();
  for (const llvm::StringRef Part : Scope) {
    llvm::SmallPtrSet<const DeclContext *, 4> Seen;
    DC = dyn_cast_or_null<NamespaceDecl>(
        lookupIn(DC, &Ctx.Idents.get(Part), Seen));
    if (!DC)
      return nullptr;
  }
  llvm::SmallPtrSet<const DeclContext *, 4> Seen;
  return lookupIn(DC, &Ctx.Idents.get(Name), Seen);
}

const NamedDecl *lookupQualified(ASTContext &Ctx, llvm::StringRef Scope,
                                 llvm::StringRef Name) {
  llvm::SmallVector<llvm::StringRef, 3> Parts;
  if (!Scope.empty())
    Scope.split(Parts, "::");
  return lookupPath(Ctx, Parts, Name);
}

const NamedDecl *lookupClass(ASTContext &Ctx, KnownClass C) {
  const ClassScopes &S = classScopes()[static_cast<unsigned>(C)];
  if (S.Anywhere)
    return nullptr;
  const auto Declared =
      [&](llvm::ArrayRef<llvm::StringRef> Scope) -> const NamedDecl * {
    const NamedDecl *ND = lookupPath(Ctx, Scope, S.Name);
    return isClass(ND, C) ? ND : nullptr;
  };
  if (S.Global)
    return Declared({});
  for (const auto &Namespaces : S.Namespaces)
    if (const NamedDecl *ND = Declared(Namespaces))
      return ND;
  return nullptr;
}

bool isDataExample(QualType T) { return isDataExample(namedRecord(T)); }

bool isDataExample(const RecordDecl *RD) {
  return isClass(RD, KnownClass::Example);
}

const CXXMethodDecl *autogradFunctionForward(const FunctionDecl *Callee) {
  const auto *Apply = dyn_cast_or_null<CXXMethodDecl>(Callee);
  if (!Apply || !Apply->isStatic() || !hasOpName(Apply, op::Named::apply))
    return nullptr;
  const auto *Spec =
      dyn_cast<ClassTemplateSpecializationDecl>(Apply->getParent());
  if (!Spec || !isClass(Spec, KnownClass::Function))
    return nullptr;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Args.size() != 1 || Args[0].getKind() != TemplateArgument::Type)
    return nullptr;
  const CXXRecordDecl *User = Args[0].getAsType()->getAsCXXRecordDecl();
  if (!User || !User->hasDefinition())
    return nullptr;
  for (const CXXMethodDecl *MD : User->getDefinition()->methods())
    if (MD->isStatic() && hasOpName(MD, op::Named::forward))
      return MD;
  return nullptr;
}

static const CXXRecordDecl *recordOf(QualType T) {
  if (T.isNull())
    return nullptr;
  if (const auto *RD = T->getAsCXXRecordDecl())
    return RD;
  // A dependent base such as `torch::nn::Cloneable<Net<T>>`: use the
  // template's pattern, whose own bases are known.
  if (const auto *TST = T->getAs<TemplateSpecializationType>())
    if (const auto *CTD = dyn_cast_or_null<ClassTemplateDecl>(
            TST->getTemplateName().getAsTemplateDecl()))
      return CTD->getTemplatedDecl();
  return nullptr;
}

bool isTensorType(QualType T) {
  if (T.isNull())
    return false;
  const auto *RD = T.getCanonicalType()->getAsCXXRecordDecl();
  return isClass(RD, KnownClass::Tensor);
}

bool isModuleBaseClass(const CXXRecordDecl *RD) {
  return isClass(RD, KnownClass::Module);
}

template <typename Pred>
static bool anyBase(const CXXRecordDecl *RD, Pred P, unsigned Depth,
                    llvm::SmallPtrSetImpl<const CXXRecordDecl *> &Seen) {
  if (!RD || Depth > limits::HierarchyDepth || !Seen.insert(RD).second)
    return false;
  const CXXRecordDecl *Def = RD->getDefinition();
  if (!Def)
    return false;
  for (const CXXBaseSpecifier &B : Def->bases()) {
    const CXXRecordDecl *Base = recordOf(B.getType());
    if (!Base)
      continue;
    if (P(Base) || anyBase(Base, P, Depth + 1, Seen))
      return true;
  }
  return false;
}

bool isModuleClass(const CXXRecordDecl *RD) {
  if (!RD || isModuleBaseClass(RD))
    return false;
  llvm::SmallPtrSet<const CXXRecordDecl *, 8> Seen;
  return anyBase(RD, isModuleBaseClass, 0, Seen);
}

static const CXXRecordDecl *firstTemplateArgRecord(const CXXRecordDecl *RD,
                                                   unsigned Index) {
  const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
  if (!Spec)
    return nullptr;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Args.size() <= Index || Args[Index].getKind() != TemplateArgument::Type)
    return nullptr;
  return Args[Index].getAsType()->getAsCXXRecordDecl();
}

const CXXRecordDecl *getHolderModule(QualType T) {
  if (T.isNull())
    return nullptr;
  const CXXRecordDecl *RD = T.getCanonicalType()->getAsCXXRecordDecl();
  if (!RD)
    return nullptr;
  auto IsHolder = [](const CXXRecordDecl *D) {
    return isClass(D, KnownClass::ModuleHolder);
  };
  const CXXRecordDecl *Holder = nullptr;
  if (IsHolder(RD)) {
    Holder = RD;
  } else {
    llvm::SmallPtrSet<const CXXRecordDecl *, 8> Seen;
    anyBase(
        RD,
        [&](const CXXRecordDecl *D) {
          if (IsHolder(D))
            Holder = D;
          return Holder != nullptr;
        },
        0, Seen);
  }
  return Holder ? firstTemplateArgRecord(Holder, 0) : nullptr;
}

const CXXRecordDecl *getSharedPtrModule(QualType T) {
  if (T.isNull())
    return nullptr;
  const CXXRecordDecl *RD = T.getCanonicalType()->getAsCXXRecordDecl();
  if (!isClass(RD, KnownClass::shared_ptr))
    return nullptr;
  const CXXRecordDecl *Pointee = firstTemplateArgRecord(RD, 0);
  return Pointee && (isModuleClass(Pointee) || isModuleBaseClass(Pointee))
             ? Pointee
             : nullptr;
}

bool isStatelessModule(const CXXRecordDecl *Impl) {
  return moduleFacts(Impl) & op::Stateless;
}

static QualType templateArgType(QualType T, unsigned Index) {
  T = T.getCanonicalType();
  if (const auto *RD = T->getAsCXXRecordDecl())
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
      const TemplateArgumentList &Args = Spec->getTemplateArgs();
      if (Index < Args.size() &&
          Args[Index].getKind() == TemplateArgument::Type)
        return Args[Index].getAsType();
    }
  return {};
}

QualType getContainerElementType(QualType T) {
  if (T.isNull())
    return {};
  const CXXRecordDecl *RD = T.getCanonicalType()->getAsCXXRecordDecl();
  if (isClass(RD, {KnownClass::vector, KnownClass::deque, KnownClass::list,
                   KnownClass::array}))
    return templateArgType(T, 0);
  if (isClass(RD, {KnownClass::map, KnownClass::unordered_map,
                   KnownClass::OrderedDict}))
    return templateArgType(T, 1);
  return {};
}

QualType getOptionalValueType(QualType T) {
  if (T.isNull())
    return {};
  const CXXRecordDecl *RD = T.getCanonicalType()->getAsCXXRecordDecl();
  if (isClass(RD, KnownClass::optional))
    return templateArgType(T, 0);
  return {};
}

MemberClass classifyMemberType(QualType T) {
  MemberClass C;
  if (T.isNull() || T->isDependentType() || T->isReferenceType() ||
      T->isPointerType())
    return C;
  if (const QualType Elem = getContainerElementType(T); !Elem.isNull()) {
    C = classifyMemberType(Elem);
    if (C.K != MemberClass::None)
      C.InContainer = true;
    return C;
  }
  if (const QualType Value = getOptionalValueType(T); !Value.isNull()) {
    if (isTensorType(Value)) {
      C.K = MemberClass::Tensor;
      C.IsOptional = true;
    }
    return C;
  }
  if (isTensorType(T)) {
    C.K = MemberClass::Tensor;
    return C;
  }
  if (const CXXRecordDecl *M = getHolderModule(T)) {
    C.K = MemberClass::Submodule;
    C.Module = M;
    return C;
  }
  if (const CXXRecordDecl *M = getSharedPtrModule(T)) {
    C.K = MemberClass::Submodule;
    C.Module = M;
    C.IsSharedPtr = true;
    return C;
  }
  if (const CXXRecordDecl *M = T.getCanonicalType()->getAsCXXRecordDecl();
      M && M->hasDefinition() && isModuleClass(M->getDefinition())) {
    C.K = MemberClass::Submodule;
    C.Module = M->getDefinition();
    C.ByValue = true;
  }
  return C;
}

const CXXRecordDecl *namedRecord(QualType T) {
  return T.isNull() ? nullptr : T.getNonReferenceType()->getAsCXXRecordDecl();
}

bool isDeviceClass(QualType T) {
  return isClass(namedRecord(T), KnownClass::Device);
}

bool isTensorOptionsClass(QualType T) {
  return isClass(namedRecord(T), KnownClass::TensorOptions);
}

/// \p T (or what a reference of it refers to) is the enum of row \p Enum.
static bool isEnumOf(QualType T, KnownClass Enum) {
  if (T.isNull())
    return false;
  const auto *ET =
      T.getNonReferenceType().getCanonicalType()->getAs<EnumType>();
  return ET && isClass(ET->getDecl(), Enum);
}

bool isDeviceTypeEnum(QualType T) {
  return isEnumOf(T, KnownClass::DeviceType);
}

bool isScalarTypeEnum(QualType T) {
  return isEnumOf(T, KnownClass::ScalarType);
}

DeviceLiteral deviceTypeLiteral(llvm::StringRef Enumerator) {
  if (Enumerator == "CPU")
    return DeviceLiteral::CPU;
  if (Enumerator == "CUDA" || Enumerator == "HIP")
    return DeviceLiteral::CUDA;
  return DeviceLiteral::Other;
}

DeviceLiteral parseDeviceString(llvm::StringRef S) {
  auto [Type, Index] = S.split(':');
  if (Type.empty() || !llvm::all_of(Type, [](char C) {
        return (C >= 'a' && C <= 'z') || C == '_';
      }))
    return DeviceLiteral::Invalid;
  if (S.contains(':') && (Index.empty() || !llvm::all_of(Index, llvm::isDigit)))
    return DeviceLiteral::Invalid;
  if (Type == "cpu")
    return DeviceLiteral::CPU;
  if (Type == "cuda" || Type == "hip")
    return DeviceLiteral::CUDA;
  return DeviceLiteral::Other;
}

std::optional<DeviceLiteral> deviceTypeOf(const Expr *E,
                                          const ASTContext &Ctx) {
  if (!E || E->isValueDependent() || !isDeviceTypeEnum(E->getType()))
    return std::nullopt;
  const auto *ET =
      E->getType().getNonReferenceType().getCanonicalType()->getAs<EnumType>();
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  for (const EnumConstantDecl *C : ET->getDecl()->enumerators())
    if (llvm::APSInt::isSameValue(C->getInitVal(), R.Val.getInt()))
      return deviceTypeLiteral(C->getName());
  return std::nullopt;
}

const Expr *firstTensorMacroArgument(const Stmt *S, const SourceManager &SM,
                                     unsigned Depth) {
  if (!S || Depth > limits::SearchDepth)
    return nullptr;
  if (const auto *E = dyn_cast<Expr>(S))
    if (E->getBeginLoc().isMacroID() &&
        SM.isMacroArgExpansion(E->getBeginLoc()) && isTensorType(E->getType()))
      return E;
  for (const Stmt *Child : S->children())
    if (const Expr *Found = firstTensorMacroArgument(Child, SM, Depth + 1))
      return Found;
  return nullptr;
}

} // namespace torchtidy
