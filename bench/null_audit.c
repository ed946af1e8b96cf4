/*
 * bench: an auditor that records nothing, with the shim's set of
 * callbacks (la_version, la_objsearch, la_objopen, la_objclose,
 * la_preinit). What LD_AUDIT itself costs a program, whatever the auditor
 * does: bench/trace measures it as the floor under the shim.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>

unsigned int la_version(unsigned int version)
{
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
