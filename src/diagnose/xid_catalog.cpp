#include "diagnose/xid_catalog.hpp"

namespace gpuwatch::diagnose {

XidInfo xid_info(std::uint64_t xid) {
  switch (xid) {
    case 13: return {"graphics engine exception (often an out-of-range access in a kernel)", Severity::Info,
                     "an application error: debug the program (compute-sanitizer); no hardware action"};
    case 31: return {"GPU memory page fault (illegal address in a kernel)", Severity::Info,
                     "an application error: debug the program (compute-sanitizer); no hardware action"};
    case 43: return {"GPU stopped processing (the application's context was killed)", Severity::Info,
                     "usually follows an application fault; no hardware action"};
    case 45: return {"preemptive cleanup after the application was stopped", Severity::Info,
                     "follows a killed process or another Xid; no action by itself"};
    case 48: return {"double-bit (uncorrectable) ECC error", Severity::Critical,
                     "drain the GPU and reset it; replace it if it repeats"};
    case 61: case 62: return {"internal micro-controller error", Severity::Warning,
                              "reset the GPU if the job hangs; report it if it repeats"};
    case 63: return {"ECC page retirement or row remapping recorded", Severity::Warning,
                     "reset the GPU to apply the remap when convenient"};
    case 64: return {"ECC page retirement or row remapping failed", Severity::Critical,
                     "drain the GPU and replace it (RMA)"};
    case 74: return {"NVLink error", Severity::Critical, "check the NVLink links; reset the GPU or reboot the node"};
    case 79: return {"the GPU has fallen off the bus", Severity::Critical,
                     "drain the node and reboot; check seating, power and cooling"};
    case 92: return {"high single-bit ECC error rate", Severity::Warning, "watch the ECC counters; plan a reset"};
    case 94: return {"contained uncorrectable ECC error", Severity::Warning,
                     "the affected application was stopped; reset the GPU when it is idle"};
    case 95: return {"uncontained uncorrectable ECC error", Severity::Critical,
                     "drain the GPU and reset it before running anything else"};
    case 119: case 120: return {"GSP firmware error or timeout", Severity::Critical,
                                "reset the GPU; update the driver if it repeats"};
    case 154: return {"the GPU asks for a recovery action (see gpu_recovery_action)", Severity::Critical,
                      "do what the recovery action says: reset or reboot"};
    default: return {"see NVIDIA's Xid catalog", Severity::Warning, "look the Xid up in NVIDIA's Xid catalog"};
  }
}

}  // namespace gpuwatch::diagnose
