/*
 * bench: an auditor that records nothing, with the shim's set of
 * callbacks (la_version, la_objsearch, la_objopen, la_objclose,
 * la_preinit). What LD_AUDIT itself costs a program, whatever the auditor
 * does: bench/trace measures it as the floor under the shim.
 *
 * With NULL_AUDIT_LOADS=FILE it also counts the objects the loader really
 * maps (la_objopen) and appends the count to FILE at exit: how many of a
 * program's dlopen calls load something depends on how its threads
 * interleave (the churn), and bench/trace sets the time against it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *loads_file;
static unsigned long loads;

unsigned int la_version(unsigned int version)
{
	loads_file = getenv("NULL_AUDIT_LOADS");
	return version;
}

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
	(void)cookie;
	(void)flag;
	return (char *)name;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	(void)map;
	(void)lmid;
	(void)cookie;
	__atomic_add_fetch(&loads, 1, __ATOMIC_RELAXED);
	return 0;
}

unsigned int la_objclose(uintptr_t *cookie)
{
	(void)cookie;
	return 0;
}

void la_preinit(uintptr_t *cookie)
{
	(void)cookie;
}

__attribute__((destructor)) static void say_loads(void)
{
	char line[32];
	int fd, n;

	if (!loads_file)
		return;
	fd = open(loads_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%lu\n", loads);
	if (write(fd, line, (size_t)n) != n)
		n = 0;
	close(fd);
}
