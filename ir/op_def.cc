// ir/op_def.cc: the op-row builder and the shared type sets.
#include "ir/op_def.h"

#include <cassert>

namespace sluice::ir {

const std::vector<DType> kFloatTypes = {DType::kF16, DType::kF32, DType::kF64};
const std::vector<DType> kIntegerTypes = {DType::kI8, DType::kI16, DType::kI32,
                                          DType::kI64, DType::kU8};
const std::vector<DType> kNumericTypes = {DType::kF16, DType::kF32, DType::kF64,
                                          DType::kI8,  DType::kI16, DType::kI32,
                                          DType::kI64, DType::kU8};
const std::vector<DType> kRealAndBoolTypes = {
    DType::kF16, DType::kF32, DType::kF64, DType::kI8,  DType::kI16,
    DType::kI32, DType::kI64, DType::kU8,  DType::kBool};
const std::vector<DType> kIndexTypes = {DType::kI32, DType::kI64};

const AttrDef *OpDef::findAttr(std::string_view n) const {
  for (const auto &a : attrs)
    if (a.name == n)
      return &a;
  return nullptr;
}

ArgDef OpDefBuilder::parseArg(const std::string &spec) {
  ArgDef arg;
  auto colon = spec.find(':');
  assert(colon != std::string::npos && "arg spec needs 'name: type'");
  arg.name = spec.substr(0, colon);
  std::string type = spec.substr(colon + 1);
  while (!type.empty() && type.front() == ' ')
    type.erase(type.begin());
  auto star = type.find('*');
  if (star != std::string::npos) {
    arg.numberAttr = type.substr(0, star);
    type = type.substr(star + 1);
  }
  if (auto fixed = dtypeFromName(type)) {
    arg.fixedType = *fixed;
  } else if (star == std::string::npos && !type.empty() && type[0] == 'T' &&
             type.size() > 1 && type.find("list") != std::string::npos) {
    arg.typeListAttr = type; // e.g. "Tlist", "component_types" style names
  } else {
    arg.typeAttr = type;
  }
  return arg;
}

OpDefBuilder &OpDefBuilder::input(std::string spec) {
  def_.inputs.push_back(parseArg(spec));
  return *this;
}
OpDefBuilder &OpDefBuilder::output(std::string spec) {
  def_.outputs.push_back(parseArg(spec));
  return *this;
}
OpDefBuilder &OpDefBuilder::attr(std::string name, AttrType type,
                                 std::optional<AttrValue> def) {
  def_.attrs.push_back(AttrDef{std::move(name), type, std::move(def), {}, {}});
  return *this;
}
OpDefBuilder &OpDefBuilder::typeAttr(std::string name, std::vector<DType> allowed,
                                     std::optional<DType> def) {
  std::optional<AttrValue> d;
  if (def)
    d = AttrValue(*def);
  def_.attrs.push_back(AttrDef{std::move(name), AttrType::kType, std::move(d),
                               std::move(allowed), {}});
  return *this;
}
OpDefBuilder &OpDefBuilder::optional() {
  def_.attrs.back().optional = true;
  return *this;
}

OpDefBuilder &OpDefBuilder::signature(const std::string &names) {
  def_.signature.clear();
  std::string cur;
  for (char c : names + ",") {
    if (c == ',') {
      if (!cur.empty())
        def_.signature.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  return *this;
}

OpDef OpDefBuilder::build() {
  // An arg typed by a declared type-list attr ("components: output_types")
  // is a list, whatever the attr's name.
  for (auto *args : {&def_.inputs, &def_.outputs})
    for (ArgDef &a : *args)
      if (!a.typeAttr.empty() && a.numberAttr.empty())
        if (const AttrDef *d = def_.findAttr(a.typeAttr); d && d->type == AttrType::kTypeList) {
          a.typeListAttr = a.typeAttr;
          a.typeAttr.clear();
        }
  if (def_.signature.empty()) {
    for (const auto &in : def_.inputs)
      def_.signature.push_back(in.name);
    for (const auto &a : def_.attrs)
      def_.signature.push_back(a.name);
  }
  return std::move(def_);
}

OpDefBuilder &OpDefBuilder::minimum(int64_t m) {
  def_.attrs.back().minimum = m;
  return *this;
}

} // namespace sluice::ir
