#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>

#include "segfeed/batch.h"

namespace segfeed::python {

// segfeed.Batch: one batch on loan from the loader's pool. The Lease lives
// in a capsule (`owner_`) that this Batch and every Tensor made from it hold;
// the buffer goes back to the pool when the last of them goes: release()
// (or the end of a `with` block) drops the Batch's references, arrays
// exported from its tensors keep theirs. After release() every accessor but
// `released` raises segfeed.Error; exports taken before stay valid.
class Batch {
 public:
  explicit Batch(Lease lease);

  const Lease& lease() const;
  nanobind::object images();
  nanobind::object masks();
  void Release();
  bool released() const { return !owner_.is_valid(); }

 private:
  nanobind::object owner_;           // capsule holding the Lease; invalid once released
  nanobind::object images_, masks_;  // Tensors, made on first access
};

// Registers segfeed.Batch on `module`.
void BindBatch(nanobind::module_& module);

}  // namespace segfeed::python
