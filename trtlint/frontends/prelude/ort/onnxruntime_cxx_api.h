#pragma once
// trtlint prelude: ONNX Runtime's C++ API, only what a project's custom op class names in its head (written from
// scratch for trtlint). ONNX Runtime ops are not analysed; the stand-in keeps their units from counting as partly
// analysed when the real header is not on the include path (searched last: a real header wins).
struct OrtApi;
struct OrtKernelInfo;
struct OrtKernelContext;
struct OrtCustomOp
{
};

namespace Ort
{
template <typename TOp, typename TKernel, bool WithStatus = false>
struct CustomOpBase : OrtCustomOp
{
};
} // namespace Ort
