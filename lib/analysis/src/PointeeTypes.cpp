//===--- PointeeTypes.cpp - C++ element types against dtypes --------------===//

#include "torchtidy/analysis/PointeeTypes.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecordLayout.h"

using namespace clang;

namespace torchtidy {

namespace {

bool isDeviceValue(QualType T) {
  return isDeviceClass(T) || isDeviceTypeEnum(T);
}

/// The initialiser of a local variable that nothing in its function
/// reassigns, else null.
const Expr *stableInitialiser(const Expr *E) {
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E);
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!VD || !VD->getInit() || !VD->isLocalVarDecl() ||
      DRE->refersToEnclosingVariableOrCapture())
    return nullptr;
  const auto *FD =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  if (!FD || !FD->getBody() || isReassigned(VD))
    return nullptr;
  return VD->getInit();
}

OptionsDtype optionsDtype(const Expr *E, const ASTContext &Ctx,
                          unsigned Depth) {
  OptionsDtype R;
  if (!E || Depth > limits::DeviceValueSteps * 2)
    return R;
  // Conversions to TensorOptions (from a ScalarType, a Device) and to
  // optional<ScalarType>, down to the value converted: not into a
  // ScalarType or a Device, nor into a construction of no written argument.
  E = peel::peelUntil(E, peel::PassedOn,
                      peel::SingleArgumentConstructions | peel::FunctionalCasts,
                      [](const Expr *V) {
                        const auto *CE = dyn_cast<CXXConstructExpr>(V);
                        return isScalarTypeEnum(V->getType()) ||
                               isDeviceValue(V->getType()) ||
                               (CE && peel::noWrittenArgs(CE));
                      });
  if (isScalarTypeEnum(E->getType())) {
    if (std::optional<Dtype> D = evaluateScalarType(E, Ctx)) {
      R.K = OptionsDtype::Given;
      R.D = *D;
      R.Where = E;
      return R;
    }
    if (const Expr *Init = stableInitialiser(E))
      return optionsDtype(Init, Ctx, Depth + 1);
    return R;
  }
  // A device where options are expected: no dtype.
  if (isDeviceValue(E->getType())) {
    R.K = OptionsDtype::Default;
    return R;
  }
  // TensorOptions() gives the default dtype; a construction of more
  // arguments, none.
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    if (peel::noWrittenArgs(CE))
      R.K = OptionsDtype::Default;
    return R;
  }
  if (isa<CXXScalarValueInitExpr>(E) || isa<ImplicitValueInitExpr>(E)) {
    R.K = OptionsDtype::Default;
    return R;
  }
  if (const Expr *Init = stableInitialiser(E))
    return optionsDtype(Init, Ctx, Depth + 1);
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call || !Call->getDirectCallee() ||
      !Call->getDirectCallee()->getIdentifier())
    return R;
  const FunctionDecl *FD = Call->getDirectCallee();
  const op::Form Form = formOf(FD);
  const op::FactSet Facts = opFacts(FD->getName(), Form);
  if (!(Facts & (op::OptionsDevice | op::OptionsNonDevice)))
    return R;
  // The setter that takes a ScalarType is the dtype's; the others (device,
  // requires_grad, layout...) keep the dtype of the options they are
  // called on, or give none (the free shortcuts).
  const Expr *Arg = Call->getNumArgs() == 1 ? Call->getArg(0) : nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    Arg = MC->getNumArgs() == 1 ? MC->getArg(0) : nullptr;
  if ((Facts & op::OptionsNonDevice) && Arg) {
    const Expr *Value = peel::peelUntil(
        Arg, peel::PassedOn, peel::SingleArgumentConstructions,
        [](const Expr *V) { return isScalarTypeEnum(V->getType()); });
    if (isScalarTypeEnum(Value->getType()))
      return optionsDtype(Value, Ctx, Depth + 1);
    if (isClass(namedRecord(Value->getType()), KnownClass::TypeMeta))
      return R; // dtype(caffe2::TypeMeta)
  }
  if (Form == op::Options)
    return optionsDtype(
        cast<CXXMemberCallExpr>(Call)->getImplicitObjectArgument(), Ctx,
        Depth + 1);
  if (Form == op::Aten)
    R.K = OptionsDtype::Default;
  return R;
}

/// The record's fields, through bases and nested records and arrays, all
/// hold \p D and the record has no padding and nothing virtual.
bool recordOfOnly(const CXXRecordDecl *RD, const Dtype &D,
                  const ASTContext &Ctx, unsigned Depth) {
  if (!RD || Depth > limits::HierarchyDepth)
    return false;
  RD = RD->getDefinition();
  if (!RD || RD->isInvalidDecl() || RD->isDependentType() ||
      RD->isPolymorphic() || RD->isUnion())
    return false;
  uint64_t Bits = 0;
  for (const CXXBaseSpecifier &B : RD->bases()) {
    const auto *Base = B.getType()->getAsCXXRecordDecl();
    if (B.isVirtual() || !recordOfOnly(Base, D, Ctx, Depth + 1))
      return false;
    if (!Base->isEmpty())
      Bits += Ctx.getTypeSize(B.getType());
  }
  for (const FieldDecl *F : RD->fields()) {
    if (F->isBitField())
      return false;
    const QualType T = F->getType();
    if (T->isDependentType() || T->isIncompleteType())
      return false;
    if (compareElements(T, D, Ctx) != ElementMatch::Same)
      return false;
    Bits += Ctx.getTypeSize(T);
  }
  // The record's size from its layout (no getRecordType: LLVM 22 removed it).
  return Bits > 0 && Bits == static_cast<uint64_t>(Ctx.toBits(
                                 Ctx.getASTRecordLayout(RD).getSize()));
}

} // namespace

std::optional<Dtype> dtypeNamed(llvm::StringRef Name) {
  for (const Dtype &D : dtypeRows())
    if (D.Name == Name)
      return D;
  return std::nullopt;
}

std::optional<Dtype> evaluateScalarType(const Expr *E, const ASTContext &Ctx) {
  if (!E)
    return std::nullopt;
  E = peelValue(E);
  if (!isScalarTypeEnum(E->getType()) || E->isValueDependent())
    return std::nullopt;
  Expr::EvalResult Result;
  if (!E->EvaluateAsRValue(Result, Ctx) || !Result.Val.isInt())
    return std::nullopt;
  const llvm::APSInt &V = Result.Val.getInt();
  const auto *ET = E->getType().getCanonicalType()->getAs<EnumType>();
  for (const EnumConstantDecl *C : ET->getDecl()->enumerators())
    if (llvm::APSInt::isSameValue(C->getInitVal(), V))
      return dtypeNamed(C->getName());
  return std::nullopt;
}

OptionsDtype dtypeOfOptions(const Expr *Options, const ASTContext &Ctx) {
  if (!Options) {
    OptionsDtype R;
    R.K = OptionsDtype::Default;
    return R;
  }
  return optionsDtype(Options, Ctx, 0);
}

std::optional<Dtype> dtypeOfCppType(QualType T, const ASTContext &Ctx) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (const auto *ET = T->getAs<EnumType>())
    T = ET->getDecl()->getIntegerType().getCanonicalType();
  if (T.isNull())
    return std::nullopt;
  if (const auto *BT = T->getAs<BuiltinType>()) {
    if (BT->isBooleanType())
      return dtypeRow(DtypeName::Bool);
    const uint64_t Bytes = Ctx.getTypeSize(T) / 8;
    if (BT->isFloatingPoint()) {
      switch (BT->getKind()) {
      case BuiltinType::Float:
        return dtypeRow(DtypeName::Float);
      case BuiltinType::Double:
        if (Bytes != 8)
          return std::nullopt;
        return dtypeRow(DtypeName::Double);
      case BuiltinType::Half:
      case BuiltinType::Float16:
        return dtypeRow(DtypeName::Half);
      case BuiltinType::BFloat16:
        return dtypeRow(DtypeName::BFloat16);
      default:
        return std::nullopt;
      }
    }
    if (BT->isInteger() && !BT->isUnsignedInteger())
      switch (Bytes) {
      case 1:
        return dtypeRow(DtypeName::Char);
      case 2:
        return dtypeRow(DtypeName::Short);
      case 4:
        return dtypeRow(DtypeName::Int);
      case 8:
        return dtypeRow(DtypeName::Long);
      default:
        return std::nullopt;
      }
    if (BT->isUnsignedInteger() && Bytes == 1)
      return dtypeRow(DtypeName::Byte);
    return std::nullopt;
  }
  const auto *RD = T->getAsCXXRecordDecl();
  if (isClass(RD, {KnownClass::Half, KnownClass::__half}))
    return dtypeRow(DtypeName::Half);
  if (isClass(RD, {KnownClass::BFloat16, KnownClass::__nv_bfloat16}))
    return dtypeRow(DtypeName::BFloat16);
  if (isClass(RD, KnownClass::complex)) {
    const auto *CTSD = dyn_cast<ClassTemplateSpecializationDecl>(RD);
    if (!CTSD || CTSD->getTemplateArgs().size() != 1 ||
        CTSD->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
      return std::nullopt;
    std::optional<Dtype> Part =
        dtypeOfCppType(CTSD->getTemplateArgs()[0].getAsType(), Ctx);
    if (!Part)
      return std::nullopt;
    for (const Dtype &D : dtypeRows())
      if (D.K == Dtype::Complex && dtypeRow(D.Real).Name == Part->Name)
        return D;
  }
  return std::nullopt;
}

ElementMatch compareElements(QualType T, const Dtype &D,
                             const ASTContext &Ctx) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (T->isVoidType() || T->isSpecificBuiltinType(BuiltinType::Char_S) ||
      T->isSpecificBuiltinType(BuiltinType::Char_U) || T->isStdByteType())
    return ElementMatch::RawBytes;
  if (const auto *AT = Ctx.getAsArrayType(T))
    return compareElements(AT->getElementType(), D, Ctx);
  if (std::optional<Dtype> Own = dtypeOfCppType(T, Ctx)) {
    if (Own->Name == D.Name)
      return ElementMatch::Same;
    const bool IntLike = [](const Dtype &X) {
      return X.K == Dtype::Integer || X.K == Dtype::Bool;
    }(*Own);
    const bool DIntLike = D.K == Dtype::Integer || D.K == Dtype::Bool;
    if (IntLike && DIntLike && Own->Bytes == D.Bytes)
      return ElementMatch::SameBytes;
    return ElementMatch::Mismatch;
  }
  // Unsigned integers wider than a byte have no dtype in 1.13; their bytes
  // are the signed type's of that size.
  if (T->isUnsignedIntegerType() && !T->isEnumeralType()) {
    const uint64_t Bytes = Ctx.getTypeSize(T) / 8;
    return D.K == Dtype::Integer && D.Bytes == Bytes ? ElementMatch::SameBytes
                                                     : ElementMatch::Mismatch;
  }
  if (const auto *RD = T->getAsCXXRecordDecl())
    return recordOfOnly(RD, D, Ctx, 0) ? ElementMatch::Same
                                       : ElementMatch::Mismatch;
  return ElementMatch::Mismatch;
}

std::optional<BlobDtypeMismatch> checkBlobDtype(const FromBlobCall &Blob,
                                                const Stmt *Body,
                                                const ASTContext &Ctx,
                                                bool DefaultDtypeChanged) {
  const BufferOrigin Buffer = bufferOrigin(Blob.Data, Body);
  if (Buffer.Element.isNull() || Buffer.Element->isDependentType() ||
      Buffer.Element->isIncompleteType())
    return std::nullopt;
  OptionsDtype Given = dtypeOfOptions(Blob.Options, Ctx);
  if (Given.K == OptionsDtype::Unknown)
    return std::nullopt;
  if (Given.K == OptionsDtype::Default) {
    if (DefaultDtypeChanged)
      return std::nullopt;
    Given.D = dtypeRow(DtypeName::Float);
  }
  const ElementMatch M = compareElements(Buffer.Element, Given.D, Ctx);
  if (M != ElementMatch::Mismatch)
    return std::nullopt;
  // A declared pointee of a byte size is taken as bytes: image buffers are
  // declared `unsigned char *` whatever they hold.
  if (Buffer.DeclaredPointee && Ctx.getTypeSize(Buffer.Element) == 8)
    return std::nullopt;
  BlobDtypeMismatch R;
  R.Blob = Blob;
  R.Buffer = Buffer;
  R.Given = Given;
  R.Matching = dtypeOfCppType(Buffer.Element, Ctx);
  return R;
}

} // namespace torchtidy
