//===--- TensorStorage.cpp - Whose memory a tensor or pointer reads -------===//

#include "torchtidy/analysis/TensorStorage.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/OpSwitch.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Type.h"

using namespace clang;

namespace torchtidy {

const Expr *peelValue(const Expr *E) { return peel::peel(E, peel::PassedOn); }

const Expr *peelTemporaries(const Expr *E) {
  return peel::peel(E, peel::CopiedAsComputed);
}

namespace {

/// The table's name of a C++ operator of at::Tensor (ATen's
/// TensorOperators.h defines each as that op), or "".
llvm::StringRef operatorOpName(const CXXOperatorCallExpr *Op) {
  const bool Binary = Op->getNumArgs() == 2;
  switch (Op->getOperator()) {
  case OO_Plus:
    return Binary ? opName(op::Named::add) : "";
  case OO_Minus:
    return Binary ? opName(op::Named::sub) : opName(op::Named::neg);
  case OO_Star:
    return Binary ? opName(op::Named::mul) : "";
  case OO_Slash:
    return opName(op::Named::div);
  case OO_Less:
    return opName(op::Named::lt);
  case OO_LessEqual:
    return opName(op::Named::le);
  case OO_Greater:
    return opName(op::Named::gt);
  case OO_GreaterEqual:
    return opName(op::Named::ge);
  default:
    return "";
  }
}

/// An element of an index list `{Slice(), idx}` is a tensor (advanced
/// indexing copies; slices and integers give a view).
bool listHasTensor(const Expr *List) {
  const InitListExpr *IL = peel::writtenList(List);
  if (!IL)
    // Not a braced list: an index vector built elsewhere, maybe of tensors.
    return true;
  // An element is a tensor, or made from one (a TensorIndex of it).
  return llvm::any_of(IL->inits(), [](const Expr *Init) {
    const Expr *E = peel::peel(Init, peel::FromLiteral);
    return isTensorType(E->getType().getNonReferenceType());
  });
}

/// The first argument of \p Call that is a tensor.
const Expr *firstTensorArg(const CallExpr *Call) {
  for (const Expr *Arg : Call->arguments())
    if (isTensorType(Arg->getType().getNonReferenceType()))
      return Arg;
  return nullptr;
}

/// \p S with the kind \p K.
StorageStep withKind(StorageStep S, StorageStep::Kind K) {
  S.K = K;
  return S;
}

/// \p S (a LibTorch method or free function, its name and input set) with
/// the kind of step the table's facts of the op make it.
StorageStep opStep(const OpCall &C, const StorageStep &S) {
  using R = std::optional<StorageStep>;
  using Switch = OpSwitch<StorageStep, const StorageStep &>;
  static const Switch Step =
      Switch()
          // from_blob(p, ...): the memory is p's, not a tensor's.
          .caseOf(facts(op::WrapsMemory),
                  [](const OpCall &, const StorageStep &S) -> R {
                    StorageStep Blob = withKind(S, StorageStep::WrapsBlob);
                    Blob.Input = nullptr;
                    return Blob;
                  })
          // What follows is of ops that give a tensor.
          .caseOf(anyCall(),
                  [](const OpCall &C, const StorageStep &) -> R {
                    if (isTensorType(C.Call->getType().getNonReferenceType()))
                      return std::nullopt;
                    return StorageStep{};
                  })
          // In-place ops and views share their input's storage, and so
          // does an op that returns a reference (to its input).
          .caseOf(anyCall(),
                  [](const OpCall &C, const StorageStep &S) -> R {
                    const bool ByReference =
                        C.Callee->getReturnType()->isReferenceType();
                    if (!(C.Facts & (op::InPlace | op::View)) &&
                        !(ByReference && S.Input))
                      return std::nullopt;
                    return withKind(S, S.Input ? StorageStep::View
                                               : StorageStep::Unknown);
                  })
          .caseOf(OpPattern().noneOf(op::Allocates),
                  [](const OpCall &, const StorageStep &) -> R {
                    return StorageStep{};
                  })
          // t.index({0, Slice()}): integers and slices give a view.
          .caseOf(form(op::Method).named({op::Named::index}),
                  [](const OpCall &C, const StorageStep &S) -> R {
                    if (C.Call->getNumArgs() < 1 ||
                        listHasTensor(C.Call->getArg(0)))
                      return std::nullopt;
                    return withKind(S, StorageStep::View);
                  })
          .caseOf(anyCall(), [](const OpCall &C, const StorageStep &S) -> R {
            return withKind(S, (C.Facts & op::MayReturnSelf) && S.Input
                                   ? StorageStep::MayAlias
                                   : StorageStep::Allocates);
          });
  return Step(C, StorageStep{}, S);
}

} // namespace

StorageStep storageStep(const Expr *E) {
  StorageStep S;
  E = peelValue(E);
  if (!E)
    return S;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (isa<VarDecl>(DRE->getDecl())) {
      S.K = StorageStep::Named;
      S.Decl = DRE->getDecl();
    }
    return S;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (isa<FieldDecl>(ME->getMemberDecl())) {
      S.K = StorageStep::Named;
      S.Decl = ME->getMemberDecl();
    }
    return S;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call)
    return S;
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return S;
  S.Op = Call;
  const bool ByReference = FD->getReturnType()->isReferenceType();

  // Operators of at::Tensor: `a + b`, `t[i]`.
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
    const bool TensorOperand =
        Op->getNumArgs() >= 1 &&
        isTensorType(Op->getArg(0)->getType().getNonReferenceType());
    if (!TensorOperand || !isTensorType(Call->getType().getNonReferenceType()))
      return StorageStep{};
    S.Input = Op->getArg(0);
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
      // t[i] is a view; t[idx] with a tensor index copies.
      const bool Advanced =
          isTensorType(Op->getArg(1)->getType().getNonReferenceType());
      S.K = Advanced ? StorageStep::Allocates : StorageStep::View;
      S.OpName = opName(Advanced ? op::Named::index : op::Named::select);
      return S;
    }
    if (ByReference) { // +=, -=...: in place, the same tensor
      S.K = StorageStep::View;
      return S;
    }
    S.OpName = operatorOpName(Op);
    if (S.OpName.empty() ||
        !hasOpFact(S.OpName, op::Method | op::Aten, op::Allocates))
      return StorageStep{};
    S.K = StorageStep::Allocates;
    return S;
  }

  if (!FD->getIdentifier())
    return StorageStep{};
  const OpCall C = OpCall::of(Call);
  if (C.Form != op::Method && C.Form != op::Aten)
    return StorageStep{};
  S.OpName = FD->getName();
  S.Input = C.Form == op::Method
                ? cast<CXXMemberCallExpr>(Call)->getImplicitObjectArgument()
                : firstTensorArg(Call);
  return opStep(C, S);
}

const Expr *rawDataObject(const CallExpr *Call) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(Call);
  if (!MC || !(callFacts(MC) & op::RawData) ||
      isTensorType(MC->getType().getNonReferenceType()))
    return nullptr;
  return MC->getImplicitObjectArgument();
}

/// `std::function<...>` under any alias (torch::Deleter).
static bool isStdFunction(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return isClass(RD, KnownClass::function);
}

std::optional<FromBlobCall> matchFromBlob(const CallExpr *Call) {
  if (!Call || !(callFacts(Call) & op::WrapsMemory) || Call->getNumArgs() < 2)
    return std::nullopt;
  const FunctionDecl *FD = Call->getDirectCallee();
  FromBlobCall B;
  B.Call = Call;
  B.Data = Call->getArg(0);
  B.Sizes = Call->getArg(1);
  unsigned LastWritten = 0;
  for (unsigned I = 0; I < Call->getNumArgs() && I < FD->getNumParams(); ++I) {
    const Expr *Arg = Call->getArg(I);
    const QualType PT = FD->getParamDecl(I)->getType();
    const bool Written = !isa<CXXDefaultArgExpr>(Arg);
    if (Written)
      LastWritten = I;
    if (isStdFunction(PT))
      B.HasDeleter = true;
    else if (isTensorOptionsClass(PT) && Written)
      B.Options = Arg;
  }
  B.LastWritten = Call->getArg(LastWritten);
  B.OptionsParamFollows =
      LastWritten + 1 < FD->getNumParams() &&
      isTensorOptionsClass(FD->getParamDecl(LastWritten + 1)->getType());
  return B;
}

bool hasAutomaticStorage(const VarDecl *VD) {
  return VD && VD->hasLocalStorage() && !VD->getType()->isReferenceType() &&
         !VD->isStaticLocal();
}

namespace {

/// A standard container whose elements `data()` gives: std::vector,
/// std::basic_string, std::array, and std::unique_ptr<T[]> (get()).
QualType containerElement(QualType T) {
  T = T.getNonReferenceType();
  const auto *RD = T->getAsCXXRecordDecl();
  if (!isClass(RD, {KnownClass::vector, KnownClass::basic_string,
                    KnownClass::array, KnownClass::unique_ptr}))
    return {};
  const auto *CTSD = dyn_cast<ClassTemplateSpecializationDecl>(RD);
  if (!CTSD || CTSD->getTemplateArgs().size() == 0 ||
      CTSD->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return {};
  QualType Arg = CTSD->getTemplateArgs()[0].getAsType();
  if (!isClass(RD, KnownClass::unique_ptr))
    return Arg;
  if (Arg->isArrayType())
    return {Arg->getArrayElementTypeNoTypeQual(), 0};
  return {};
}

/// A variable named by \p E (not a capture of a lambda: its storage is the
/// closure's or the enclosing function's).
const VarDecl *namedVar(const Expr *E) {
  const DeclRefExpr *DRE = peel::declRef(E);
  if (!DRE || DRE->refersToEnclosingVariableOrCapture())
    return nullptr;
  return dyn_cast<VarDecl>(DRE->getDecl());
}

void setOwner(BufferOrigin &O, BufferOrigin::Kind K, const Expr *Ref,
              QualType Element) {
  O.K = K;
  O.OwnerRef = peel::peel(Ref, peel::ParenImpCasts);
  O.Owner = namedVar(Ref);
  O.Element = Element;
  O.Automatic = hasAutomaticStorage(O.Owner);
  if (!O.Owner)
    O.K = BufferOrigin::Unknown;
}

/// The buffer of \p E, an lvalue of one element (`v[0]`, `a[i]`, `x`).
BufferOrigin elementOrigin(const Expr *E, const Stmt *Body, unsigned Depth);

/// \p Obj is a temporary object whose lifetime is its full-expression (not
/// one bound to a reference that extends it).
bool isTemporaryObject(const Expr *Obj) {
  const auto *MTE =
      dyn_cast_or_null<MaterializeTemporaryExpr>(peel::peel(Obj, peel::Parens));
  return MTE && !MTE->getExtendingDecl();
}

/// \p Obj is a temporary made by a deep copy of an object of its own class
/// (`img.clone()`: the table's Allocates for a member of any class): it
/// owns the memory its pointer fields point to.
bool isTemporaryDeepCopy(const Expr *Obj) {
  if (!isTemporaryObject(Obj))
    return false;
  const auto *MC = dyn_cast<CXXMemberCallExpr>(
      peel::peel(Obj, peel::Compiler | peel::CopiesAndMoves));
  const Expr *Source = MC ? MC->getImplicitObjectArgument() : nullptr;
  const CXXRecordDecl *Made =
      MC ? MC->getType()->getAsCXXRecordDecl() : nullptr;
  return Source && Made && !isTensorType(MC->getType()) &&
         (callFacts(MC) & op::Allocates) &&
         Made == Source->getType().getNonReferenceType()->getAsCXXRecordDecl();
}

BufferOrigin pointerOrigin(const Expr *E, const Stmt *Body, unsigned Depth) {
  BufferOrigin O;
  if (!E || Depth > limits::OriginDepth)
    return O;
  // Casts: the memory is what it was before them.
  E = peel::peel(E, peel::SamePointer);
  if (const auto *Cast = dyn_cast<ImplicitCastExpr>(E);
      Cast && Cast->getCastKind() == CK_ArrayToPointerDecay) {
    const Expr *Arr = peel::peel(Cast->getSubExpr(), peel::Parens);
    if (const auto *AT = Arr->getType()->getAsArrayTypeUnsafe()) {
      setOwner(O, BufferOrigin::Array, Arr, AT->getElementType());
      const auto *ME = dyn_cast<MemberExpr>(Arr);
      if (O.K == BufferOrigin::Unknown && ME && !ME->isArrow())
        // An array member of a local object lives in that object.
        if (const Expr *Base = ME->getBase())
          if (const VarDecl *VD = namedVar(Base)) {
            O.K = BufferOrigin::Array;
            O.Owner = VD;
            O.OwnerRef = peel::peel(Base, peel::ParenImpCasts);
            O.Element = AT->getElementType();
            O.Automatic = hasAutomaticStorage(VD);
          }
    }
    return O;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E);
      UO && UO->getOpcode() == UO_AddrOf)
    return elementOrigin(UO->getSubExpr(), Body, Depth + 1);
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const Expr *Obj = MC->getImplicitObjectArgument();
    const op::FactSet Facts = callFacts(MC);
    const QualType Element =
        Obj ? containerElement(Obj->getType()) : QualType();
    if (!Element.isNull() &&
        (Facts & (op::ContainerData | op::ContainerAccess))) {
      setOwner(O, BufferOrigin::Container, Obj, Element);
      if (isTemporaryObject(Obj)) {
        O.K = BufferOrigin::Temporary;
        O.OwnerRef = peel::peel(Obj, peel::Parens);
      }
    }
    return O;
  }
  // A pointer field of a temporary deep copy: `img.clone().data`.
  if (const auto *ME = dyn_cast<MemberExpr>(E);
      ME && !ME->isArrow() && isa<FieldDecl>(ME->getMemberDecl()) &&
      ME->getType()->isPointerType() && isTemporaryDeepCopy(ME->getBase())) {
    O.K = BufferOrigin::Temporary;
    O.OwnerRef = peel::peel(ME->getBase(), peel::Parens);
    const QualType Pointee = ME->getType()->getPointeeType();
    if (!Pointee->isVoidType() && !Pointee->isCharType()) {
      O.Element = Pointee;
      O.DeclaredPointee = true;
    }
    return O;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    if (!VD || !VD->getType()->isPointerType())
      return O;
    const QualType Pointee = VD->getType()->getPointeeType();
    // A local pointer that nothing reassigns: where its initialiser points.
    if (VD->isLocalVarDecl() && !DRE->refersToEnclosingVariableOrCapture() &&
        VD->getInit() && Body && !isReassigned(VD)) {
      const Expr *Init =
          peel::peel(VD->getInit(), peel::Converted | peel::TemplateArguments);
      if (const auto *New = dyn_cast<CXXNewExpr>(Init)) {
        O.K = BufferOrigin::Pointer;
        O.Owner = VD;
        O.OwnerRef = DRE;
        O.Element = New->getAllocatedType();
        O.Automatic = false;
        return O;
      }
      BufferOrigin Inner = pointerOrigin(VD->getInit(), Body, Depth + 1);
      if (Inner.K != BufferOrigin::Unknown)
        return Inner;
    }
    if (DRE->refersToEnclosingVariableOrCapture())
      return O;
    if (VD->isLocalVarDecl()) {
      O.K = BufferOrigin::Pointer;
      O.Owner = VD;
      O.OwnerRef = DRE;
    }
    // The declared pointee says what the memory holds, unless it is a byte
    // pointer or void.
    if (!Pointee->isVoidType() && !Pointee->isCharType()) {
      O.Element = Pointee;
      O.DeclaredPointee = true;
    }
    return O;
  }
  return O;
}

BufferOrigin elementOrigin(const Expr *E, const Stmt *Body, unsigned Depth) {
  BufferOrigin O;
  if (!E || Depth > limits::OriginDepth)
    return O;
  E = peel::peel(E, peel::ParenImpCasts);
  // a[i], p[i]: the buffer of a or p.
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E))
    return pointerOrigin(ASE->getBase(), Body, Depth + 1);
  // v[i], v.at(i), v.front() of a container.
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
      const QualType Element = containerElement(Op->getArg(0)->getType());
      if (!Element.isNull())
        setOwner(O, BufferOrigin::Container, Op->getArg(0), Element);
    }
    return O;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const Expr *Obj = MC->getImplicitObjectArgument();
    const QualType Element =
        Obj ? containerElement(Obj->getType()) : QualType();
    if (!Element.isNull() && (callFacts(MC) & op::ContainerAccess))
      setOwner(O, BufferOrigin::Container, Obj, Element);
    return O;
  }
  // *p: the buffer of p.
  if (const auto *UO = dyn_cast<UnaryOperator>(E);
      UO && UO->getOpcode() == UO_Deref)
    return pointerOrigin(UO->getSubExpr(), Body, Depth + 1);
  // &x of a variable: x itself (a container's own bytes are no buffer).
  if (const VarDecl *VD = namedVar(E)) {
    const QualType T = VD->getType().getNonReferenceType();
    if (!containerElement(T).isNull())
      return O;
    if (const auto *AT = T->getAsArrayTypeUnsafe())
      setOwner(O, BufferOrigin::Array, E, AT->getElementType());
    else
      setOwner(O, BufferOrigin::Scalar, E, T);
    // A reference parameter is the caller's object.
    if (VD->getType()->isReferenceType())
      O.Automatic = false;
  }
  return O;
}

} // namespace

BufferOrigin bufferOrigin(const Expr *Data, const Stmt *Body) {
  return pointerOrigin(Data, Body, 0);
}

bool isReassigned(const VarDecl *VD) {
  // The function around it, also from an OpenMP region or a block (whose
  // CapturedDecl or BlockDecl is the declaration's context).
  const DeclContext *DC = VD ? VD->getDeclContext() : nullptr;
  while (DC && !isa<FunctionDecl>(DC))
    DC = DC->getParent();
  const auto *FD = dyn_cast_or_null<FunctionDecl>(DC);
  FunctionContext *Fn =
      FD ? FunctionContexts::of(VD->getASTContext()).get(FD) : nullptr;
  // Nothing to read: it may be anything.
  if (!Fn)
    return true;
  return Fn->isMutated(VD);
}

} // namespace torchtidy
