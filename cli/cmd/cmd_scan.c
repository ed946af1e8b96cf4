/* cudatrace scan: what device code is inside these files. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "inputs.h"
#include "commands.h"
#include "elfscan.h"
#include "json.h"
#include "schema.h"
#include "summary.h"
#include "text.h"

struct scan_ctx {
	bool json, verbose, quiet;
	struct ct_json j;
	int exit_code;
	size_t files;
	size_t unlisted; /* objects without device code, not listed */
};

static const char *section_name(const struct elfscan_file *f, size_t sec)
{
	return sec < f->nsections ? f->sections[sec].name : "";
}

static bool has_errors(const struct elfscan_file *f)
{
	size_t i;

	for (i = 0; i < f->nproblems; i++)
		if (elfscan_problem_is_error(f->problems[i].code))
			return true;
	return false;
}

/* ---- text ---------------------------------------------------------------- */

static void print_containers(const struct elfscan_file *f)
{
	size_t s, c;
	int first = 1;

	if (f->type == ELFSCAN_FILE_CUBIN || f->type == ELFSCAN_FILE_PTX)
		return;
	if (f->type != ELFSCAN_FILE_ELF) {
		ct_tprintf(stdout, "  fatbin containers: %zu\n", f->ncontainers);
		return;
	}
	ct_tprintf(stdout, "  fatbin containers:");
	for (s = 0; s < f->nsections; s++) {
		size_t n = 0, reg = 0, magic = 0;

		for (c = 0; c < f->ncontainers; c++) {
			if (f->containers[c].section != s)
				continue;
			n++;
			reg += f->containers[c].registered;
			magic += f->containers[c].found == ELFSCAN_FOUND_MAGIC;
		}
		if (!n)
			continue;
		ct_tprintf(stdout, "%s %zu in %s", first ? "" : ",", n, f->sections[s].name);
		first = 0;
		if (magic)
			ct_tprintf(stdout, " (found by magic scan, %s)",
			       reg == 0   ? "not registered"
			       : reg == n ? "registered"
					  : "partly registered");
		else if (f->nwrappers && reg != n)
			ct_tprintf(stdout, " (%zu registered)", reg);
	}
	ct_tprintf(stdout, "\n");
}

static void print_kind_line(const struct ct_summary *s, unsigned kind,
			    const char *label, size_t count)
{
	size_t i;

	if (!count)
		return;
	ct_tprintf(stdout, "  %-5s %6zu ", label, count);
	for (i = 0; i < s->narchs; i++) {
		char name[ELFSCAN_ARCH_NAME_MAX];
		struct elfscan_image img = { 0 };

		if (s->archs[i].kind != kind)
			continue;
		img.kind = kind;
		img.arch = s->archs[i].arch;
		img.variant = s->archs[i].variant;
		ct_tprintf(stdout, " %s:%zu", elfscan_image_arch_name(&img, name, sizeof(name)),
		       s->archs[i].count);
	}
	if (kind == ELFSCAN_KIND_PTX && s->nptx_isa) {
		size_t k;

		ct_tprintf(stdout, " (PTX ISA");
		for (k = 0; k < s->nptx_isa; k++)
			ct_tprintf(stdout, "%s %u.%u", k ? "," : "", s->ptx_isa[k][0],
			       s->ptx_isa[k][1]);
		ct_tprintf(stdout, ")");
	}
	ct_tprintf(stdout, "\n");
}

static void print_image(const struct elfscan_file *f,
			const struct elfscan_image *img)
{
	char name[ELFSCAN_ARCH_NAME_MAX], a[32], b[32];

	ct_tprintf(stdout, "    %-5s %-13s %-4s %9s", elfscan_kind_name(img->kind),
	       elfscan_image_arch_name(img, name, sizeof(name)),
	       elfscan_codec_name(img->codec),
	       ct_human_size(img->stored_size, a, sizeof(a)));
	if (img->codec != ELFSCAN_CODEC_NONE)
		ct_tprintf(stdout, " -> %s", ct_human_size(img->size, b, sizeof(b)));
	ct_tprintf(stdout, "  at 0x%llx", (unsigned long long)img->offset);
	if (img->kind == ELFSCAN_KIND_PTX)
		ct_tprintf(stdout, "  ISA %u.%u", img->version_major, img->version_minor);
	if (img->flags & ELFSCAN_FLAG_DEBUG)
		ct_tprintf(stdout, "  debug");
	if (img->variant_from_cubin) {
		struct elfscan_image hdr = *img;

		hdr.variant = ELFSCAN_VARIANT_NONE;
		ct_tprintf(stdout, "  'a' from the cubin's e_flags (fatbin header: %s)",
			   elfscan_image_arch_name(&hdr, name, sizeof(name)));
	}
	if (img->ident)
		ct_tprintf(stdout, "  ident \"%.*s\"", (int)img->ident_len, img->ident);
	if (img->options && img->options_len)
		ct_tprintf(stdout, "  options \"%.*s\"", (int)img->options_len, img->options);
	if (img->check == ELFSCAN_CHECK_OK)
		ct_tprintf(stdout, "  verified");
	else if (img->check == ELFSCAN_CHECK_OPAQUE)
		ct_tprintf(stdout, "  opaque");
	(void)f;
	ct_tprintf(stdout, "\n");
}

static void print_verbose(const struct elfscan_file *f)
{
	size_t c, i;

	for (c = 0; c < f->ncontainers; c++) {
		const struct elfscan_container *ct = &f->containers[c];

		ct_tprintf(stdout, "  container %zu at 0x%llx in %s, %zu image%s", c,
		       (unsigned long long)ct->offset,
		       section_name(f, ct->section), ct->nimages,
		       ct->nimages == 1 ? "" : "s");
		if (ct->found == ELFSCAN_FOUND_MAGIC)
			ct_tprintf(stdout, ", found by magic scan");
		if (ct->registered)
			ct_tprintf(stdout, ", registered (wrapper v%u)", ct->wrapper_version);
		ct_tprintf(stdout, "\n");
		for (i = ct->first_image; i < ct->first_image + ct->nimages; i++)
			print_image(f, &f->images[i]);
	}
}

static void print_problems(const struct elfscan_file *f, bool verbose)
{
	size_t i, notes = 0;

	for (i = 0; i < f->nproblems; i++) {
		char text[256];
		bool err = elfscan_problem_is_error(f->problems[i].code);

		/* Unregistered containers are routine; count them unless -v. */
		if (!err && !verbose &&
		    f->problems[i].code == ELFSCAN_P_CONTAINER_UNREFERENCED) {
			notes++;
			continue;
		}
		ct_tprintf(stdout, "  %s: %s\n", err ? "error" : "note",
		       elfscan_problem_describe(f, &f->problems[i], text,
						sizeof(text)));
	}
	if (notes)
		ct_tprintf(stdout, "  note: %zu container%s in fatbin sections %s not "
		       "referenced by any .nvFatBinSegment wrapper (-v lists them)\n",
		       notes, notes == 1 ? "" : "s", notes == 1 ? "is" : "are");
}

/*
 * -q: an object in one line, its path and the archs of each kind
 * ("sass sm_80 sm_90; ptx compute_90"); its errors still each on a line.
 */
static void print_quiet(const struct ct_object *obj)
{
	static const struct {
		unsigned kind;
		const char *name;
	} kinds[] = { { ELFSCAN_KIND_SASS, "sass" }, { ELFSCAN_KIND_PTX, "ptx" },
		      { ELFSCAN_KIND_LTOIR, "ltoir" } };
	const struct elfscan_file *f = obj->scan;
	struct ct_summary s;
	char archs[1024];
	size_t k, i, shown = 0;

	ct_tprintf(stdout, "%s ", obj->path);
	if (!f->nimages)
		ct_tprintf(stdout, " no device code");
	ct_summary_build(&s, f, 0, f->nimages);
	for (k = 0; f->nimages && k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (!s.nkind[k])
			continue;
		ct_tprintf(stdout, "%s %s %s", shown++ ? ";" : "", kinds[k].name,
			   ct_summary_archs(&s, kinds[k].kind, archs, sizeof(archs)));
	}
	ct_summary_release(&s);
	ct_tprintf(stdout, "\n");
	for (i = 0; i < f->nproblems; i++) {
		char text[256];

		if (elfscan_problem_is_error(f->problems[i].code))
			ct_tprintf(stdout, "  error: %s\n",
				   elfscan_problem_describe(f, &f->problems[i], text, sizeof(text)));
	}
}

static void print_text(struct scan_ctx *ctx, const struct ct_object *obj)
{
	const struct elfscan_file *f = obj->scan;
	struct ct_summary s;
	char a[32], b[32];
	size_t verified = 0, i;

	if (ctx->quiet) {
		print_quiet(obj);
		return;
	}
	ct_tprintf(stdout, "%s\n", obj->path);
	if (!f->nimages) {
		ct_tprintf(stdout, "  no device code\n");
		print_problems(f, ctx->verbose);
		return;
	}
	ct_summary_build(&s, f, 0, f->nimages);
	ct_tprintf(stdout, "  %zu image%s, %s stored, %s unpacked\n", f->nimages,
	       f->nimages == 1 ? "" : "s", ct_human_size(s.stored, a, sizeof(a)),
	       ct_human_size(s.unpacked, b, sizeof(b)));
	print_containers(f);
	print_kind_line(&s, ELFSCAN_KIND_SASS, "sass", s.nkind[0]);
	print_kind_line(&s, ELFSCAN_KIND_PTX, "ptx", s.nkind[1]);
	print_kind_line(&s, ELFSCAN_KIND_LTOIR, "ltoir", s.nkind[2]);
	if (s.nother)
		ct_tprintf(stdout, "  other %6zu  (unknown kinds)\n", s.nother);
	for (i = 0; i < f->nimages; i++)
		verified += f->images[i].check == ELFSCAN_CHECK_OK ||
			    f->images[i].check == ELFSCAN_CHECK_OPAQUE;
	if (verified)
		ct_tprintf(stdout, "  verified: %zu of %zu payloads match their headers\n",
		       verified, f->nimages);
	if (ctx->verbose)
		print_verbose(f);
	print_problems(f, ctx->verbose);
	ct_summary_release(&s);
}

/* ---- json ---------------------------------------------------------------- */

static const char *check_name(enum elfscan_check c)
{
	static const char *const names[] = { NULL, "ok", "opaque", "mismatch",
					     "failed" };

	return (unsigned)c < 5 ? names[c] : NULL;
}

static const char *type_name(enum elfscan_file_type t)
{
	static const char *const names[] = { "unknown", "elf", "cubin",
					     "fatbin", "ptx" };

	return (unsigned)t < 5 ? names[t] : "unknown";
}

static void json_image(struct ct_json *j, const struct elfscan_file *f,
		       const struct elfscan_image *img)
{
	char name[ELFSCAN_ARCH_NAME_MAX], ver[32];
	const struct elfscan_container *c = &f->containers[img->container];

	ct_json_object_begin(j);
	ct_json_kv_string(j, "kind", elfscan_kind_name(img->kind));
	ct_json_kv_string(j, "arch", elfscan_image_arch_name(img, name, sizeof(name)));
	ct_json_kv_u64(j, "sm", img->arch);
	ct_json_kv_string(j, "variant",
			  img->variant == ELFSCAN_VARIANT_A   ? "a"
			  : img->variant == ELFSCAN_VARIANT_F ? "f"
							      : NULL);
	ct_json_kv_string(j, "compression", elfscan_codec_name(img->codec));
	ct_json_kv_u64(j, "size", img->size);
	ct_json_kv_u64(j, "stored_size", img->stored_size);
	ct_json_kv_string(j, "section", section_name(f, c->section));
	ct_json_kv_u64(j, "offset", img->offset);
	ct_json_kv_u64(j, "container", img->container);
	if (img->kind == ELFSCAN_KIND_PTX) {
		snprintf(ver, sizeof(ver), "%u.%u", img->version_major,
			 img->version_minor);
		ct_json_kv_string(j, "ptx_version", ver);
	}
	ct_json_kv_u64(j, "flags", img->flags);
	if (img->unknown_flags)
		ct_json_kv_u64(j, "unknown_flags", img->unknown_flags);
	ct_json_kv_bool(j, "debug", (img->flags & ELFSCAN_FLAG_DEBUG) != 0);
	ct_json_key(j, "ident");
	if (img->ident)
		ct_json_string_n(j, img->ident, img->ident_len);
	else
		ct_json_null(j);
	ct_json_key(j, "options");
	if (img->options)
		ct_json_string_n(j, img->options, img->options_len);
	else
		ct_json_null(j);
	if (img->check != ELFSCAN_CHECK_NOT_RUN)
		ct_json_kv_string(j, "verify", check_name(img->check));
	if (img->variant_from_cubin) {
		struct elfscan_image hdr = *img;

		hdr.variant = ELFSCAN_VARIANT_NONE;
		ct_json_kv_string(j, "header_arch", elfscan_image_arch_name(&hdr, name, sizeof(name)));
	}
	ct_json_object_end(j);
}

static void json_file(struct scan_ctx *ctx, const struct ct_object *obj)
{
	struct ct_json *j = &ctx->j;
	const struct elfscan_file *f = obj->scan;
	size_t i;

	ct_json_object_begin(j);
	ct_json_kv_string(j, "path", obj->path);
	ct_json_kv_string(j, "error", obj->error);
	if (!f) {
		ct_json_key(j, "images");
		ct_json_array_begin(j);
		ct_json_array_end(j);
		ct_json_object_end(j);
		return;
	}
	ct_json_kv_string(j, "type", type_name(f->type));
	ct_json_key(j, "containers");
	ct_json_array_begin(j);
	for (i = 0; i < f->ncontainers; i++) {
		const struct elfscan_container *c = &f->containers[i];

		ct_json_object_begin(j);
		ct_json_kv_u64(j, "offset", c->offset);
		ct_json_kv_u64(j, "size", c->size);
		ct_json_kv_string(j, "section", section_name(f, c->section));
		ct_json_kv_string(j, "found", elfscan_found_name(c->found));
		ct_json_kv_bool(j, "registered", c->registered);
		ct_json_kv_u64(j, "images", c->nimages);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_key(j, "images");
	ct_json_array_begin(j);
	for (i = 0; i < f->nimages; i++)
		json_image(j, f, &f->images[i]);
	ct_json_array_end(j);
	ct_json_key(j, "problems");
	ct_json_array_begin(j);
	for (i = 0; i < f->nproblems; i++) {
		char text[256];

		ct_json_object_begin(j);
		ct_json_kv_string(j, "id", elfscan_problem_id(f->problems[i].code));
		ct_json_kv_string(j, "severity",
				  elfscan_problem_is_error(f->problems[i].code)
					  ? "error"
					  : "note");
		ct_json_kv_string(j, "message",
				  elfscan_problem_describe(f, &f->problems[i],
							   text, sizeof(text)));
		ct_json_kv_u64(j, "offset", f->problems[i].offset);
		ct_json_object_end(j);
	}
	ct_json_array_end(j);
	ct_json_object_end(j);
}

static int on_object(void *p, const struct ct_object *obj)
{
	struct scan_ctx *ctx = p;

	ctx->files++;
	if (obj->error || (obj->scan && has_errors(obj->scan)))
		ctx->exit_code = CT_EXIT_BAD_INPUT;
	if (ctx->json) {
		json_file(ctx, obj);
		return 0;
	}
	if (obj->error) {
		ct_error("cannot read '%s': %s", obj->path, obj->error);
		return 0;
	}
	/*
	 * A folder's objects without device code would bury the answer: they
	 * are counted in one line. A file named as such gets its answer.
	 */
	if (!obj->scan->nimages && !ctx->verbose && !obj->named && !has_errors(obj->scan)) {
		ctx->unlisted++;
		return 0;
	}
	print_text(ctx, obj);
	return 0;
}

static void usage(FILE *out)
{
	ct_tprintf(out,
		"usage: cudatrace scan [--json] [-q] [-v] [--verify] PATH...\n"
		"\n"
		"List the CUDA device code (SASS cubins, PTX, LTO-IR) inside files:\n"
		"shared objects, executables, .o, .cubin, .fatbin, .ptx, directories\n"
		"(recursively) and Python wheels (members read in place).\n"
		"\n"
		"  --json          one JSON document on stdout\n"
		"  -q, --quiet     an object a line: its path and its archs of each kind\n"
		"  -v, --verbose   every container and image, and the objects without\n"
		"                  device code that a directory or wheel holds (else\n"
		"                  counted in one line)\n"
		"  --verify        decompress every payload and check it against its header\n"
		"  --known-sections  only .nv_fatbin and __nv_relfatbin (no magic scan)\n"
		"  --color[=WHEN]  taken by every command; scan prints no colour\n"
		"\n"
		"Exit status: 0 all read, 2 some path unreadable or damaged.\n");
}

int ct_cmd_scan(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		CT_COLOR_OPTION,
		{ "verify", no_argument, NULL, 'V' },
		{ "known-sections", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct scan_ctx ctx = { 0 };
	struct ct_walk_options wo = { 0 };
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			ctx.json = true;
			break;
		case 'v':
			ctx.verbose = true;
			break;
		case 'q':
			ctx.quiet = true;
			break;
		case CT_OPT_COLOR:
			if (ct_cmd_colour_option(optarg) != 0)
				return CT_EXIT_BAD_INPUT;
			break;
		case 'V':
			wo.verify = true;
			break;
		case 'k':
			wo.no_magic_scan = true;
			break;
		case 'h':
			usage(stdout);
			return CT_EXIT_OK;
		default:
			usage(stderr);
			return CT_EXIT_BAD_INPUT;
		}
	}
	if (optind >= argc) {
		ct_error("scan: no PATH given");
		usage(stderr);
		return CT_EXIT_BAD_INPUT;
	}
	if (ct_cmd_no_stdin("scan", argv + optind, (size_t)(argc - optind)) != 0)
		return CT_EXIT_BAD_INPUT;
	if (ctx.json) {
		ct_json_init(&ctx.j, stdout);
		ct_json_object_begin(&ctx.j);
		ct_json_kv_string(&ctx.j, "schema", CT_SCHEMA_SCAN);
		ct_json_key(&ctx.j, "files");
		ct_json_array_begin(&ctx.j);
	}
	wo.threads = (unsigned)ct_threads(4) - 1;
	ct_walk(argv + optind, (size_t)(argc - optind), &wo, on_object, &ctx);
	if (ctx.json) {
		ct_json_array_end(&ctx.j);
		ct_json_object_end(&ctx.j);
		ct_json_finish(&ctx.j);
	} else if (ctx.unlisted) {
		ct_cmd_unlisted(ctx.unlisted);
	}
	return ctx.exit_code;
}
