// The library's one export: NamespaceLabelPolicy as admission plugin
// "namespace-label".
#include <hami/admission.hpp>

#include "namespace_label_policy.hpp"

HAMI_EXPORT_ADMISSION_PLUGIN(hami::nslabel::NamespaceLabelPolicy, "namespace-label", "1.0.0",
                             "Sends vGPU pods to this scheduler only from namespaces that opt in "
                             "with a label",
                             hami::nslabel::kNamespaceLabelSchema, HAMI_FLAG_CONCURRENT_SAFE)
