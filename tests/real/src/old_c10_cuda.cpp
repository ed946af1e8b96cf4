// What the extension of oldtorch_ext.cpp was linked against: a libc10_cuda
// of an older PyTorch, whose c10::cuda::SetDevice took an int. Only its
// soname matters at run time: it is libc10_cuda.so.2.6, the soname of the
// library that PyTorch 2.6 loads, as pip wheels of every PyTorch release
// call theirs libc10_cuda.so. So the extension needs libc10_cuda.so.2.6 and
// gets the real one, which lacks the symbol.
//
//   g++ -shared -fPIC -Wl,-soname,libc10_cuda.so.2.6 -o stub/libc10_cuda.so.2.6 old_c10_cuda.cpp

namespace c10 {
namespace cuda {
int SetDevice(int device)
{
	return device;
}
}
}
