// A PyTorch extension as built against a PyTorch whose libc10_cuda exported
// c10::cuda::SetDevice(int) (mangled _ZN3c104cuda9SetDeviceEi). PyTorch 2.6
// exports SetDevice(signed char) instead (DeviceIndex is int8_t), so loading
// this next to 2.6 fails: "undefined symbol: _ZN3c104cuda9SetDeviceEi" at
// import (the loader binds every symbol when Python imports a module), or
// "symbol lookup error" at the first call under lazy binding.
//
// Built by tests/real/ext-other-libtorch* inside the trixie root, against
// the old libc10_cuda of old_c10_cuda.cpp (stub/):
//   g++ -shared -fPIC -Wl,-z,lazy -o oldtorch_ext.so oldtorch_ext.cpp \
//       stub/libc10_cuda.so.2.6
// Python's import calls PyInit_oldtorch_ext; it is declared here by hand,
// so no Python headers are needed.

namespace c10 {
namespace cuda {
int SetDevice(int device);
}
}

extern "C" __attribute__((visibility("default"))) void *PyInit_oldtorch_ext(void)
{
	c10::cuda::SetDevice(0);
	return nullptr;
}
