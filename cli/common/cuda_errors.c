/* CUDA result codes by number; the table is cuda_errors.def. */
#include <stddef.h>

#include "cuda_errors.h"

static const struct {
	int code;
	const char *name, *text;
} table[] = {
#define CT_CU_ERROR(code, name, text) { code, name, text },
#include "cuda_errors.def"
#undef CT_CU_ERROR
};

static size_t find(int code)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].code == code)
			return i;
	return (size_t)-1;
}

const char *ct_cu_error_name(int code)
{
	size_t i = find(code);

	return i == (size_t)-1 ? "CUDA_ERROR_UNKNOWN_CODE" : table[i].name;
}

const char *ct_cu_error_text(int code)
{
	size_t i = find(code);

	return i == (size_t)-1 ? "unrecognised error code" : table[i].text;
}
