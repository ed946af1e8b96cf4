/*
 * Reaches the CUDA driver the way cudart 12/13 does: dlopen("libcuda.so.1"),
 * dlsym(handle, "cuGetProcAddress_v2"), the empty-name probe, the
 * self-query, then every entry point through the returned pointers.
 * Loads the module file given as argv[1] from memory and prints results,
 * in device 0's primary context when the driver has one (a real GPU: a
 * module load without a current context is 201, and the image never read).
 *
 * usage: drvapi MODULE-FILE [VERSION]   (VERSION: the cudaVersion to ask
 * for, default 12000; 11030 takes the v1 cuGetProcAddress)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*gpa_v1)(const char *, void **, int, unsigned long long);
typedef int (*gpa_v2)(const char *, void **, int, unsigned long long, int *);
typedef int (*init_fn)(unsigned);
typedef int (*ver_fn)(int *);
typedef int (*load_fn)(void **, const void *);
typedef int (*loadfile_fn)(void **, const char *);
typedef int (*devget_fn)(int *, int);
typedef int (*retain_fn)(void **, int);
typedef int (*setcur_fn)(void *);

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	int ver = argc > 2 ? atoi(argv[2]) : 12000, rc, status = -1, v = 0;
	gpa_v2 gpa2;
	gpa_v1 gpa1 = NULL;
	void *p = NULL, *mod = NULL;
	init_fn init;
	ver_fn driver_version;
	load_fn load;
	loadfile_fn loadfile;
	devget_fn devget = NULL;
	retain_fn retain = NULL;
	setcur_fn setcur = NULL;
	char *image;

	if (!h) {
		printf("dlopen libcuda.so.1 failed: %s\n", dlerror());
		return 1;
	}
	*(void **)&gpa2 = dlsym(h, "cuGetProcAddress_v2");
	if (!gpa2) {
		printf("no cuGetProcAddress_v2\n");
		return 1;
	}
	/* The empty-name probe cudart starts with. */
	rc = gpa2("", &p, 0, 0, &status);
	printf("probe: %d\n", rc);
	/* The self-query: every later lookup goes through what it returns. */
	rc = gpa2("cuGetProcAddress", &p, ver, 0, &status);
	printf("self-query at %d: %d\n", ver, rc);
	if (ver >= 12000)
		gpa2 = (gpa_v2)p;
	else
		gpa1 = (gpa_v1)p;
#define GET(name, out)                                                        \
	(gpa1 ? gpa1(name, (void **)&(out), ver, 0)                            \
	      : gpa2(name, (void **)&(out), ver, 0, &status))
	GET("cuInit", init);
	GET("cuDriverGetVersion", driver_version);
	GET("cuModuleLoadData", load);
	GET("cuModuleLoad", loadfile);
	rc = init(0);
	printf("cuInit: %d\n", rc);
	if (rc == 0 && GET("cuDeviceGet", devget) == 0 && devget &&
	    GET("cuDevicePrimaryCtxRetain", retain) == 0 && retain &&
	    GET("cuCtxSetCurrent", setcur) == 0 && setcur) {
		int dev = 0;
		void *ctx = NULL;

		if (devget(&dev, 0) == 0 && retain(&ctx, dev) == 0)
			printf("context: %d\n", setcur(ctx));
	}
	driver_version(&v);
	printf("driver version: %d\n", v);
	if (argc > 1) {
		image = slurp(argv[1]);
		if (!image) {
			printf("cannot read %s\n", argv[1]);
			return 1;
		}
		printf("cuModuleLoadData: %d\n", load(&mod, image));
		printf("cuModuleLoad: %d\n", loadfile(&mod, argv[1]));
		free(image);
	}
	return 0;
}
