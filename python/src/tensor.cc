#include "tensor.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <string>

namespace nb = nanobind;
using namespace nb::literals;

namespace segfeed::python {
namespace {

// struct-module format characters, as NumPy reads them.
const char* BufferFormat(ElementType type) {
  switch (type) {
    case ElementType::kUint8:
      return "B";
    case ElementType::kFloat16:
      return "e";
    case ElementType::kFloat32:
      return "f";
    case ElementType::kInt32:
      return "i";
    case ElementType::kInt64:
      return "q";
  }
  return "B";
}

nb::dlpack::dtype DlpackDtype(ElementType type) {
  switch (type) {
    case ElementType::kUint8:
      return nb::dtype<uint8_t>();
    case ElementType::kFloat16:
      return {static_cast<uint8_t>(nb::dlpack::dtype_code::Float), 16, 1};
    case ElementType::kFloat32:
      return nb::dtype<float>();
    case ElementType::kInt32:
      return nb::dtype<int32_t>();
    case ElementType::kInt64:
      return nb::dtype<int64_t>();
  }
  return nb::dtype<uint8_t>();
}

bool IsCContiguous(const Tensor& t) {
  Py_ssize_t expected = t.item_bytes;
  for (int i = 3; i >= 0; --i) {
    if (t.shape[i] != 1 && t.strides_bytes[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

// bf_getbuffer: the pool memory itself, writable (the batch is the
// consumer's until released). view->obj keeps this Tensor, and through it
// the lease, alive until the view is released.
int GetBuffer(PyObject* self, Py_buffer* view, int flags) {
  view->obj = nullptr;
  Tensor* t = nb::inst_ptr<Tensor>(self);
  if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !IsCContiguous(*t)) {
    PyErr_SetString(PyExc_BufferError,
                    "segfeed.Tensor: the consumer needs a contiguous buffer and this one is not");
    return -1;
  }
  view->buf = t->data;
  view->obj = Py_NewRef(self);
  view->len = static_cast<Py_ssize_t>(t->nbytes());
  view->itemsize = t->item_bytes;
  view->readonly = 0;
  view->ndim = 4;
  view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT
                     ? const_cast<char*>(BufferFormat(t->element_type))
                     : nullptr;
  view->shape = (flags & PyBUF_ND) == PyBUF_ND ? t->shape.data() : nullptr;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? t->strides_bytes.data() : nullptr;
  view->suboffsets = nullptr;
  view->internal = nullptr;
  return 0;
}

PyType_Slot kTensorSlots[] = {{Py_bf_getbuffer, reinterpret_cast<void*>(GetBuffer)}, {0, nullptr}};

// A DLPack capsule of the pool memory. nanobind's array type does the
// protocol (versioned or legacy capsule by max_version, BufferError for
// copy=True or another device, stream ignored on the CPU); the array's
// owner is this Tensor, so each capsule keeps the lease until its consumer
// calls the deleter.
nb::object Dlpack(nb::handle self, nb::handle stream, nb::handle max_version, nb::handle dl_device,
                  nb::handle copy) {
  const Tensor& t = nb::cast<const Tensor&>(self);
  size_t shape[4];
  int64_t strides[4];
  for (int i = 0; i < 4; ++i) {
    shape[i] = static_cast<size_t>(t.shape[i]);
    strides[i] = t.strides_bytes[i] / t.item_bytes;  // DLPack strides count elements
  }
  nb::ndarray<nb::array_api> array(t.data, 4, shape, self, strides, DlpackDtype(t.element_type),
                                   nb::device::cpu::value, 0);
  nb::object exported = array.cast(nb::rv_policy::reference);
  return exported.attr("__dlpack__")("stream"_a = stream, "max_version"_a = max_version,
                                     "dl_device"_a = dl_device, "copy"_a = copy);
}

nb::tuple Shape(const Tensor& t) {
  return nb::make_tuple(t.shape[0], t.shape[1], t.shape[2], t.shape[3]);
}

}  // namespace

Tensor::Tensor(nb::object lease_owner, const TensorView& view)
    : owner(std::move(lease_owner)),
      data(view.data),
      element_type(view.element_type),
      item_bytes(view.element_bytes()) {
  for (int i = 0; i < 4; ++i) {
    shape[i] = static_cast<Py_ssize_t>(view.shape[i]);
    strides_bytes[i] = static_cast<Py_ssize_t>(view.strides_bytes[i]);
  }
}

size_t Tensor::nbytes() const {
  size_t bytes = static_cast<size_t>(item_bytes);
  for (Py_ssize_t extent : shape) bytes *= static_cast<size_t>(extent);
  return bytes;
}

void BindTensor(nb::module_& m) {
  nb::class_<Tensor>(
      m, "Tensor", nb::type_slots(kTensorSlots),
      "One tensor of a Batch (its images or its masks), in the loader's pool memory.\n\n"
      "Hand it to a framework without a copy: numpy.asarray(t) or numpy.from_dlpack(t),\n"
      "torch.from_dlpack(t), tf.experimental.dlpack.from_dlpack(t.__dlpack__()),\n"
      "jax.dlpack.from_dlpack(t). The pool buffer goes back to the loader only when the\n"
      "Batch is released and every array exported from its tensors is gone.")
      .def_prop_ro("shape", &Shape,
                   "Shape: (N, H, W, C) or (N, C, H, W) for images, (N, H, W, 1) for masks.")
      .def_prop_ro(
          "strides",
          [](const Tensor& t) {
            return nb::make_tuple(t.strides_bytes[0], t.strides_bytes[1], t.strides_bytes[2],
                                  t.strides_bytes[3]);
          },
          "Strides in bytes, as NumPy gives them.")
      .def_prop_ro(
          "dtype", [](const Tensor& t) { return std::string(ElementTypeName(t.element_type)); },
          "Element type: 'uint8', 'float16' or 'float32'.")
      .def_prop_ro("nbytes", &Tensor::nbytes, "Bytes the tensor spans.")
      .def_prop_ro(
          "data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data); },
          "Address of the first element (64-byte aligned, in fact page aligned).")
      .def(
          "__len__", [](const Tensor& t) { return t.shape[0]; }, "Samples in the batch.")
      .def("__dlpack__", &Dlpack, nb::kw_only(), "stream"_a.none() = nb::none(),
           "max_version"_a.none() = nb::none(), "dl_device"_a.none() = nb::none(),
           "copy"_a.none() = nb::none(),
           "A DLPack capsule of this tensor (no copy). copy=True, or a dl_device other than\n"
           "(1, 0), raises BufferError. The capsule holds the batch's buffer until consumed and "
           "freed.")
      .def(
          "__dlpack_device__", [](const Tensor&) { return nb::make_tuple(1, 0); },
          "(1, 0): kDLCPU, device 0. Pinned or not, the pool is host memory.")
      .def("__repr__", [](const Tensor& t) {
        std::string text = "segfeed.Tensor(shape=(";
        for (int i = 0; i < 4; ++i) text += std::to_string(t.shape[i]) + (i < 3 ? ", " : ")");
        return text + ", dtype=" + std::string(ElementTypeName(t.element_type)) + ")";
      });
}

}  // namespace segfeed::python
