/* Two small kernels and a host launcher: the common shape of an extension. */
__global__ void vec_add(float *a, const float *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] += b[i];
}

__global__ void vec_scale(float *a, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] *= s;
}

extern "C" void vec_launch(float *a, const float *b, int n)
{
	vec_add<<<(n + 255) / 256, 256>>>(a, b, n);
	vec_scale<<<(n + 255) / 256, 256>>>(a, 2.0f, n);
}
