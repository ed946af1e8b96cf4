/* The entry points: what kind of file this is, and the path wrapper. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* A standalone cubin or PTX file is one image in a pseudo-container. */
static int scan_single(struct elfscan_file *f)
{
	struct elfscan_image img;
	struct elfscan_container c = { 0 };
	size_t sec;
	int rc;

	if (elfscan_module_describe(f->buf, f->len, &img, 1) != 1)
		return -EINVAL;
	if ((rc = es_add_section(f, "[file]", 0, f->len, 0, &sec)))
		return rc;
	img.offset = 0;
	img.container = 0;
	img.stored_size = f->len;
	c.size = f->len;
	c.section = sec;
	c.found = ELFSCAN_FOUND_FILE;
	c.nimages = 1;
	f->containers = calloc(1, sizeof(c));
	f->images = calloc(1, sizeof(img));
	if (!f->containers || !f->images)
		return -ENOMEM;
	f->containers[0] = c;
	f->images[0] = img;
	f->ncontainers = f->nimages = 1;
	f->cap_containers = f->cap_images = 1;
	f->sections[sec].ncontainers = 1;
	return 0;
}

static int looks_like_ptx(const unsigned char *buf, size_t len)
{
	struct es_ptx p;

	return es_ptx_parse((const char *)buf, strnlen((const char *)buf, len),
			    &p) == 0;
}

int elfscan_scan_buffer(struct elfscan_file *f, const void *buf, size_t len,
			const struct elfscan_options *opt)
{
	static const struct elfscan_options defaults;
	const unsigned char *b = buf;

	if (!opt)
		opt = &defaults;
	f->buf = b;
	f->len = len;
	f->each_image = es_read_cubin_header;
	if (len >= 20 && memcmp(b, "\177ELF", 4) == 0) {
		if (rd16(b + 18) == EM_CUDA) {
			int rc = scan_single(f);

			if (rc == 0)
				f->type = ELFSCAN_FILE_CUBIN;
			return rc;
		}
		f->type = ELFSCAN_FILE_ELF;
		return es_scan_elf(f, opt);
	}
	if (len >= FATBIN_CONTAINER_HEADER && rd32(b) == FATBIN_MAGIC) {
		size_t sec;
		int rc;

		f->type = ELFSCAN_FILE_FATBIN;
		if ((rc = es_add_section(f, "[file]", 0, len, 0, &sec)))
			return rc;
		return es_walk_section(f, 0, len, 0, sec);
	}
	if (len > 0 && looks_like_ptx(b, len)) {
		int rc = scan_single(f);

		if (rc == 0)
			f->type = ELFSCAN_FILE_PTX;
		return rc;
	}
	return -EINVAL;
}

/*
 * Without an opener of the caller's (the CLI installs its own, files.h):
 * O_PATH first, which opens nothing, so that a device at the path is
 * never opened (its driver's open is a side effect); only a regular file
 * is reopened for reading, through that same descriptor. Anything else
 * comes back as the O_PATH descriptor, which fstat describes.
 */
static int open_regular(const char *path, int flags)
{
	char self[40];
	struct stat st;
	int pfd = open(path, O_PATH | O_CLOEXEC), fd, err;

	if (pfd < 0 || fstat(pfd, &st) != 0 || !S_ISREG(st.st_mode))
		return pfd;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, flags);
	err = errno;
	close(pfd);
	errno = err;
	return fd;
}

static int (*opener)(const char *path, int flags) = open_regular;

void elfscan_set_opener(int (*fn)(const char *path, int flags))
{
	opener = fn ? fn : open_regular;
}

int elfscan_scan_fd(struct elfscan_file *f, int fd,
		    const struct elfscan_options *opt)
{
	struct stat st;
	void *map;
	int rc;

	if (fstat(fd, &st) != 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode) || st.st_size == 0)
		return S_ISREG(st.st_mode) ? -EINVAL : -ENODEV;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	f->map = map;
	f->map_len = (size_t)st.st_size;
	f->peek_fd = fd + 1;
	f->drop_page = (size_t)sysconf(_SC_PAGESIZE);
	rc = elfscan_scan_buffer(f, map, (size_t)st.st_size, opt);
	f->drop_page = 0;
	f->peek_fd = 0;
	f->peek_len = 0;
	return rc;
}

int elfscan_scan_path(struct elfscan_file *f, const char *path,
		      const struct elfscan_options *opt)
{
	int fd, rc;

	/* Not blocking on a FIFO named as an input or in a trace: O_NONBLOCK, then the type. */
	fd = opener(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	rc = elfscan_scan_fd(f, fd, opt);
	close(fd);
	return rc;
}
