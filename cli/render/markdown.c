/* A report as GitHub-flavoured Markdown; see markdown.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "findings_out.h"
#include "markdown.h"
#include "mask.h"
#include "text.h"
#include "util.h"

#define MD_SITES 8 /* site-packages directories named; more stay whole */

/* Text captured from a printer: the verdict or a section. */
struct capture {
	char *title;
	char *buf;
	size_t len;
	FILE *f;
};

/* A site-packages directory: its path as text shows it, its name, its uses. */
struct site {
	char *prefix;
	size_t len, uses;
	char name[16];
};

struct ct_md {
	bool verbose;
	char *home; /* escaped as text shows it, or NULL */
	size_t home_len;
	bool home_used; /* a path was written with ~: the legend says so */
	struct capture verdict;
	struct capture **sections; /* each apart: its stream writes into it */
	size_t nsections;
	struct site sites[MD_SITES];
	size_t nsites;
};

static FILE *capture_open(struct capture *c)
{
	c->f = open_memstream(&c->buf, &c->len);
	if (!c->f)
		ct_out_of_memory();
	return c->f;
}

/* Closed once, so that buf holds what was written; -1 when a write failed. */
static int capture_close(struct capture *c)
{
	int bad = 0;

	if (c->f) {
		bad = ferror(c->f) != 0;
		bad |= fclose(c->f) != 0;
		c->f = NULL;
	}
	return bad ? -1 : 0;
}

struct ct_md *ct_md_new(const char *home, bool verbose)
{
	struct ct_md *md = ct_xcalloc(1, sizeof(*md));

	md->verbose = verbose;
	if (home && home[0] == '/' && home[1]) {
		md->home = ct_text_escape(home);
		md->home_len = strlen(md->home);
		/* "/home/u/" is "/home/u". */
		while (md->home_len > 1 && md->home[md->home_len - 1] == '/')
			md->home[--md->home_len] = '\0';
	}
	capture_open(&md->verdict);
	return md;
}

FILE *ct_md_verdict(struct ct_md *md)
{
	return md->verdict.f;
}

FILE *ct_md_section(struct ct_md *md, const char *title)
{
	struct capture *c;

	md->sections = ct_xrealloc(md->sections, (md->nsections + 1) * sizeof(*md->sections));
	c = md->sections[md->nsections++] = ct_xcalloc(1, sizeof(*c));
	c->title = ct_xstrdup(title);
	return capture_open(c);
}

void ct_md_free(struct ct_md *md)
{
	size_t i;

	if (!md)
		return;
	capture_close(&md->verdict);
	free(md->verdict.buf);
	for (i = 0; i < md->nsections; i++) {
		capture_close(md->sections[i]);
		free(md->sections[i]->buf);
		free(md->sections[i]->title);
		free(md->sections[i]);
	}
	free(md->sections);
	for (i = 0; i < md->nsites; i++)
		free(md->sites[i].prefix);
	free(md->home);
	free(md);
}

/* ---- the names of paths ------------------------------------------------------ */

/* A character that may stand before a path or after its end in text. */
static bool bounds_path(char c)
{
	return c == '\0' || c == ' ' || c == '\n' || c == '\t' || c == '\'' || c == '"' || c == '(' || c == ')' ||
	       c == '[' || c == ']' || c == '=' || c == ':' || c == ',' || c == ';' ||
	       c == '<' || c == '>' || c == '|';
}

/* A character that continues a file name: before a prefix, no path starts. */
static bool in_name(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-' || c == '/' ||
	       c == '~' || c == '$' || c == '+' || c == '@' || c == '%' || (c & 0x80);
}

/* The site-packages directories in text, counted. */
static void note_sites(struct ct_md *md, const char *text)
{
	static const char *const dirs[] = { "/site-packages", "/dist-packages" };
	size_t d, k;

	for (d = 0; d < 2; d++) {
		const char *p = text;

		while (text && (p = strstr(p, dirs[d])) != NULL) {
			const char *end = p + strlen(dirs[d]), *start = p;

			p = end;
			if (*end != '/' && !bounds_path(*end))
				continue;
			while (start > text && !bounds_path(start[-1]))
				start--;
			if (*start != '/')
				continue;
			for (k = 0; k < md->nsites; k++)
				if (md->sites[k].len == (size_t)(end - start) &&
				    memcmp(md->sites[k].prefix, start, md->sites[k].len) == 0)
					break;
			if (k == md->nsites) {
				if (md->nsites == MD_SITES)
					continue;
				md->sites[k].len = (size_t)(end - start);
				md->sites[k].prefix = ct_xmalloc(md->sites[k].len + 1);
				memcpy(md->sites[k].prefix, start, md->sites[k].len);
				md->sites[k].prefix[md->sites[k].len] = '\0';
				md->nsites++;
			}
			md->sites[k].uses++;
		}
	}
}

static int by_uses(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->uses != y->uses)
		return x->uses < y->uses ? 1 : -1;
	return strcmp(x->prefix, y->prefix);
}

/* The most used is $SITE, the next $SITE2, ... */
static void name_sites(struct ct_md *md)
{
	size_t i;

	qsort(md->sites, md->nsites, sizeof(*md->sites), by_uses);
	for (i = 0; i < md->nsites; i++)
		snprintf(md->sites[i].name, sizeof(md->sites[i].name), i ? "$SITE%zu" : "$SITE",
			 i + 1);
}

/* Does prefix (n bytes) stand at s + i as a whole path or a path's directory? */
static bool prefix_at(const char *s, size_t i, const char *prefix, size_t n)
{
	if (i > 0 && in_name(s[i - 1]))
		return false;
	return strncmp(s + i, prefix, n) == 0 && (s[i + n] == '/' || bounds_path(s[i + n]));
}

/*
 * Escaped text (text.h) with the paths shortened: the site directories by
 * their names, then the home directory as ~; the home rule applies to a
 * site's own path in the legend too. A new string for the caller to free.
 */
static char *shorten(struct ct_md *md, const char *s, bool sites)
{
	size_t i = 0, n = strlen(s), k, cap = n + 1, len = 0;
	char *out = ct_xmalloc(cap);

	while (i < n) {
		const char *put = NULL;
		size_t skip = 0;

		for (k = 0; sites && k < md->nsites && !put; k++)
			if (prefix_at(s, i, md->sites[k].prefix, md->sites[k].len))
				put = md->sites[k].name, skip = md->sites[k].len;
		if (!put && md->home && prefix_at(s, i, md->home, md->home_len)) {
			put = "~", skip = md->home_len;
			md->home_used |= sites;
		}
		if (!put) {
			out[len++] = s[i++];
			continue;
		}
		if (len + strlen(put) + 1 > cap) {
			cap = (len + strlen(put) + 1) * 2 + n;
			out = ct_xrealloc(out, cap);
		}
		memcpy(out + len, put, strlen(put));
		len += strlen(put);
		i += skip;
	}
	out[len] = '\0';
	return out;
}

/* A string of the outside world, masked, escaped and shortened (to free). */
static char *prepare(struct ct_md *md, const char *raw)
{
	char *masked = raw ? ct_mask_text(raw) : NULL;
	char *esc = ct_text_escape(masked ? masked : raw ? raw : "");
	char *s = shorten(md, esc, true);

	free(masked);
	free(esc);
	return s;
}

/* ---- Markdown's contexts ----------------------------------------------------- */

/* The longest run of backticks in n bytes at s. */
static size_t backtick_run(const char *s, size_t n)
{
	size_t i, run = 0, best = 0;

	for (i = 0; i < n; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		best = run > best ? run : best;
	}
	return best;
}

/*
 * A code span: fenced by more backticks than any run inside, and padded
 * with a space where the content would otherwise touch the fence or lose
 * its own outer spaces. Within it nothing is interpreted.
 */
static void md_code(FILE *out, const char *s, size_t n)
{
	size_t fence = backtick_run(s, n) + 1, i;
	bool pad = n && (s[0] == '`' || s[n - 1] == '`' || (s[0] == ' ' && s[n - 1] == ' '));

	for (i = 0; i < fence; i++)
		fputc('`', out);
	if (pad)
		fputc(' ', out);
	ct_text_put(out, s, n);
	if (pad)
		fputc(' ', out);
	for (i = 0; i < fence; i++)
		fputc('`', out);
}

/*
 * Markdown text: every character that could start emphasis, code, a
 * link, HTML, an entity, a table cell, strikethrough or math is
 * backslash-escaped (CommonMark escapes any ASCII punctuation).
 */
static void md_text(FILE *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strchr("\\`*_[]<>&|~$!#", s[i]) && s[i])
			fputc('\\', out);
		fputc(s[i], out);
	}
}

/* HTML text (a <summary>): & < > as entities. */
static void md_html(FILE *out, const char *s)
{
	for (; *s; s++)
		if (*s == '&')
			ct_tprintf(out, "&amp;");
		else if (*s == '<')
			ct_tprintf(out, "&lt;");
		else if (*s == '>')
			ct_tprintf(out, "&gt;");
		else
			fputc(*s, out);
}

/* A fenced code block: its fence longer than any run of backticks in it. */
static void md_fence(FILE *out, const char *s, size_t n)
{
	size_t fence = backtick_run(s, n) + 1, i;

	fence = fence < 3 ? 3 : fence;
	for (i = 0; i < fence; i++)
		fputc('`', out);
	ct_tprintf(out, "text\n");
	ct_text_put(out, s, n);
	if (n && s[n - 1] != '\n')
		fputc('\n', out);
	for (i = 0; i < fence; i++)
		fputc('`', out);
	fputc('\n', out);
}

/* ---- prose: our words with names, paths and commands in code ---------------- */

/*
 * Is the word at s (n bytes) a program whose next words are a command to
 * type ("pip install x", "docker run --gpus all", "cudatrace check ...",
 * "python -m pip")? next: what follows the space after it.
 */
static bool command_word(const char *s, size_t n, const char *next)
{
	static const struct {
		const char *word, *then; /* then: its next words, '|'-separated; "-": an option */
	} cmds[] = {
		{ "pip", "install|uninstall|list|show|download" },
		{ "pip3", "install|uninstall|list|show|download" },
		{ "conda", "install|remove|list|create" },
		{ "apt", "install|remove" },
		{ "apt-get", "install|remove" },
		{ "docker", "run" },
		{ "cudatrace", "run|report|scan|check|ldd|why|doctor" },
		{ "python", "-" },
		{ "python3", "-" },
		{ "sudo", "-|apt|apt-get|ldconfig|modprobe|rmmod|nvidia-smi|pip|pip3" },
		{ "modprobe", "-|nvidia" },
	};
	size_t i, len = strcspn(next, " ,;:)");

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *t = cmds[i].then;

		if (strlen(cmds[i].word) != n || memcmp(cmds[i].word, s, n) != 0)
			continue;
		while (*t) {
			size_t tl = strcspn(t, "|");

			if ((tl == 1 && *t == '-' && next[0] == '-') ||
			    (tl == len && memcmp(t, next, len) == 0))
				return true;
			t += tl + (t[tl] == '|');
		}
	}
	return false;
}

/* Tools named alone, with the options that follow them. */
static bool tool_word(const char *s, size_t n)
{
	static const char *const words[] = { "nvidia-smi", "ldconfig", "ulimit", "env",
					     "nvidia-container-toolkit" };
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && memcmp(words[i], s, n) == 0)
			return true;
	return false;
}

/*
 * A word that is a name rather than English: a path, an option, an
 * assignment, a file, an identifier, a mention or reference GitHub would
 * link, anything with Markdown's own characters.
 */
static bool technical(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return false;
	if ((s[0] == '-' && n > 1 && (isalpha((unsigned char)s[1]) || s[1] == '-')) ||
	    s[0] == '~' || s[0] == '$' || tool_word(s, n))
		return true;
	for (i = 0; i < n; i++)
		if (strchr("/=_`*<>&|[]@#\\$~", s[i]) && s[i])
			return true;
	for (i = 0; i + 3 <= n; i++)
		if (memcmp(s + i, ".so", 3) == 0 && (i + 3 == n || s[i + 3] == '.'))
			return true;
	return false;
}

/* A piece of prose: [start, end) of the string, as code or as text. */
struct piece {
	size_t start, end;
	bool code;
};

struct pieces {
	struct piece *p;
	size_t n;
};

static void piece_add(struct pieces *ps, size_t start, size_t end, bool code)
{
	if (start >= end)
		return;
	/* Code next to code with one space between is one span. */
	if (code && ps->n >= 2 && !ps->p[ps->n - 1].code && ps->p[ps->n - 2].code &&
	    ps->p[ps->n - 1].end == start && ps->p[ps->n - 1].start + 1 == start) {
		ps->n--;
		ps->p[ps->n - 1].end = end;
		return;
	}
	if (ps->n && ps->p[ps->n - 1].code == code && ps->p[ps->n - 1].end == start) {
		ps->p[ps->n - 1].end = end;
		return;
	}
	ps->p = ct_xrealloc(ps->p, (ps->n + 1) * sizeof(*ps->p));
	ps->p[ps->n++] = (struct piece){ start, end, code };
}

/* Where a command that starts at i ends: a clause's end, a parenthesis, the end. */
static size_t command_end(const char *s, size_t i, size_t n)
{
	size_t end = i;
	int depth = 0;

	for (; i < n; i++) {
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && --depth < 0)
			break;
		if ((s[i] == ',' || s[i] == ';') && (i + 1 == n || s[i + 1] == ' '))
			break;
		if (s[i] == ' ' && (s[i + 1] == '(' || strncmp(s + i, " or ", 4) == 0))
			break;
		if (s[i] == ':' && (i + 1 == n || s[i + 1] == ' '))
			break;
		end = i + 1;
	}
	while (end > 0 && (s[end - 1] == '.' || s[end - 1] == ':'))
		end--;
	return end;
}

/*
 * Prose of ours with the outside world's strings in it (a message, a fix,
 * a verdict line): commands ("pip install x", "docker run --gpus all"),
 * quoted subjects, paths and other names go into code spans, the rest is
 * escaped Markdown text. s is prepared (escaped, shortened).
 */
static void md_prose(FILE *out, const char *s)
{
	struct pieces ps = { NULL, 0 };
	size_t n = strlen(s), i = 0, k;

	while (i < n) {
		size_t w = i, lead, core_end, end;

		if (s[i] == ' ') {
			piece_add(&ps, i, i + 1, false);
			i++;
			continue;
		}
		while (w < n && s[w] != ' ')
			w++;
		/* A quoted subject, spaces and all: 'my lib.so' */
		if (s[i] == '\'') {
			for (k = i + 1; k < n; k++)
				if (s[k] == '\'' && (k + 1 == n || strchr(" ,;:).", s[k + 1])))
					break;
			if (k < n && k > i + 1) {
				piece_add(&ps, i, i + 1, false);
				piece_add(&ps, i + 1, k, true);
				piece_add(&ps, k, k + 1, false);
				i = k + 1;
				continue;
			}
		}
		lead = i;
		while (lead < w && (s[lead] == '(' || s[lead] == '"'))
			lead++;
		core_end = w;
		/* Punctuation after a word is not its own; an ellipsis and a closing quote are. */
		while (core_end > lead && strchr(",;:.)\"", s[core_end - 1]) &&
		       !(core_end - lead >= 3 && memcmp(s + core_end - 3, "...", 3) == 0) &&
		       !(s[core_end - 1] == '"' && memchr(s + lead, '"', core_end - 1 - lead)))
			core_end--;
		piece_add(&ps, i, lead, false);
		if (core_end == w && w < n && command_word(s + lead, core_end - lead, s + w + 1) &&
		    (end = command_end(s, lead, n)) > w) {
			piece_add(&ps, lead, end, true);
			i = end;
			continue;
		}
		if (tool_word(s + lead, core_end - lead)) {
			end = core_end;
			/* Its options: "nvidia-smi -L", "ulimit -n". */
			while (end == w && w + 2 < n && s[w] == ' ' && s[w + 1] == '-') {
				size_t e = w + 1;

				while (e < n && s[e] != ' ')
					e++;
				w = e;
				end = e;
				while (end > lead && strchr(",;:.)", s[end - 1]))
					end--;
			}
			piece_add(&ps, lead, end, true);
			piece_add(&ps, end, w, false);
			i = w;
			continue;
		}
		piece_add(&ps, lead, core_end, technical(s + lead, core_end - lead));
		piece_add(&ps, core_end, w, false);
		i = w;
	}
	for (i = 0; i < ps.n; i++) {
		if (ps.p[i].code)
			md_code(out, s + ps.p[i].start, ps.p[i].end - ps.p[i].start);
		else
			md_text(out, s + ps.p[i].start, ps.p[i].end - ps.p[i].start);
	}
	free(ps.p);
}

/* A raw string of the outside world as prose. */
static void md_prose_raw(struct ct_md *md, FILE *out, const char *raw)
{
	char *s = prepare(md, raw);

	md_prose(out, s);
	free(s);
}

/* ---- the document ------------------------------------------------------------ */

/* Every path the document will show, for the names: findings and captures. */
static void note_all(struct ct_md *md, const struct ct_findings *fs)
{
	size_t i, k;

	note_sites(md, md->verdict.buf);
	for (i = 0; i < md->nsections; i++) {
		char *title = ct_text_escape(md->sections[i]->title);

		note_sites(md, md->sections[i]->buf);
		note_sites(md, title);
		free(title);
	}
	for (i = 0; fs && i < fs->n; i++) {
		const struct ct_finding *f = &fs->f[i];
		const char *strs[] = { f->message, f->fix, f->object };
		char *e;

		for (k = 0; k < 3; k++) {
			e = ct_text_escape(strs[k]);
			note_sites(md, e);
			free(e);
		}
		for (k = 0; k < f->nevidence + f->nneeded_by; k++) {
			e = ct_text_escape(k < f->nevidence ? f->evidence[k]
							   : f->needed_by[k - f->nevidence].object);
			note_sites(md, e);
			free(e);
		}
	}
	name_sites(md);
}

/* The verdict: its first line in bold, the others a list. */
static void write_verdict(struct ct_md *md, FILE *out)
{
	char *text = ct_xstrdup(md->verdict.buf ? md->verdict.buf : "");
	char *line, *save = NULL, *s;
	size_t n = 0;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* The printers escaped it already (text.h). */
		s = shorten(md, line, true);
		if (n++ == 0) {
			/* "cudatrace: 2 processes traced: 1 error": the heading names us. */
			const char *lead = strncmp(s, "cudatrace", 9) == 0 && strstr(s, ": ")
						   ? strstr(s, ": ") + 2 : s;

			ct_tprintf(out, "**");
			md_prose(out, lead);
			ct_tprintf(out, "**\n\n");
		} else {
			ct_tprintf(out, "- ");
			md_prose(out, s);
			fputc('\n', out);
		}
		free(s);
	}
	if (n > 1)
		fputc('\n', out);
	free(text);
}

/* "Paths: ~ is the home directory; $SITE is ~/venv/lib/python3.11/site-packages." */
static void write_legend(struct ct_md *md, FILE *out)
{
	bool home = md->home_used;
	size_t i;

	for (i = 0; i < md->nsites; i++)
		home |= md->home && prefix_at(md->sites[i].prefix, 0, md->home, md->home_len);
	if (!home && !md->nsites)
		return;
	ct_tprintf(out, "Paths: ");
	if (home)
		ct_tprintf(out, "`~` is the home directory%s", md->nsites ? "; " : "");
	for (i = 0; i < md->nsites; i++) {
		char *p = shorten(md, md->sites[i].prefix, false);

		ct_tprintf(out, "%s`%s` is ", i ? "; " : "", md->sites[i].name);
		md_code(out, p, strlen(p));
		free(p);
	}
	ct_tprintf(out, ".\n\n");
}

/* A finding: its heading, message, where, fix; its evidence in a block. */
static void write_finding(struct ct_md *md, FILE *out, const struct ct_finding *f)
{
	struct capture c = { 0 };
	char where[256];
	size_t k;

	ct_tprintf(out, "#### %s `%s`\n\n", ct_severity_name(f->severity), ct_finding_id(f->code));
	md_prose_raw(md, out, f->message);
	ct_tprintf(out, "\n\n");
	ct_tprintf(out, "- **seen in:** ");
	if (f->nwhere == 1 && !f->where[0].rank && f->where[0].program) {
		/* The command line whole, in one span. */
		char *p = prepare(md, f->where[0].program);

		ct_tprintf(out, "process %lld%s%s: ", (long long)f->where[0].pid,
			   f->name_hosts && f->where[0].host ? " on " : "",
			   f->name_hosts && f->where[0].host ? f->where[0].host : "");
		md_code(out, p, strlen(p));
		free(p);
	} else {
		md_prose_raw(md, out, ct_where_words(f, where, sizeof(where)));
	}
	fputc('\n', out);
	if (f->nfix_lines == 1) {
		ct_tprintf(out, "- **fix:** ");
		md_prose_raw(md, out, f->fix_lines[0]);
		fputc('\n', out);
	} else if (f->nfix_lines) {
		ct_tprintf(out, "- **fix:**\n");
		for (k = 0; k < f->nfix_lines; k++) {
			ct_tprintf(out, "  - ");
			md_prose_raw(md, out, f->fix_lines[k]);
			fputc('\n', out);
		}
	}
	fputc('\n', out);
	/* The evidence as the text shows it: lines of facts, in a block. */
	ct_finding_evidence_print(capture_open(&c), f, "", md->verbose);
	capture_close(&c);
	if (c.len) {
		char *s = shorten(md, c.buf, true);

		md_fence(out, s, strlen(s));
		fputc('\n', out);
		free(s);
	}
	free(c.buf);
}

static void write_section(struct ct_md *md, FILE *out, const struct capture *c)
{
	char *s;

	if (!c->len)
		return;
	/* A title may name a package and its folder: escaped, shortened, as HTML. */
	s = prepare(md, c->title);
	ct_tprintf(out, "<details><summary>");
	md_html(out, s);
	free(s);
	/* A blank line after <summary>: GitHub renders the Markdown inside. */
	ct_tprintf(out, "</summary>\n\n");
	s = shorten(md, c->buf, true);
	md_fence(out, s, strlen(s));
	ct_tprintf(out, "\n</details>\n\n");
	free(s);
}

int ct_md_write(struct ct_md *md, FILE *out, const char *heading,
		const struct ct_findings *fs)
{
	struct capture lead = { 0 }, body = { 0 };
	int bad = capture_close(&md->verdict);
	size_t i;

	for (i = 0; i < md->nsections; i++)
		bad |= capture_close(md->sections[i]);
	note_all(md, fs);
	/* Written first, so that the legend knows what was shortened. */
	write_verdict(md, capture_open(&lead));
	bad |= capture_close(&lead);
	capture_open(&body);
	for (i = 0; fs && i < fs->n; i++)
		write_finding(md, body.f, &fs->f[i]);
	for (i = 0; i < md->nsections; i++)
		write_section(md, body.f, md->sections[i]);
	bad |= capture_close(&body);
	/* A stream in memory fails only when memory runs out. */
	if (bad)
		ct_out_of_memory();
	ct_tprintf(out, "### ");
	md_text(out, heading, strlen(heading));
	ct_tprintf(out, "\n\n");
	ct_text_put(out, lead.buf, lead.len);
	write_legend(md, out);
	ct_text_put(out, body.buf, body.len);
	free(lead.buf);
	free(body.buf);
	return ferror(out) ? -1 : 0;
}
