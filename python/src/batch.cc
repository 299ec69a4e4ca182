#include "batch.h"

#include <nanobind/stl/string.h>

#include <unistd.h>

#include <string>
#include <utility>

#include "exceptions.h"
#include "fields.h"
#include "segfeed/options.h"
#include "tensor.h"

namespace nb = nanobind;

namespace segfeed::python {
namespace {

// A Lease and the process it belongs to. In a forked child the pool's
// bookkeeping is a copy the parent's threads may have left mid-update, so a
// child never gives a lease back: it leaks its copy instead.
struct OwnedLease {
  Lease lease;
  pid_t pid;
};

void DeleteOwnedLease(void* pointer) noexcept {
  auto* owned = static_cast<OwnedLease*>(pointer);
  if (owned->pid == getpid()) delete owned;
}

std::string Repr(const Batch& b) {
  if (b.released()) return "<segfeed.Batch (released)>";
  const Lease& l = b.lease();
  const TensorView& images = l.images();
  std::string shape;
  for (int i = 0; i < 4; ++i) shape += std::to_string(images.shape[i]) + (i < 3 ? "x" : "");
  return "<segfeed.Batch epoch " + std::to_string(l.epoch()) + " index " +
         std::to_string(l.batch_index()) + ": " + std::to_string(l.size()) + " samples, images " +
         shape + " " + std::string(ElementTypeName(images.element_type)) + " " +
         std::string(LayoutName(l.layout())) + ", masks " +
         std::string(ElementTypeName(l.masks().element_type)) + ">";
}

}  // namespace

Batch::Batch(Lease lease)
    : owner_(nb::capsule(new OwnedLease{std::move(lease), getpid()}, "segfeed.Lease",
                         &DeleteOwnedLease)) {}

const Lease& Batch::lease() const {
  if (released())
    throw BindingError(
        "this segfeed.Batch was released; arrays exported from it before stay valid");
  return static_cast<const OwnedLease*>(nb::borrow<nb::capsule>(owner_).data())->lease;
}

nb::object Batch::images() {
  const Lease& l = lease();
  if (!images_.is_valid()) images_ = nb::cast(Tensor(owner_, l.images()), nb::rv_policy::move);
  return images_;
}

nb::object Batch::masks() {
  const Lease& l = lease();
  if (!masks_.is_valid()) masks_ = nb::cast(Tensor(owner_, l.masks()), nb::rv_policy::move);
  return masks_;
}

void Batch::Release() {
  images_.reset();
  masks_.reset();
  owner_.reset();
}

void BindBatch(nb::module_& m) {
  nb::class_<Batch>(
      m, "Batch",
      "One batch from a Loader, on loan from its pool of buffers.\n\n"
      "images and masks are Tensors over the pool memory (no copy). The buffer goes back\n"
      "to the loader when the Batch is released (release(), the end of a `with` block, or\n"
      "garbage collection) and every array exported from its tensors is gone. After\n"
      "release() every attribute but `released` raises segfeed.Error.")
      .def_prop_ro(
          "images", &Batch::images,
          "Images, N x H x W x 3 (layout 'nhwc') or N x 3 x H x W ('nchw'), of image_dtype.")
      .def_prop_ro("masks", &Batch::masks, "Masks, N x H x W x 1 of mask_dtype, exactly 0 or 1.")
      .def_prop_ro(
          "epoch", [](const Batch& b) { return b.lease().epoch(); },
          "The epoch this batch belongs to.")
      .def_prop_ro(
          "index", [](const Batch& b) { return b.lease().batch_index(); },
          "Index of the batch within its epoch (and shard).")
      .def_prop_ro(
          "size", [](const Batch& b) { return b.lease().size(); },
          "Samples in this batch: batch_size, or fewer for a short last batch.")
      .def_prop_ro(
          "batch_size", [](const Batch& b) { return b.lease().batch_size(); },
          "The loader's batch_size.")
      .def_prop_ro(
          "layout", [](const Batch& b) { return std::string(LayoutName(b.lease().layout())); },
          "Image layout: 'nhwc' or 'nchw'.")
      .def_prop_ro(
          "sample_ids",
          [](const Batch& b) {
            const auto ids = b.lease().sample_ids();
            nb::list out;
            for (uint32_t id : ids) out.append(id);
            return nb::tuple(out);
          },
          "Per sample, in slot order: the index of its pair in the dataset listing "
          "(Loader.pairs()).")
      .def_prop_ro(
          "params",
          [](const Batch& b) {
            nb::list out;
            for (const AugmentParams& p : b.lease().params()) out.append(FieldsDict(p));
            return out;
          },
          "Per sample, the augmentation applied: a dict with flip_lr, flip_ud, angle_deg,\n"
          "contrast_factor, brightness_delta, saturation_factor and hue_delta.")
      .def_prop_ro("released", &Batch::released, "Whether release() was called.")
      .def("release", &Batch::Release,
           "Gives up this Batch's hold on its buffer (idempotent). The buffer goes back to the "
           "loader\n"
           "once every array exported from the batch's tensors is gone too.")
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__exit__", [](Batch& b, nb::handle, nb::handle, nb::handle) { b.Release(); },
          nb::arg().none(), nb::arg().none(), nb::arg().none())
      .def("__repr__", &Repr);
}

}  // namespace segfeed::python
