/*
 * Calls the CUDA driver through the PLT, linked with -lcuda, as Triton's
 * launcher and other driver-API programs do. usage: drvplt MODULE-FILE
 */
#include <stdio.h>
#include <stdlib.h>

int cuInit(unsigned flags);
int cuDriverGetVersion(int *v);
int cuModuleLoadData(void **mod, const void *image);
int cuModuleLoadFatBinary(void **mod, const void *fat);

int main(int argc, char **argv)
{
	static char image[1 << 20];
	void *mod = NULL;
	int v = 0;
	FILE *f;
	size_t n;

	printf("cuInit: %d\n", cuInit(0));
	cuDriverGetVersion(&v);
	printf("driver version: %d\n", v);
	if (argc < 2)
		return 0;
	f = fopen(argv[1], "rb");
	if (!f)
		return 1;
	n = fread(image, 1, sizeof(image) - 1, f);
	fclose(f);
	image[n] = '\0';
	printf("cuModuleLoadData: %d\n", cuModuleLoadData(&mod, image));
	printf("cuModuleLoadFatBinary: %d\n", cuModuleLoadFatBinary(&mod, image));
	return 0;
}
