// The method families, one line each (DESIGN.md: a new family is a new file in methods/ plus
// one line here).
#include "methods/factory.hpp"

namespace daekit {

MethodRegistration radau5_method();          // methods/radau.cpp (3-stage instance)
MethodRegistration bdf_method();             // methods/bdf.cpp
MethodRegistration projected_rk_method();    // methods/projected_rk.cpp
MethodRegistration radau_method();           // methods/radau.cpp
MethodRegistration dirk_method();            // methods/dirk.cpp
MethodRegistration erk_method();             // methods/erk.cpp
MethodRegistration beta_multistep_method();  // methods/beta_multistep.cpp
MethodRegistration spark_method();           // methods/spark.cpp
MethodRegistration hem_method();             // methods/hem.cpp

namespace {

const std::vector<MethodRegistration>& families() {
  static const std::vector<MethodRegistration> all = {
      radau5_method(),         bdf_method(),   projected_rk_method(),
      radau_method(),          dirk_method(),  erk_method(),
      beta_multistep_method(), spark_method(), hem_method(),
  };
  return all;
}

}  // namespace

const MethodRegistration& method_registration(const std::string& name) {
  for (const MethodRegistration& r : families())
    if (r.info.name == name) return r;
  std::string list;
  for (const MethodRegistration& r : families()) list += (list.empty() ? "" : ", ") + r.info.name;
  throw InvalidArgument("unknown method '" + name + "'; valid methods: " + list);
}

const std::vector<MethodInfo>& registered_methods() {
  static const std::vector<MethodInfo> infos = [] {
    std::vector<MethodInfo> v;
    for (const MethodRegistration& r : families()) v.push_back(r.info);
    return v;
  }();
  return infos;
}

std::vector<std::string> method_names() {
  std::vector<std::string> names;
  for (const MethodInfo& m : registered_methods()) names.push_back(m.name);
  return names;
}

const MethodInfo& method_info(const std::string& name) { return method_registration(name).info; }

std::string MethodInfo::summary() const {
  const MethodCapabilities& c = capabilities;
  std::string forms;
  if (c.mass_matrix_form) forms += "M y' = f";
  if (c.implicit_form) forms += std::string(forms.empty() ? "" : ", ") + "F(t, y, y') = 0";
  if (c.index2_form)
    forms += std::string(forms.empty() ? "" : ", ") + "(a(t, y))' = f, 0 = g(t, y)";
  std::string s = forms + "; index <= " + std::to_string(c.max_index) + "; order " +
                  (c.order > 0 ? std::to_string(c.order) : std::string("of the tableau")) +
                  (c.variable_order ? " (variable)" : "");
  s += c.error_estimate ? "; variable step" : "; constant step only";
  if (c.dense_output_order > 0) s += "; dense output order " + std::to_string(c.dense_output_order);
  if (c.projection) s += "; projection";
  if (c.own_step_control) s += "; own step/order control";
  if (c.explicit_method) s += "; explicit (not for stiff problems)";
  if (!c.linear_solvers.is_all()) s += "; linear solvers: " + c.linear_solvers.describe();
  return s;
}

}  // namespace daekit
