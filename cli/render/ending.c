/* How processes ended, laid out; see ending.h. */
#include "ending.h"
#include "text.h"

/* What no exit record can mean (the shim sees no signal: it installs no handler). */
static const char no_record_why[] = ": killed by a signal, or it left without calling exit";

void ct_ending_print(FILE *out, const struct ct_rm_end *e)
{
	ct_tprintf(out, "  end: %s%s%s\n", e->how, e->after, e->no_record ? no_record_why : "");
}

void ct_endings_print(FILE *out, const struct ct_report_model *m)
{
	size_t i;

	/* A job's ranks ended together (scancel): one line, not one per rank. */
	for (i = 0; i < m->njob_ends; i++) {
		const struct ct_rm_job_end *je = &m->job_ends[i];

		ct_tprintf(out, "job %s %s%s%s%s%s, %s\n", je->job, je->how, je->hosts ? " on " : ": ",
			   je->hosts ? je->hosts : "", je->hosts ? ", " : "", je->ranks, je->after);
	}
	for (i = 0; i < m->nabnormal; i++) {
		const struct ct_rm_abnormal *a = &m->abnormal[i];

		ct_tprintf(out, "%s %s%s%s%s\n", a->who, a->was ? "was " : "", a->how, a->after,
			   a->no_record ? no_record_why : "");
	}
	if (m->abnormal_more)
		ct_tprintf(out, "%zu more process%s ended by a signal or without an exit record\n",
			   m->abnormal_more, m->abnormal_more == 1 ? "" : "es");
	/* A daemon that outlived the program: its trace goes on. */
	for (i = 0; i < m->nrunning; i++)
		ct_tprintf(out, "%s is still running: what it does from now on is not in this "
				"report\n", m->running[i]);
	if (m->running_more)
		ct_tprintf(out, "%zu more process%s still running\n", m->running_more,
			   m->running_more == 1 ? "" : "es");
}
