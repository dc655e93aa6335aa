// Memory on the GPU and pinned memory on the host, owned: freed when the
// owner goes, so an error part-way through a set-up leaks nothing.
#pragma once

#include <cstddef>
#include <utility>

#include <cuda_runtime.h>

namespace dlcbench::cuda {

// cudaMalloc'd bytes. Out of memory throws GpuError saying how much was
// asked for and how much is free on the device.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t bytes);
  ~DeviceMemory();
  DeviceMemory(DeviceMemory&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  DeviceMemory& operator=(DeviceMemory&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  void* get() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// An array of T on the device.
template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t count) : memory_(count * sizeof(T)) {}
  T* data() const { return static_cast<T*>(memory_.get()); }
  // From the memory itself, so a moved-from array is empty, not a size
  // without data.
  std::size_t size() const { return memory_.bytes() / sizeof(T); }

 private:
  DeviceMemory memory_;
};

// cudaMallocHost'd (page-locked) bytes, for copies at the bus's full speed.
class PinnedMemory {
 public:
  explicit PinnedMemory(std::size_t bytes);
  ~PinnedMemory();
  PinnedMemory(const PinnedMemory&) = delete;
  PinnedMemory& operator=(const PinnedMemory&) = delete;
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};

}  // namespace dlcbench::cuda
