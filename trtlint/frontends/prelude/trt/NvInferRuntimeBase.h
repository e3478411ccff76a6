#pragma once
// trtlint prelude: core TensorRT types.
#include "NvInferVersion.h"
#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>

struct cudnnContext;
struct cublasContext;

#ifndef TENSORRTAPI
#define TENSORRTAPI
#endif
#ifndef TRTNOEXCEPT
#define TRTNOEXCEPT noexcept
#endif
#ifndef TRT_DEPRECATED
#define TRT_DEPRECATED
#endif
#ifndef TRT_DEPRECATED_BECAUSE
#define TRT_DEPRECATED_BECAUSE(REASON)
#endif
#ifndef TRT_DEPRECATED_API
#define TRT_DEPRECATED_API
#endif
#ifndef TRT_DEPRECATED_ENUM
#define TRT_DEPRECATED_ENUM
#endif

namespace nvinfer1
{
using AsciiChar = char;
using char_t = char;

enum class DataType : int32_t
{
    kFLOAT = 0, kHALF = 1, kINT8 = 2, kINT32 = 3, kBOOL = 4, kUINT8 = 5, kFP8 = 6, kBF16 = 7, kINT64 = 8,
    kINT4 = 9, kFP4 = 10, kE8M0 = 11
};

enum class TensorFormat : int32_t
{
    kLINEAR = 0, kCHW2 = 1, kHWC8 = 2, kCHW4 = 3, kCHW16 = 4, kCHW32 = 5, kDHWC8 = 6, kCDHW32 = 7, kHWC = 8,
    kDLA_LINEAR = 9, kDLA_HWC4 = 10, kHWC16 = 11, kDHWC = 12,
    kNCHW = kLINEAR, kNC2HW2 = kCHW2, kNHWC8 = kHWC8 // TensorRT 5-7 names (PluginFormat::kNCHW)
};
using PluginFormat = TensorFormat;

class Dims64
{
public:
    static constexpr int32_t MAX_DIMS{8};
    int32_t nbDims;
    int64_t d[MAX_DIMS];
};
using Dims = Dims64;

class Dims2 : public Dims { public: Dims2(); Dims2(int64_t d0, int64_t d1); };
class DimsHW : public Dims2 { public: DimsHW(); DimsHW(int64_t height, int64_t width); int64_t& h(); int64_t& w(); };
class Dims3 : public Dims2 { public: Dims3(); Dims3(int64_t d0, int64_t d1, int64_t d2); };
class Dims4 : public Dims3 { public: Dims4(); Dims4(int64_t d0, int64_t d1, int64_t d2, int64_t d3); };
// removed in TensorRT 8: still written by code on TensorRT 7 (a call with such an argument must resolve); their
// dimensions were int32_t then (serialize() writes dims.c() as 4 bytes)
enum class DimensionType : int32_t { kSPATIAL = 0, kCHANNEL = 1, kINDEX = 2, kSEQUENCE = 3 };
class DimsCHW : public Dims3
{
public:
    DimsCHW(); DimsCHW(int32_t channels, int32_t height, int32_t width);
    int32_t& c(); int32_t c() const; int32_t& h(); int32_t h() const; int32_t& w(); int32_t w() const;
};
class DimsNCHW : public Dims4
{
public:
    DimsNCHW(); DimsNCHW(int32_t batchSize, int32_t channels, int32_t height, int32_t width);
    int32_t& n(); int32_t n() const; int32_t& c(); int32_t c() const; int32_t& h(); int32_t h() const;
    int32_t& w(); int32_t w() const;
};

enum class TensorIOMode : int32_t { kNONE = 0, kINPUT = 1, kOUTPUT = 2 };
enum class ActivationType : int32_t
{
    kRELU = 0, kSIGMOID = 1, kTANH = 2, kLEAKY_RELU = 3, kELU = 4, kSELU = 5, kSOFTSIGN = 6, kSOFTPLUS = 7,
    kCLIP = 8, kHARD_SIGMOID = 9, kSCALED_TANH = 10, kTHRESHOLDED_RELU = 11, kGELU_ERF = 12, kGELU_TANH = 13
};
template <typename T>
constexpr int32_t EnumMax() noexcept;
using InterfaceKind = char const*;

class InterfaceInfo
{
public:
    InterfaceKind kind;
    int32_t major;
    int32_t minor;
};

enum class APILanguage : int32_t { kCPP = 0, kPYTHON = 1 };

class IVersionedInterface
{
public:
    virtual APILanguage getAPILanguage() const noexcept { return APILanguage::kCPP; }
    virtual InterfaceInfo getInterfaceInfo() const noexcept = 0;
    virtual ~IVersionedInterface() noexcept = default;
};

enum class ErrorCode : int32_t
{
    kSUCCESS = 0, kUNSPECIFIED_ERROR = 1, kINTERNAL_ERROR = 2, kINVALID_ARGUMENT = 3, kINVALID_CONFIG = 4,
    kFAILED_ALLOCATION = 5, kFAILED_INITIALIZATION = 6, kFAILED_EXECUTION = 7, kFAILED_COMPUTATION = 8,
    kINVALID_STATE = 9, kUNSUPPORTED_STATE = 10
};

class IErrorRecorder : public IVersionedInterface
{
public:
    using ErrorDesc = char const*;
    using RefCount = int32_t;
    virtual int32_t getNbErrors() const noexcept = 0;
    virtual ErrorCode getErrorCode(int32_t errorIdx) const noexcept = 0;
    virtual ErrorDesc getErrorDesc(int32_t errorIdx) const noexcept = 0;
    virtual bool hasOverflowed() const noexcept = 0;
    virtual void clear() noexcept = 0;
    virtual bool reportError(ErrorCode val, ErrorDesc desc) noexcept = 0;
    virtual RefCount incRefCount() noexcept = 0;
    virtual RefCount decRefCount() noexcept = 0;
};

class ILogger : public IVersionedInterface
{
public:
    enum class Severity : int32_t { kINTERNAL_ERROR = 0, kERROR = 1, kWARNING = 2, kINFO = 3, kVERBOSE = 4 };
    virtual void log(Severity severity, AsciiChar const* msg) noexcept = 0;
    InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"ILogger", 1, 0}; }
};

class IGpuAllocator : public IVersionedInterface
{
public:
    virtual void* allocate(uint64_t size, uint64_t alignment, uint32_t flags) noexcept = 0;
    virtual bool deallocate(void* const memory) noexcept = 0;
    virtual void* allocateAsync(uint64_t size, uint64_t alignment, uint32_t flags, cudaStream_t) noexcept;
    virtual bool deallocateAsync(void* const memory, cudaStream_t) noexcept;
};
} // namespace nvinfer1
