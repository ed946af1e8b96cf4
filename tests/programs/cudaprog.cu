/*
 * A CUDA program: asks the runtime for the GPUs and launches a kernel.
 * Built twice, with the default static cudart and with --cudart shared.
 */
#include <cstdio>
#include <cuda_runtime.h>

__global__ void kernel(int *p)
{
	*p = 1;
}

int main()
{
	int n = -1;
	cudaError_t e = cudaGetDeviceCount(&n);

	std::printf("cudaGetDeviceCount: %d (%s)\n", (int)e, cudaGetErrorString(e));
	if (e == cudaSuccess && n > 0) {
		int *d = nullptr;

		cudaMalloc(&d, sizeof(int));
		kernel<<<1, 1>>>(d);
		e = cudaDeviceSynchronize();
		std::printf("kernel: %d (%s)\n", (int)e, cudaGetErrorString(e));
		cudaFree(d);
	}
	return 0;
}
