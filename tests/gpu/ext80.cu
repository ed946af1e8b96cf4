/*
 * An extension built for sm_80 only (SASS, no PTX), with the shared cudart
 * so that its registration is visible: on an H100/H200 (9.0) its kernel
 * cannot launch.
 */
#include <cstdio>
#include <cuda_runtime.h>

__global__ void ext_kernel(int *p)
{
	*p = 80;
}

extern "C" int ext_launch(void)
{
	int *d = nullptr;
	cudaError_t e = cudaMalloc(&d, sizeof(int));

	if (e != cudaSuccess)
		return (int)e;
	ext_kernel<<<1, 1>>>(d);
	e = cudaGetLastError();
	if (e == cudaSuccess)
		e = cudaDeviceSynchronize();
	cudaFree(d);
	return (int)e;
}
